//! Finished files kept in a cache folder between builds (image tarballs, ISOs): each under its
//! key (`<key>.<ext>`, added by hard link, no copy; where the folder is on another file system,
//! nothing is kept) with small texts beside it (`<key>.<ext>.<side>`, each written under a
//! temporary name and renamed). Best effort: a folder that cannot take an entry is skipped. What
//! is taken from it is checked by the caller before use, as anything from a cache.

use std::path::{Path, PathBuf};

use super::key::ArtifactKey;
use super::local_tier::LocalTier;

/// A folder of finished files of one kind.
#[derive(Debug, Clone)]
pub struct LocalFinished {
    dir: PathBuf,
    ext: &'static str,
    /// The names of the texts kept beside an entry.
    sides: &'static [&'static str],
}

impl LocalFinished {
    /// The folder `dir` (created when the first entry is added) of files named `<key>.<ext>`,
    /// with the texts `sides` beside them.
    pub fn new(dir: PathBuf, ext: &'static str, sides: &'static [&'static str]) -> Self {
        LocalFinished { dir, ext, sides }
    }

    /// Whether the folder holds no entry at all (then no key need be computed to ask it).
    pub fn holds_none(&self) -> bool {
        let suffix = format!(".{}", self.ext);
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return true;
        };
        !entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().ends_with(&suffix))
    }

    /// Where the entry `key` is.
    pub fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.{}", self.ext))
    }

    /// Where the text `side` beside the entry `key` is.
    pub fn side_path(&self, key: &str, side: &str) -> PathBuf {
        self.dir.join(format!("{key}.{}.{side}", self.ext))
    }

    /// The text `side` kept beside the entry `key`, if any.
    pub fn side(&self, key: &str, side: &str) -> Option<String> {
        std::fs::read_to_string(self.side_path(key, side)).ok()
    }

    /// Links the entry `key` to `to` (replacing what is there), marking it used; whether it
    /// did.
    pub fn link(&self, key: &str, to: &Path) -> bool {
        let _ = std::fs::remove_file(to);
        let linked = std::fs::hard_link(self.path(key), to).is_ok();
        if linked {
            crate::cache_dir::mark_used(&self.path(key));
        }
        linked
    }

    /// Keeps the file at `from` as the entry `key`, with the texts `sides` beside it.
    pub fn put(&self, key: &str, from: &Path, sides: &[(&str, &str)]) {
        if std::fs::create_dir_all(&self.dir).is_err() {
            return;
        }
        let path = self.path(key);
        let _ = std::fs::remove_file(&path);
        if std::fs::hard_link(from, &path).is_err() {
            return;
        }
        for (side, text) in sides {
            if !self.put_side(key, side, text) {
                return;
            }
        }
    }

    /// Keeps the text `text` as `side` beside the entry `key` (under a temporary name, renamed
    /// when written); whether it did.
    pub fn put_side(&self, key: &str, side: &str, text: &str) -> bool {
        let Ok(mut temp) = tempfile::NamedTempFile::new_in(&self.dir) else {
            return false;
        };
        std::io::Write::write_all(&mut temp, text.as_bytes()).is_ok()
            && temp.persist(self.side_path(key, side)).is_ok()
    }
}

impl LocalTier for LocalFinished {
    fn remove(&self, key: &ArtifactKey) {
        let name = key.local_name();
        let _ = std::fs::remove_file(self.path(&name));
        for side in self.sides {
            let _ = std::fs::remove_file(self.side_path(&name, side));
        }
    }
}
