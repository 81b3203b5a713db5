//! What a build can check before its plan, so a mistake costs no download: OUTPUT_PATH and
//! `--cache-dir` are directories it can write (or can create) and the `--write-lock` file's
//! folder exists and can be written. The OUTPUT_PATH folders a build creates are removed again if it fails
//! (however it ends, Ctrl-C included), so a failed build leaves no trace there.

use std::path::{Path, PathBuf};

/// Why the build cannot start.
#[derive(Debug, thiserror::Error)]
pub enum PreflightError {
    /// OUTPUT_PATH (or a folder above it) is not a directory.
    #[error("OUTPUT_PATH {path}{at} is not a directory; give a directory for the ISO")]
    NotDirectory {
        /// OUTPUT_PATH.
        path: String,
        /// The entry above it that is not a directory (`: <path>`), empty when it is itself.
        at: String,
    },
    /// A folder cannot be written.
    #[error("{what} {}: cannot write in {} ({source}); give a folder you can write, or fix its permissions", path.display(), dir.display())]
    NotWritable {
        /// What it is (OUTPUT_PATH, the lock file).
        what: &'static str,
        /// The path given.
        path: PathBuf,
        /// The folder tried.
        dir: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// `--cache-dir` (or a folder above it) is not a directory.
    #[error("--cache-dir {}{at} is not a directory; give a folder for the cache", path.display())]
    CacheNotDirectory {
        /// The cache folder given.
        path: PathBuf,
        /// The entry above it that is not a directory (`: <path>`), empty when it is itself.
        at: String,
    },
    /// The lock file's folder does not exist.
    #[error("the lock file {}: its folder {} does not exist; create it or give another --write-lock path", path.display(), dir.display())]
    NoLockFolder {
        /// The lock path.
        path: PathBuf,
        /// Its folder.
        dir: PathBuf,
    },
    /// The lock path is a directory.
    #[error("the lock file {} is a directory; give a file name to --write-lock", path.display())]
    LockIsDirectory {
        /// The lock path.
        path: PathBuf,
    },
}

/// OUTPUT_PATH, checked, and made when `create` (the folders made are removed when this is
/// dropped before [`OutputPath::keep`]).
#[derive(Debug)]
pub struct OutputPath {
    /// The folders this build made, deepest first.
    created: Vec<PathBuf>,
}

impl OutputPath {
    /// Checks that `path` is a directory this build can write, or can be created under the
    /// nearest folder that exists; with `create`, makes it.
    pub fn prepare(path: &Path, create: bool) -> Result<OutputPath, PreflightError> {
        let (at, missing) = nearest_folder(path).map_err(|at| PreflightError::NotDirectory {
            path: path.display().to_string(),
            at: below(path, &at),
        })?;
        writable("OUTPUT_PATH", path, &at)?;
        let mut made = OutputPath {
            created: Vec::new(),
        };
        if create {
            for dir in missing.iter().rev() {
                match std::fs::create_dir(dir) {
                    Ok(()) => made.created.insert(0, dir.clone()),
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => {}
                    Err(source) => {
                        return Err(PreflightError::NotWritable {
                            what: "OUTPUT_PATH",
                            path: path.to_path_buf(),
                            dir: dir.clone(),
                            source,
                        });
                    }
                }
            }
        }
        Ok(made)
    }

    /// The build succeeded: what it made stays.
    pub fn keep(mut self) {
        self.created.clear();
    }
}

impl Drop for OutputPath {
    /// Removes the folders this build made, those still empty (nothing it wrote is deleted).
    fn drop(&mut self) {
        for dir in &self.created {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Checks that `--cache-dir` `path` is a directory this build can write, or one it can create
/// under the nearest folder that exists (the cache lock then makes it).
pub fn check_cache_dir(path: &Path) -> Result<(), PreflightError> {
    let (at, _) = nearest_folder(path).map_err(|at| PreflightError::CacheNotDirectory {
        path: path.to_path_buf(),
        at: below(path, &at),
    })?;
    writable("--cache-dir", path, &at)
}

/// The nearest folder at or above `path` that exists, and the paths below it to make, deepest
/// first; `Err` names an entry on the way that is not a directory.
fn nearest_folder(path: &Path) -> Result<(PathBuf, Vec<PathBuf>), PathBuf> {
    let mut missing = Vec::new();
    let mut at = if path.as_os_str().is_empty() {
        Path::new(".").to_path_buf()
    } else {
        path.to_path_buf()
    };
    loop {
        match std::fs::metadata(&at) {
            Ok(meta) if meta.is_dir() => return Ok((at, missing)),
            Ok(_) => return Err(at),
            Err(_) => {
                missing.push(at.clone());
                match at.parent() {
                    Some(parent) if !parent.as_os_str().is_empty() => at = parent.to_path_buf(),
                    _ => {
                        let here = Path::new(".").to_path_buf();
                        return if here.is_dir() {
                            Ok((here, missing))
                        } else {
                            Err(here)
                        };
                    }
                }
            }
        }
    }
}

/// `: <at>` when the entry that is not a directory is above `path`, else nothing.
fn below(path: &Path, at: &Path) -> String {
    if at == path {
        String::new()
    } else {
        format!(": {}", at.display())
    }
}

/// Checks that the lock file `path` can be written: its folder exists and takes a new file, and
/// it is not a directory.
pub fn check_lock_path(path: &Path) -> Result<(), PreflightError> {
    if path.is_dir() {
        return Err(PreflightError::LockIsDirectory {
            path: path.to_path_buf(),
        });
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(PreflightError::NoLockFolder {
            path: path.to_path_buf(),
            dir: dir.to_path_buf(),
        });
    }
    writable("the lock file", path, dir)
}

/// Whether a file can be made in `dir` (made and removed at once).
fn writable(what: &'static str, path: &Path, dir: &Path) -> Result<(), PreflightError> {
    tempfile::Builder::new()
        .prefix(".cks-iso-write-check-")
        .tempfile_in(dir)
        .map(drop)
        .map_err(|source| PreflightError::NotWritable {
            what,
            path: path.to_path_buf(),
            dir: dir.to_path_buf(),
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_refused_and_the_folders_made_go_unless_kept() {
        let dir = tempfile::tempdir().expect("dir");
        let file = dir.path().join("file");
        std::fs::write(&file, "x").expect("writes");
        let error = OutputPath::prepare(&file.join("below"), true).expect_err("under a file");
        assert!(error.to_string().contains("is not a directory"), "{error}");
        let out = dir.path().join("a/b");
        let made = OutputPath::prepare(&out, true).expect("creatable");
        assert!(out.is_dir());
        drop(made);
        assert!(
            !dir.path().join("a").exists(),
            "removed when the build failed"
        );
        OutputPath::prepare(&out, true).expect("creatable").keep();
        assert!(out.is_dir(), "kept");
        assert!(OutputPath::prepare(&dir.path().join("c"), false).is_ok());
        assert!(!dir.path().join("c").exists(), "a dry run creates nothing");
    }

    #[test]
    fn a_cache_dir_must_be_a_folder_or_creatable() {
        let dir = tempfile::tempdir().expect("dir");
        let file = dir.path().join("file");
        std::fs::write(&file, "x").expect("writes");
        let error = check_cache_dir(&file.join("cache")).expect_err("under a file");
        assert!(error.to_string().contains("--cache-dir"), "{error}");
        assert!(error.to_string().contains("is not a directory"), "{error}");
        assert!(check_cache_dir(&dir.path().join("new/cache")).is_ok());
        assert!(!dir.path().join("new").exists(), "only checked");
    }

    #[test]
    fn a_lock_path_needs_an_existing_folder_and_a_file_name() {
        let dir = tempfile::tempdir().expect("dir");
        let missing = dir.path().join("no/lock.json");
        let error = check_lock_path(&missing).expect_err("no folder");
        assert!(error.to_string().contains("does not exist"), "{error}");
        assert!(check_lock_path(dir.path()).is_err(), "a directory");
        assert!(check_lock_path(&dir.path().join("lock.json")).is_ok());
    }
}
