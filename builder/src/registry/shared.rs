//! The shared tier the puller asks after its blob store and tarball cache and before the
//! image's registry (the cache registry of many CI runners), through the artifact store's
//! port as the downloader asks it ([`crate::artifact::SharedArtifacts`]): manifests and blobs by digest, finished
//! tarballs by what determines their bytes. Its failures are its own warnings, never the
//! pull's: a miss is `None`, a failed push is nothing.
//!
//! The tier is a cache, never a source of truth: a tag is always resolved at the image's
//! registry ([`manifest`]); what the tier serves by digest is hashed against that digest as it
//! streams in, and a finished tarball is used only once it is byte for byte the one this pull
//! writes ([`super::tarball_check::TarballCheck`]).

use super::client::RegistryClient;
use super::error::RegistryError;
use crate::artifact::{FetchedManifest, RemoteName, SharedTier};

/// The manifest `reference` (tag or digest) of `name`: a tag always from the image's registry
/// through `client` (what a tag names is upstream's answer, never a cache's), a digest from
/// `tier` when it holds it, else from the registry; what comes from the registry is kept in the
/// tier.
pub async fn manifest(
    tier: Option<&SharedTier>,
    client: &RegistryClient,
    name: &RemoteName,
    reference: &str,
) -> Result<FetchedManifest, RegistryError> {
    let Some(tier) = tier else {
        return client.manifest(name, reference).await;
    };
    let by_digest = reference.starts_with("sha256:");
    if by_digest && let Some(found) = tier.0.manifest(&name.manifest_key(reference)).await {
        return Ok(found);
    }
    let fetched = client.manifest(name, reference).await?;
    let key = name.manifest_key(fetched.digest.as_ref());
    tier.0.keep_manifest(&key, &fetched, !by_digest).await;
    Ok(fetched)
}
