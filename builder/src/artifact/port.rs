//! The artifact store's one port: what a build asks of a store shared between builds (the cache
//! registry of many CI runners), whatever it stores: files, image manifests and blobs,
//! finished tarballs and ISOs. The downloader, the puller and the ISO store hold the same
//! [`SharedTier`]. Its failures are its own warnings, never the build's: a miss is `None`, a
//! failed push is nothing. What it serves is hashed as it streams in; whether it is what this
//! build needs is checked by the caller against what the build knows without it.

use std::fmt;
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;

use cks_pinning::sources::Checksum;

use super::file::{ChecksumStatus, SharedHit};
use super::image::{CachedTarball, FetchedManifest, RemoteName, TarballId};
use super::key::ArtifactKey;
use crate::follow::Watermark;
use crate::progress::ProgressSink;

/// A future the port returns.
pub type PortFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A finished file (an ISO) the shared tier served, hashed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinishedFile {
    /// Its sha256, lower-case hex.
    pub sha256: String,
    /// Its size.
    pub size: u64,
    /// The sha256's checkpoints noted as it streamed in (empty for one to push), to check the
    /// same bytes again on every core ([`crate::digest::chain`]).
    pub checkpoints: Vec<crate::digest::chain::Checkpoint>,
}

/// A store of artifacts shared between builds.
pub trait SharedArtifacts: Send + Sync + fmt::Debug {
    /// Writes the first of `urls` the tier holds (satisfying `checksum`) to `file`, checked
    /// against its size and sha256; `None` when it holds none, or only a damaged copy.
    fn fetch_file<'a>(
        &'a self,
        urls: &'a [String],
        checksum: &'a Checksum,
        file: &'a Path,
        progress: &'a dyn ProgressSink,
    ) -> PortFuture<'a, Option<SharedHit>>;

    /// Keeps the verified file at `path` (`sha256`, `bytes`) for `url`, with how it was checked.
    fn push_file<'a>(
        &'a self,
        url: &'a str,
        path: &'a Path,
        sha256: &'a str,
        bytes: u64,
        checksum: &'a ChecksumStatus,
    ) -> PortFuture<'a, ()>;

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

    /// Streams the finished ISO `key` into `file`, checking its size and sha256 (the caller
    /// checks it is the one it writes), publishing in `mark` the bytes landed so a check can
    /// read behind the transfer; `None` when the tier holds none, or a damaged copy (`mark`
    /// then ends short).
    fn iso<'a>(
        &'a self,
        key: &'a ArtifactKey,
        file: &'a Path,
        progress: &'a dyn ProgressSink,
        mark: &'a Watermark,
    ) -> PortFuture<'a, Option<FinishedFile>>;

    /// Keeps the finished ISO `key` written at `path` (`sha256`, `size`) with `record`.
    fn push_iso<'a>(
        &'a self,
        key: &'a ArtifactKey,
        path: &'a Path,
        file: FinishedFile,
        record: String,
    ) -> PortFuture<'a, ()>;

    /// The tarball the tier served for `image` is not the one this pull writes (`reason`): a
    /// miss and one warning.
    fn refused_tarball(&self, image: &str, reason: String);

    /// The ISO the tier served for `key` is not the one this build writes (`reason`): a miss
    /// and one warning.
    fn refused_iso(&self, key: &ArtifactKey, reason: String);
}

/// The shared tier as the downloader, the puller and the ISO store hold it (equal when it is
/// the same one).
#[derive(Debug, Clone)]
pub struct SharedTier(pub Arc<dyn SharedArtifacts>);

impl PartialEq for SharedTier {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for SharedTier {}
