//! Progress of an image's blobs under names a person recognises: the image and its tag, and
//! which layer, never the digest alone.

use std::collections::HashMap;

use crate::progress::ProgressSink;
use cks_iso_reader::oci::Descriptor;
use cks_pinning::image::ImageRef;

/// Passes progress on, naming each blob `IMAGE:TAG layer N/M` (or `IMAGE:TAG config`).
pub(super) struct ImageProgress<'a> {
    inner: &'a dyn ProgressSink,
    names: HashMap<String, String>,
}

impl<'a> ImageProgress<'a> {
    /// Names for the blobs of `image`: its `config` and its `layers`, in order.
    pub(super) fn new(
        inner: &'a dyn ProgressSink,
        image: &ImageRef,
        config: &Descriptor,
        layers: &[Descriptor],
    ) -> Self {
        let image = image_name(image);
        let mut names = HashMap::new();
        names.insert(config.digest.to_string(), format!("{image} config"));
        for (index, layer) in layers.iter().enumerate() {
            names.insert(
                layer.digest.to_string(),
                format!("{image} layer {}/{}", index + 1, layers.len()),
            );
        }
        ImageProgress { inner, names }
    }

    fn name<'n>(&'n self, digest: &'n str) -> &'n str {
        self.names.get(digest).map_or(digest, String::as_str)
    }
}

/// `registry.k8s.io/pause:3.10` without a digest: what the manifests name.
fn image_name(image: &ImageRef) -> String {
    match image.tag() {
        Some(tag) => format!("{}/{}:{tag}", image.registry(), image.repository()),
        None => format!("{}/{}", image.registry(), image.repository()),
    }
}

impl ProgressSink for ImageProgress<'_> {
    fn on_start(&self, name: &str, total: Option<u64>) {
        self.inner.on_start(self.name(name), total);
    }
    fn on_bytes(&self, name: &str, bytes: u64) {
        self.inner.on_bytes(self.name(name), bytes);
    }
    fn on_done(&self, name: &str) {
        self.inner.on_done(self.name(name));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Seen(Mutex<Vec<String>>);
    impl ProgressSink for Seen {
        fn on_start(&self, name: &str, _total: Option<u64>) {
            self.0.lock().expect("lock").push(name.to_string());
        }
        fn on_bytes(&self, _name: &str, _bytes: u64) {}
        fn on_done(&self, _name: &str) {}
    }

    #[test]
    fn a_layer_is_named_by_its_image_and_tag() {
        let seen = Seen::default();
        let image: ImageRef = "registry.k8s.io/pause:3.10".parse().expect("reference");
        let descriptor = |hex: char| -> Descriptor {
            serde_json::from_value(serde_json::json!({
                "mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
                "digest": format!("sha256:{}", hex.to_string().repeat(64)),
                "size": 1,
            }))
            .expect("descriptor")
        };
        let progress = ImageProgress::new(&seen, &image, &descriptor('a'), &[descriptor('b')]);
        progress.on_start(&format!("sha256:{}", "b".repeat(64)), Some(1));
        progress.on_start(&format!("sha256:{}", "a".repeat(64)), Some(1));
        assert_eq!(
            *seen.0.lock().expect("lock"),
            [
                "registry.k8s.io/pause:3.10 layer 1/1",
                "registry.k8s.io/pause:3.10 config"
            ]
        );
    }
}
