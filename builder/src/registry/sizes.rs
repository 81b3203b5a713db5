//! How many bytes each image of a pull will take, read from its manifests alone (the top one
//! and, for an index, the target platform's), before any blob is asked for: the sum of the
//! config's and the layers' sizes. A build compares that with the free space before it pulls.
//! The manifests are asked of the image's registry (or its mirror) only, never of the cache
//! registry's shared tier, whose counts and contents stay those of the pull.

use futures_util::StreamExt;

use super::client::RegistryClient;
use super::error::RegistryError;
use super::pull::pull_client;
use super::pull_types::{ImageRequest, PullOptions};
use crate::artifact::RemoteName;
use cks_iso_reader::oci;
use cks_iso_reader::oci::{Manifest, parse_manifest};

/// Manifest requests in flight for each transfer `--concurrency` allows: a manifest is a few
/// KiB, so what bounds them is the round trip, and every image's two (the tag's, then the
/// platform's) should be asked at once for a plan's usual twenty images.
const MANIFESTS_PER_TRANSFER: usize = 8;

/// What an image's blobs for the target platform come to, from its manifests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ImageSize {
    /// The bytes of its config and layers.
    pub bytes: u64,
    /// How many blobs that is (the config and each layer).
    pub blobs: u64,
}

/// The size of each of `requests`' blobs for the target platform, in order; `None` for an
/// image whose manifests could not be read or named no such platform (the pull then says
/// why). Only manifests are asked for, never a blob.
pub async fn image_sizes(
    requests: &[ImageRequest],
    options: &PullOptions,
) -> Result<Vec<Option<ImageSize>>, RegistryError> {
    let (client, names) = pull_client(requests, options).await?;
    let client = &client;
    Ok(futures_util::stream::iter(requests.iter().zip(&names))
        .map(|(request, name)| async move {
            // A pinned image (a lock's digest, pulled from the cache registry) is not asked of
            // its registry, which the pull does not contact either: its size stays unknown.
            if options.pinned.contains_key(&request.reference) {
                return None;
            }
            let reference = name.manifest_reference();
            let size = image_size(client, name, reference, options).await;
            if let Err(error) = &size {
                tracing::debug!(image = %name.full, "size not known before the pull: {error}");
            }
            size.ok()
        })
        .buffered(options.concurrency.max(1) * MANIFESTS_PER_TRANSFER)
        .collect()
        .await)
}

/// The bytes of the config and layers of `name` at `reference` for the target platform.
async fn image_size(
    client: &RegistryClient,
    name: &RemoteName,
    reference: &str,
    options: &PullOptions,
) -> Result<ImageSize, RegistryError> {
    let mut fetched = client.manifest(name, reference).await?;
    for _ in 0..2 {
        let (_, parsed) = parse_manifest(
            &name.full,
            &fetched.digest,
            fetched.content_type.as_deref(),
            &fetched.bytes,
        )?;
        match parsed {
            Manifest::Image { config, layers } => {
                return Ok(ImageSize {
                    bytes: layers
                        .iter()
                        .fold(config.size, |sum, layer| sum.saturating_add(layer.size)),
                    blobs: 1 + layers.len() as u64,
                });
            }
            Manifest::Index(entries) => {
                let entry = oci::select(&entries, options.arch).ok_or_else(|| {
                    RegistryError::PlatformNotInIndex {
                        image: name.full.clone(),
                        platform: options.arch.platform(),
                        available: oci::describe(&entries),
                    }
                })?;
                fetched = client.manifest(name, &entry.digest).await?;
            }
        }
    }
    Err(RegistryError::Manifest(
        cks_iso_reader::oci::ManifestError::BadManifest {
            image: name.full.clone(),
            digest: fetched.digest.to_string(),
            reason: "an index entry for the target platform is itself an index".into(),
        },
    ))
}
