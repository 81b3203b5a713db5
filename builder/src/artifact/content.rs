//! A local folder of content found by its digest (`DIR/sha256/<hex>`): the downloader's files
//! and the build's image blobs are kept this way, each written under a temporary name in the
//! folder (`.<hex>.<nonce>.part`, which the cache's pruning skips) and renamed into place, so a
//! half-written entry is never found. What is taken from it is hashed again before use, as
//! anything from a cache; an entry that fails is removed ([`super::LocalTier::remove`]).

use std::io;
use std::path::{Path, PathBuf};

use super::key::ArtifactKey;
use super::local_tier::LocalTier;

/// A folder of content by digest.
#[derive(Debug, Clone)]
pub struct ContentFolder {
    dir: PathBuf,
}

impl ContentFolder {
    /// The folder `dir` (its `sha256/` created if missing).
    pub fn open(dir: &Path) -> io::Result<Self> {
        std::fs::create_dir_all(dir.join("sha256"))?;
        Ok(ContentFolder {
            dir: dir.to_path_buf(),
        })
    }

    /// Where the entry `key` is.
    pub fn path(&self, key: &ArtifactKey) -> PathBuf {
        self.dir.join("sha256").join(key.local_name())
    }

    /// A new temporary name for the entry `key`, in the folder (renamed into place when
    /// complete).
    pub fn temp_path(&self, key: &ArtifactKey) -> PathBuf {
        let nonce: u64 = rand::random();
        self.dir
            .join("sha256")
            .join(format!(".{}.{nonce:016x}.part", key.local_name()))
    }

    /// Whether the folder holds an entry `key` (not checked: the caller hashes what it takes).
    pub fn holds(&self, key: &ArtifactKey) -> bool {
        self.path(key).is_file()
    }

    /// Whether the entry `key` is there with `size` bytes hashing to `sha256` (hex, a
    /// `sha256:` prefix allowed); marks it used when it is. Reads the whole entry: run it off
    /// the async threads.
    pub fn verified(&self, key: &ArtifactKey, sha256: &str, size: u64) -> bool {
        let path = self.path(key);
        let want = sha256.trim_start_matches("sha256:");
        let sound = std::fs::metadata(&path).is_ok_and(|m| m.len() == size)
            && crate::digest::sha256_file(&path)
                .is_ok_and(|d| d.digest().trim_start_matches("sha256:") == want);
        if sound {
            crate::cache_dir::mark_used(&path);
        }
        sound
    }

    /// Keeps the verified file at `from` as the entry `key` (the file stays): a hard link made
    /// under a temporary name and renamed into place, else a copy written the same way. An
    /// entry already there is kept as it is (the caller hashes it before use).
    pub fn put(&self, key: &ArtifactKey, from: &Path) -> io::Result<()> {
        let path = self.path(key);
        if path.is_file() {
            return Ok(());
        }
        let temp = self.temp_path(key);
        let placed = std::fs::hard_link(from, &temp)
            .or_else(|_| std::fs::copy(from, &temp).map(drop))
            .and_then(|()| std::fs::rename(&temp, &path));
        if placed.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        placed
    }

    /// Renames the complete file `temp` (a [`Self::temp_path`] of `key`) into place.
    pub fn settle(&self, key: &ArtifactKey, temp: &Path) -> io::Result<PathBuf> {
        let path = self.path(key);
        std::fs::rename(temp, &path)?;
        Ok(path)
    }
}

impl LocalTier for ContentFolder {
    fn remove(&self, key: &ArtifactKey) {
        let _ = std::fs::remove_file(self.path(key));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blob(bytes: &[u8]) -> ArtifactKey {
        ArtifactKey::Blob {
            digest: format!("sha256:{}", crate::digest::sha256_hex(bytes)),
            size: bytes.len() as u64,
        }
    }

    /// An entry is found by its digest once put, hashes to it, and is gone once removed; a
    /// copy that no longer hashes to its digest is not verified.
    #[test]
    fn an_entry_put_is_verified_by_its_digest_and_a_damaged_one_is_not() {
        let dir = tempfile::tempdir().expect("temp dir");
        let folder = ContentFolder::open(dir.path()).expect("folder");
        let key = blob(b"good");
        let from = dir.path().join("from");
        std::fs::write(&from, b"good").expect("write");
        assert!(!folder.holds(&key));
        folder.put(&key, &from).expect("put");
        assert!(from.is_file(), "the file put stays");
        let sha256 = crate::digest::sha256_hex(b"good");
        assert!(folder.verified(&key, &sha256, 4));
        assert!(!folder.verified(&key, &sha256, 5), "another size");
        std::fs::write(folder.path(&key), b"evil").expect("damage");
        assert!(!folder.verified(&key, &sha256, 4), "a damaged entry");
        folder.remove(&key);
        assert!(!folder.holds(&key));
        let names: Vec<_> = std::fs::read_dir(dir.path().join("sha256"))
            .expect("list")
            .flatten()
            .collect();
        assert!(names.is_empty(), "no temporary name is left: {names:?}");
    }
}
