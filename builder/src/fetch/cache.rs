//! The content cache, the downloader's local tier of the artifact store: files stored by sha256
//! (a [`ContentFolder`], `sha256/<hex>`) and an index by upstream URL
//! (`url/<sha256 of the URL>.json`), so a rebuild takes what it already holds and verified
//! without a request. Entries are written under a temporary name and renamed into place, and
//! content is hashed again when used, so a half-written entry is never taken and a damaged one
//! is refused ([`crate::artifact::Layers::refuse`]: its content and its URL's index go).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::FetchError;
use super::http::Downloaded;
use super::local::copy_hashing;
use crate::artifact::{ArtifactKey, ChecksumStatus, ContentFolder, LocalTier};
use crate::progress::ProgressSink;
use cks_pinning::sources::Checksum;

/// What the cache knows about one upstream URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheEntry {
    /// The upstream URL (as in the plan).
    pub url: String,
    /// The URL the bytes were fetched from.
    pub url_used: String,
    /// Their sha256.
    pub sha256: String,
    /// Their size.
    pub bytes: u64,
    /// How they were checked when fetched.
    pub checksum: ChecksumStatus,
}

impl CacheEntry {
    /// The artifact store's key of the entry.
    pub fn key(&self) -> ArtifactKey {
        ArtifactKey::File {
            url: self.url.clone(),
            sha256: self.sha256.clone(),
        }
    }
}

/// A cache directory.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
    content: ContentFolder,
}

impl Cache {
    /// Opens (creating if needed) the cache in `dir`.
    pub fn open(dir: &Path) -> Result<Self, FetchError> {
        for sub in ["url", "tmp"] {
            let path = dir.join(sub);
            std::fs::create_dir_all(&path)
                .map_err(|e| FetchError::io("creating the cache directory", path, e))?;
        }
        let content = ContentFolder::open(dir)
            .map_err(|e| FetchError::io("creating the cache directory", dir.join("sha256"), e))?;
        Ok(Cache {
            dir: dir.to_path_buf(),
            content,
        })
    }

    fn url_path(&self, url: &str) -> PathBuf {
        let key = crate::digest::sha256_hex(url.as_bytes());
        self.dir.join("url").join(format!("{key}.json"))
    }

    /// The entry for the first of `urls` the cache holds content for that satisfies
    /// `checksum`: a pinned digest must match, a published one must have been verified. A
    /// pinned digest also finds content stored under another URL (its `url_used` is then
    /// `cache:sha256/<hex>`).
    pub fn lookup(&self, urls: &[String], checksum: &Checksum) -> Option<CacheEntry> {
        for url in urls {
            let Ok(text) = std::fs::read_to_string(self.url_path(url)) else {
                continue;
            };
            let Ok(entry) = serde_json::from_str::<CacheEntry>(&text) else {
                continue;
            };
            let acceptable = match checksum {
                Checksum::None => true,
                Checksum::Pinned { sha256 } => entry.sha256.eq_ignore_ascii_case(sha256),
                Checksum::Sidecar { .. } | Checksum::List { .. } => {
                    matches!(entry.checksum, ChecksumStatus::Verified { .. })
                }
            };
            if acceptable && entry.url == *url && self.content.holds(&entry.key()) {
                return Some(entry);
            }
        }
        // A pinned digest finds content stored for any URL.
        if let (Checksum::Pinned { sha256 }, Some(url)) = (checksum, urls.first()) {
            let sha256 = sha256.to_ascii_lowercase();
            let key = ArtifactKey::File {
                url: url.clone(),
                sha256: sha256.clone(),
            };
            let bytes = std::fs::metadata(self.content.path(&key)).ok()?.len();
            return Some(CacheEntry {
                url: url.clone(),
                url_used: format!("cache:sha256/{sha256}"),
                sha256,
                bytes,
                checksum: ChecksumStatus::Verified {
                    source: "pinned".to_string(),
                },
            });
        }
        None
    }

    /// Copies the content of `entry` into a temporary file in `dir`, hashing it: the caller
    /// uses it only when it hashes to the entry's digest (then it is marked used), and refuses
    /// it otherwise.
    pub async fn restore(
        &self,
        entry: &CacheEntry,
        dir: &Path,
        dest_name: &str,
        progress: &dyn ProgressSink,
        name: &str,
    ) -> Result<Downloaded, FetchError> {
        let content = self.content.path(&entry.key());
        let copied = copy_hashing(&content, dir, dest_name, progress, name).await?;
        if copied.sha256 == entry.sha256 {
            crate::cache_dir::mark_used(&content);
        }
        Ok(copied)
    }

    /// Stores the verified file at `path` under `entry` (content first, a hard link where it
    /// can and a copy where it cannot, then the URL index; each written under a temporary name
    /// and renamed).
    pub async fn insert(&self, path: &Path, entry: &CacheEntry) -> Result<(), FetchError> {
        let tmp_dir = self.dir.join("tmp");
        let (content, key, from) = (self.content.clone(), entry.key(), path.to_path_buf());
        tokio::task::spawn_blocking(move || content.put(&key, &from))
            .await
            .map_err(|e| FetchError::io("copying into the cache", path, std::io::Error::other(e)))?
            .map_err(|e| FetchError::io("copying into the cache", path, e))?;
        let index = self.url_path(&entry.url);
        let temp = tempfile::NamedTempFile::new_in(&tmp_dir)
            .map_err(|e| FetchError::io("creating a file in", &tmp_dir, e))?;
        let json = serde_json::to_vec_pretty(entry).map_err(|e| {
            FetchError::io("encoding", &index, std::io::Error::other(e.to_string()))
        })?;
        std::fs::write(temp.path(), json).map_err(|e| FetchError::io("writing", temp.path(), e))?;
        temp.persist(&index)
            .map_err(|e| FetchError::io("renaming to", &index, e.error))?;
        Ok(())
    }

    /// Drops the entry of `url` (its content stays for other URLs with the same digest).
    pub fn forget(&self, url: &str) {
        let _ = std::fs::remove_file(self.url_path(url));
    }
}

impl LocalTier for Cache {
    /// Removes the content of `key` and the index of its URL (the URL names it no more).
    fn remove(&self, key: &ArtifactKey) {
        self.content.remove(key);
        if let ArtifactKey::File { url, .. } = key {
            self.forget(url);
        }
    }
}
