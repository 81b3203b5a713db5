//! The shared tier the puller asks after its blob store and tarball cache and before the
//! image's registry (the cache registry of many CI runners), seen from here as a port, as the
//! downloader sees it ([`crate::fetch::SharedFiles`]): manifests and blobs by digest, finished
//! tarballs by what determines their bytes. Its failures are its own warnings, never the
//! pull's: a miss is `None`, a failed push is nothing.
//!
//! The tier is a cache, never a source of truth: a tag is always resolved at the image's
//! registry ([`manifest`]); what the tier serves by digest is hashed against that digest as it
//! streams in, and a finished tarball is used only once it is byte for byte the one this pull
//! writes ([`crate::store::TarballCheck`]).

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use super::RegistryError;
use super::client::{FetchedManifest, RegistryClient};
use super::reference::RemoteName;
use super::tarball_cache::CachedTarball;
use crate::fetch::PortFuture;
use crate::progress::ProgressSink;

/// What identifies one finished tarball.
#[derive(Debug, Clone, Copy)]
pub struct TarballId<'a> {
    /// The image's full name.
    pub image: &'a str,
    /// The digest its reference resolved to.
    pub digest: &'a str,
    /// The digest of the platform's manifest.
    pub platform_digest: &'a str,
    /// The platform, e.g. `linux/amd64`.
    pub platform: &'a str,
}

/// A tier of manifests, blobs and finished tarballs shared between builds.
pub trait SharedImages: Send + Sync + fmt::Debug {
    /// The manifest `digest` of `name`, its bytes hashing to it; `None` when the tier holds
    /// none (or a damaged copy).
    fn manifest<'a>(
        &'a self,
        name: &'a RemoteName,
        digest: &'a str,
    ) -> PortFuture<'a, Option<FetchedManifest>>;

    /// Keeps the manifest `fetched` (verified against its digest) of `name`; with `unless_held`,
    /// only when the tier does not hold it already.
    fn push_manifest<'a>(
        &'a self,
        name: &'a RemoteName,
        fetched: &'a FetchedManifest,
        unless_held: bool,
    ) -> PortFuture<'a, ()>;

    /// Streams blob `digest` of `size` bytes of `image` into `file`, checking size and digest;
    /// whether it did.
    fn blob<'a>(
        &'a self,
        image: &'a str,
        digest: &'a str,
        size: u64,
        file: &'a Path,
        progress: &'a dyn ProgressSink,
    ) -> PortFuture<'a, bool>;

    /// Keeps the verified blob at `path`.
    fn push_blob<'a>(&'a self, digest: &'a str, size: u64, path: &'a Path) -> PortFuture<'a, ()>;

    /// The finished tarball of `id`, under a temporary name in `out_dir`, its bytes hashing to
    /// the digest the tier holds it under (the caller checks it is the one it writes).
    fn tarball<'a>(
        &'a self,
        id: TarballId<'a>,
        out_dir: &'a Path,
        progress: &'a dyn ProgressSink,
    ) -> PortFuture<'a, Option<tempfile::TempPath>>;

    /// Keeps the finished tarball of `id` written at `path`, with its record.
    fn push_tarball<'a>(
        &'a self,
        id: TarballId<'a>,
        path: &'a Path,
        record: &'a CachedTarball,
    ) -> PortFuture<'a, ()>;

    /// The tarball the tier served for `image` is not the one this pull writes (`reason`).
    fn refused_tarball(&self, image: &str, reason: String);
}

/// A shared tier as the pull options hold it.
#[derive(Debug, Clone)]
pub struct SharedImageTier(pub Arc<dyn SharedImages>);

/// The manifest `reference` (tag or digest) of `name`: a tag always from the image's registry
/// through `client` (what a tag names is upstream's answer, never a cache's), a digest from
/// `tier` when it holds it, else from the registry; what comes from the registry is kept in the
/// tier.
pub async fn manifest(
    tier: Option<&SharedImageTier>,
    client: &RegistryClient,
    name: &RemoteName,
    reference: &str,
) -> Result<FetchedManifest, RegistryError> {
    let Some(tier) = tier else {
        return client.manifest(name, reference).await;
    };
    let by_digest = reference.starts_with("sha256:");
    if by_digest && let Some(found) = tier.0.manifest(name, reference).await {
        return Ok(found);
    }
    let fetched = client.manifest(name, reference).await?;
    tier.0.push_manifest(name, &fetched, !by_digest).await;
    Ok(fetched)
}
