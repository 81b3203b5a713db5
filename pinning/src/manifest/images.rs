//! Listing the container images a manifest names.

use saphyr::MarkedYaml;

use super::document::{Located, Parsed, for_each_entry, get, items};
use super::error::ManifestError;
use crate::image::{self, ImageRef};

/// The keys whose sequences hold containers.
const CONTAINER_LISTS: [&str; 3] = ["containers", "initContainers", "ephemeralContainers"];

/// Every container `image` in every document, in document order, repeats included.
pub(crate) fn image_nodes(parsed: &Parsed<'_>) -> Result<Vec<Located>, ManifestError> {
    let mut found = Vec::new();
    let mut collect = |key: &str, value: &MarkedYaml<'_>| {
        if CONTAINER_LISTS.contains(&key) {
            for container in items(value) {
                if let Some(image) = get(container, "image") {
                    found.push(parsed.locate(image));
                }
            }
        }
    };
    for document in parsed.objects() {
        for_each_entry(document, &mut collect);
    }
    for image in &found {
        if image.value.as_deref().is_none_or(str::is_empty) {
            return Err(ManifestError::ImageNotString {
                line: image.line,
                source_text: parsed.text[image.range.clone()].to_string(),
            });
        }
    }
    Ok(found)
}

/// The images of every `containers`, `initContainers` and `ephemeralContainers` entry in every
/// document, quoted or not, in order, each text once.
///
/// ```
/// let manifest = "spec:\n  containers:\n    - name: a\n      image: \"busybox:1.36\"\n";
/// assert_eq!(cks_pinning::manifest::images(manifest).expect("valid"), ["busybox:1.36"]);
/// ```
pub fn images(text: &str) -> Result<Vec<String>, ManifestError> {
    let parsed = Parsed::parse(text)?;
    let mut out: Vec<String> = Vec::new();
    for image in image_nodes(&parsed)? {
        let value = image.value.unwrap_or_default();
        if !out.contains(&value) {
            out.push(value);
        }
    }
    Ok(out)
}

/// The manifest's images parsed and normalised, deduplicated by normalised reference.
pub fn image_refs(text: &str) -> Result<Vec<ImageRef>, ManifestError> {
    let parsed = Parsed::parse(text)?;
    let mut refs = Vec::new();
    for image in image_nodes(&parsed)? {
        let value = image.value.unwrap_or_default();
        let reference = ImageRef::parse(&value).map_err(|source| ManifestError::ImageRef {
            line: image.line,
            source,
        })?;
        refs.push(reference);
    }
    Ok(image::dedup(refs))
}
