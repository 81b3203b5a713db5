//! The local `--cache-dir` as a whole: its entries (finished ISOs, image tarballs, image blobs,
//! downloaded files) with their size and last use, and pruning it by size and age. A build
//! holds a shared lock on the folder while it runs ([`CacheLock::shared`]) and marks each entry
//! it takes as used ([`mark_used`]); pruning takes the lock exclusively, so it never removes an
//! entry a running build may be using, and removes the least recently used first.
//!
//! ```no_run
//! use cks_builder::cache_dir::{self, Prune};
//! let dir = std::path::Path::new("cache");
//! for entry in cache_dir::list(dir)? {
//!     println!("{} {} {}", entry.kind, entry.name, entry.size);
//! }
//! let removed = cache_dir::prune(dir, &Prune { max_size: Some(10 << 30), max_age: None })?;
//! println!("{} entries removed", removed.removed.len());
//! # Ok::<(), cks_builder::cache_dir::CacheDirError>(())
//! ```

mod entries;
mod lock;
mod prune;

use std::path::PathBuf;

use thiserror::Error;

pub use entries::{Entry, Kind, list, mark_used};
pub use lock::{CACHE_LOCK_NAME, CacheLock};
pub use prune::{Prune, Pruned, prune};

/// Why the cache folder could not be listed or pruned.
#[derive(Debug, Error)]
pub enum CacheDirError {
    /// A file or folder of the cache could not be read, locked or removed.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A build holds the cache's lock: pruning now could remove what it uses.
    #[error(
        "{dir} is in use by a running cks-iso build (lock file {lock}); prune it when no build uses it"
    )]
    Busy {
        /// The cache folder.
        dir: PathBuf,
        /// Its lock file.
        lock: PathBuf,
    },
    /// The folder is not a cache folder (no such folder).
    #[error("{dir} is not a folder; give the --cache-dir of the builds")]
    NotAFolder {
        /// The path given.
        dir: PathBuf,
    },
}
