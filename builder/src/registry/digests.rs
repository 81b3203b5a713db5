//! What each image reference names now: the digest the image's registry (or its mirror)
//! answers for its tag, one small request per image, nothing from any cache. A build that may
//! take a finished ISO from a cache asks this first: the answers are what it checks the ISO's
//! images against.

use futures_util::{StreamExt, TryStreamExt};

use super::error::RegistryError;
use super::pull::pull_client;
use super::pull_types::{ImageRequest, PullOptions};
use cks_pinning::digest::Digest;

/// The digest each of `requests` resolves to at its registry, in order.
pub async fn resolve_digests(
    requests: &[ImageRequest],
    options: &PullOptions,
) -> Result<Vec<Digest>, RegistryError> {
    let (client, names) = pull_client(requests, options).await?;
    let client = &client;
    futures_util::stream::iter(&names)
        .map(|name| async move {
            let manifest = client.manifest(name, name.manifest_reference()).await?;
            Ok::<_, RegistryError>(manifest.digest)
        })
        .buffered(options.concurrency.max(1) * 4)
        .try_collect()
        .await
}
