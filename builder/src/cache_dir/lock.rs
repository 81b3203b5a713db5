//! The cache folder's lock (`flock` on `CACHE_DIR/.cks-iso-cache.lock`): shared by every build
//! that uses the folder, exclusive for pruning. The file stays; the kernel lets the lock go
//! with the process, so a build killed outright never leaves the cache locked.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use rustix::fs::FlockOperation;

use super::CacheDirError;

/// The lock file's name in the cache folder.
pub const CACHE_LOCK_NAME: &str = ".cks-iso-cache.lock";

/// A held lock on a cache folder, let go when dropped.
#[derive(Debug)]
pub struct CacheLock {
    _file: File,
}

impl CacheLock {
    /// Takes the folder's lock shared, as a build does (waiting while a prune runs), creating
    /// the folder when it is missing.
    pub fn shared(dir: &Path) -> Result<CacheLock, CacheDirError> {
        std::fs::create_dir_all(dir).map_err(|source| CacheDirError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        Self::take(dir, FlockOperation::LockShared)
    }

    /// Takes the folder's lock exclusively, as pruning does, failing at once while a build
    /// holds it.
    pub fn exclusive(dir: &Path) -> Result<CacheLock, CacheDirError> {
        Self::take(dir, FlockOperation::NonBlockingLockExclusive)
    }

    fn take(dir: &Path, operation: FlockOperation) -> Result<CacheLock, CacheDirError> {
        let lock = dir.join(CACHE_LOCK_NAME);
        let io = |source| CacheDirError::Io {
            path: lock.clone(),
            source,
        };
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o644)
            .open(&lock)
            .map_err(io)?;
        match rustix::fs::flock(&file, operation) {
            Ok(()) => Ok(CacheLock { _file: file }),
            Err(rustix::io::Errno::WOULDBLOCK) => Err(CacheDirError::Busy {
                dir: dir.to_path_buf(),
                lock,
            }),
            Err(errno) => Err(io(errno.into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_holder_keeps_pruning_out_until_it_lets_go() {
        let dir = tempfile::tempdir().expect("dir");
        let build = CacheLock::shared(dir.path()).expect("shared");
        let other = CacheLock::shared(dir.path()).expect("a second build shares it");
        assert!(matches!(
            CacheLock::exclusive(dir.path()),
            Err(CacheDirError::Busy { .. })
        ));
        drop((build, other));
        CacheLock::exclusive(dir.path()).expect("free once the builds end");
    }
}
