//! The shared tier the downloader asks after its cache directory and before upstream (the
//! cache registry of many CI runners), seen from here as a port: find a file by its URLs and
//! write it to a path, verified; keep a verified file for the next build.

use std::fmt;
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;

use super::{Checksum, ChecksumStatus};
use crate::progress::ProgressSink;

/// A future the port returns.
pub type PortFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A file the shared tier served, verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedHit {
    /// The canonical URL it was stored for.
    pub url: String,
    /// Where the bytes came from, as the build report's `url_used`.
    pub url_used: String,
    /// Its sha256, lower-case hex.
    pub sha256: String,
    /// Its size.
    pub bytes: u64,
    /// How it was checked when first fetched from upstream.
    pub checksum: ChecksumStatus,
}

/// A tier of verified files shared between builds. Its failures are its own warnings, never
/// the download's: a miss is `None`, a failed push is nothing.
pub trait SharedFiles: Send + Sync + fmt::Debug {
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
}

/// A shared tier as the fetch options hold it (equal when it is the same one).
#[derive(Debug, Clone)]
pub struct SharedTier(pub Arc<dyn SharedFiles>);

impl PartialEq for SharedTier {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for SharedTier {}
