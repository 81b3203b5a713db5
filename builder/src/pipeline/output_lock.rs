//! One writer per OUTPUT_PATH: `cks-iso build` and `cks-iso release` hold an exclusive lock
//! (`flock`) on `OUTPUT_PATH/.cks-iso.lock` while they write there, and a second one started on
//! the same folder fails at once naming the first's lock file and pid. The lock file holds the
//! holder's pid and is removed when the lock is let go; a holder killed outright leaves the file
//! but not the lock, which the kernel releases with the process.

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rustix::fs::FlockOperation;

/// The lock file's name inside OUTPUT_PATH.
pub const OUTPUT_LOCK_NAME: &str = ".cks-iso.lock";

/// The folders this process holds the lock of: a release holds its folder's lock for the whole
/// run, and each build it makes there takes it again without waiting on itself.
static HELD: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

/// Why OUTPUT_PATH cannot be locked.
#[derive(Debug, thiserror::Error)]
pub enum OutputLockError {
    /// Another process holds the lock.
    #[error(
        "OUTPUT_PATH {} is being written by another cks-iso{} (lock file {}); wait for it to \
         end, or give another --output-path",
        dir.display(),
        pid.map(|p| format!(" (pid {p})")).unwrap_or_default(),
        lock.display()
    )]
    Busy {
        /// OUTPUT_PATH.
        dir: PathBuf,
        /// The lock file.
        lock: PathBuf,
        /// The holder's pid, as its lock file says.
        pid: Option<u32>,
    },
    /// The lock file cannot be made or locked.
    #[error("locking OUTPUT_PATH through {}: {source}", lock.display())]
    Io {
        /// The lock file.
        lock: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// The lock on one OUTPUT_PATH, let go (and its file removed) when dropped.
#[derive(Debug)]
pub struct OutputLock {
    /// The lock file and its open handle; `None` when this process held the lock already.
    held: Option<(PathBuf, File, PathBuf)>,
}

impl OutputLock {
    /// Takes the lock of the existing folder `dir`, or fails at once when another process holds
    /// it.
    pub fn acquire(dir: &Path) -> Result<OutputLock, OutputLockError> {
        let dir = match dir.as_os_str().is_empty() {
            true => Path::new("."),
            false => dir,
        };
        let lock = dir.join(OUTPUT_LOCK_NAME);
        let io = |source| OutputLockError::Io {
            lock: lock.clone(),
            source,
        };
        let key = std::fs::canonicalize(dir).map_err(io)?;
        let mut held = HELD.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if held.contains(&key) {
            return Ok(OutputLock { held: None });
        }
        loop {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o644)
                .open(&lock)
                .map_err(io)?;
            match rustix::fs::flock(&file, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => {}
                Err(rustix::io::Errno::WOULDBLOCK) => {
                    return Err(OutputLockError::Busy {
                        dir: dir.to_path_buf(),
                        pid: holder(&mut file),
                        lock,
                    });
                }
                Err(errno) => return Err(io(errno.into())),
            }
            // The last holder may have removed the file between our open and our lock: then
            // the lock is on a file nobody else will open, and a new one must be made.
            let ours = file.metadata().map_err(io)?;
            let named = match std::fs::metadata(&lock) {
                Ok(named) => named,
                Err(_) => continue,
            };
            if (ours.dev(), ours.ino()) != (named.dev(), named.ino()) {
                continue;
            }
            file.set_len(0).map_err(io)?;
            writeln!(file, "{}", std::process::id()).map_err(io)?;
            held.insert(key.clone());
            return Ok(OutputLock {
                held: Some((lock, file, key)),
            });
        }
    }
}

/// The pid a lock file names, when it names one.
fn holder(file: &mut File) -> Option<u32> {
    let mut text = String::new();
    file.read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

impl Drop for OutputLock {
    /// Removes the lock file while still holding the lock, then lets the lock go.
    fn drop(&mut self) {
        if let Some((lock, file, key)) = self.held.take() {
            let _ = std::fs::remove_file(&lock);
            drop(file);
            let mut held = HELD.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            held.remove(&key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_naming_the_first_and_the_file_goes_with_the_lock() {
        let dir = tempfile::tempdir().expect("dir");
        let first = OutputLock::acquire(dir.path()).expect("free");
        // The same process takes it again without waiting on itself.
        let again = OutputLock::acquire(dir.path()).expect("held by this process");
        drop(again);
        // Another process: an open file description of its own, locked.
        let lock = dir.path().join(OUTPUT_LOCK_NAME);
        let other = File::open(&lock).expect("the lock file is there");
        let refused = rustix::fs::flock(&other, FlockOperation::NonBlockingLockExclusive);
        assert_eq!(refused, Err(rustix::io::Errno::WOULDBLOCK));
        let text = std::fs::read_to_string(&lock).expect("lock file");
        assert_eq!(text.trim(), std::process::id().to_string());
        drop(first);
        assert!(!lock.exists(), "removed with the lock");
        OutputLock::acquire(dir.path()).expect("free again");
    }
}
