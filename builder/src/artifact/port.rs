//! The artifact store's one port: what a build asks of a store shared between builds (the cache
//! registry of many CI runners), whatever it stores. Every entry is named by its one key
//! ([`ArtifactKey`]): a build takes an entry by its key into a file ([`SharedArtifacts::take`]),
//! keeps one by its key ([`SharedArtifacts::keep`]), and says when one it took is not what it
//! writes ([`SharedArtifacts::refused`]); a manifest, small and wanted in memory, has its own
//! pair. The downloader, the puller and the ISO store hold the same [`SharedTier`]. Its
//! failures are its own warnings, never the build's: a miss is `None`, a failed push is
//! nothing. What it serves is hashed as it streams in; whether it is what this build needs is
//! checked by the caller against what the build knows without it.

use std::fmt;
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;

use super::file::ChecksumStatus;
use super::image::FetchedManifest;
use super::key::ArtifactKey;
use crate::digest::chain::Checkpoint;
use crate::follow::Watermark;
use crate::progress::ProgressSink;

/// A future the port returns.
pub type PortFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Where an entry taken from the shared tier lands.
#[derive(Clone, Copy)]
pub struct Landing<'a> {
    /// The file its bytes are written to (removed when the take fails).
    pub file: &'a Path,
    /// What a warning about the entry names it by (the URL of a file, the image of a blob or a
    /// tarball, `ISO <recipe>`).
    pub about: &'a str,
    /// Told of the transfer's progress.
    pub progress: &'a dyn ProgressSink,
    /// Where the bytes landed so far are published, so a check can read behind the transfer
    /// (it ends short when the take fails).
    pub mark: Option<&'a Watermark>,
}

impl fmt::Debug for Landing<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Landing")
            .field("file", &self.file)
            .field("about", &self.about)
            .finish_non_exhaustive()
    }
}

/// What an entry records beside its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// Nothing (a blob).
    Nothing,
    /// How a downloaded file was checked when first fetched upstream.
    Checked(ChecksumStatus),
    /// What the build reports of a finished tarball or ISO (a tarball's is its JSON record).
    Record(String),
}

/// An entry the shared tier served, its bytes checked against the size and digest it is held
/// under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taken {
    /// Its sha256, lower-case hex.
    pub sha256: String,
    /// Its size.
    pub size: u64,
    /// Where its bytes came from, as a build report's `url_used` names it.
    pub source: String,
    /// The sha256's checkpoints noted as it streamed in, to check the same bytes again on
    /// every core ([`crate::digest::chain`]); empty where the tier noted none.
    pub checkpoints: Vec<Checkpoint>,
    /// What was recorded with it.
    pub note: Note,
}

/// A verified file to keep in the shared tier.
#[derive(Debug, Clone)]
pub struct Kept<'a> {
    /// Where it is.
    pub path: &'a Path,
    /// Its sha256, lower-case hex (a `sha256:` prefix is allowed).
    pub sha256: &'a str,
    /// Its size.
    pub size: u64,
    /// What to record with it.
    pub note: Note,
}

/// A store of artifacts shared between builds.
pub trait SharedArtifacts: Send + Sync + fmt::Debug {
    /// Writes the entry `key` to `landing.file`, checked against its size and the digest the
    /// tier holds it under (for a file, the one the key names; for a blob, the key's own);
    /// `None` when it holds none, or only a damaged copy (nothing is then left at the file).
    fn take<'a>(
        &'a self,
        key: &'a ArtifactKey,
        landing: Landing<'a>,
    ) -> PortFuture<'a, Option<Taken>>;

    /// Keeps the verified file `kept` as the entry `key`.
    fn keep<'a>(&'a self, key: &'a ArtifactKey, kept: Kept<'a>) -> PortFuture<'a, ()>;

    /// The manifest `key` (a [`ArtifactKey::Manifest`] by digest), its bytes hashing to that
    /// digest; `None` when the tier holds none (or a damaged copy).
    fn manifest<'a>(&'a self, key: &'a ArtifactKey) -> PortFuture<'a, Option<FetchedManifest>>;

    /// Keeps the manifest `fetched` (verified against its digest) as `key`; with `unless_held`,
    /// only when the tier does not hold it already.
    fn keep_manifest<'a>(
        &'a self,
        key: &'a ArtifactKey,
        fetched: &'a FetchedManifest,
        unless_held: bool,
    ) -> PortFuture<'a, ()>;

    /// The entry the tier served for `key` (named `about` in warnings) is not the one this build
    /// writes (`reason`): a miss and one warning.
    fn refused(&self, key: &ArtifactKey, about: &str, reason: String);
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
