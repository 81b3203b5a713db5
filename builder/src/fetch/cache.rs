//! The content cache: files stored by sha256 (`sha256/<hex>`) and an index by upstream URL
//! (`url/<sha256 of the URL>.json`), so a rebuild takes what it already holds and verified
//! without a request. Entries are written under `tmp/` and renamed into place, and content is
//! re-hashed when used, so a half-written or damaged entry is never taken.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::FetchError;
use super::http::Downloaded;
use super::local::copy_hashing;
use crate::artifact::ChecksumStatus;
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

/// A cache directory.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    /// Opens (creating if needed) the cache in `dir`.
    pub fn open(dir: &Path) -> Result<Self, FetchError> {
        for sub in ["sha256", "url", "tmp"] {
            let path = dir.join(sub);
            std::fs::create_dir_all(&path)
                .map_err(|e| FetchError::io("creating the cache directory", path, e))?;
        }
        Ok(Cache {
            dir: dir.to_path_buf(),
        })
    }

    fn content_path(&self, sha256: &str) -> PathBuf {
        self.dir.join("sha256").join(sha256)
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
            if acceptable && entry.url == *url && self.content_path(&entry.sha256).is_file() {
                return Some(entry);
            }
        }
        // A pinned digest finds content stored for any URL.
        if let (Checksum::Pinned { sha256 }, Some(url)) = (checksum, urls.first()) {
            let sha256 = sha256.to_ascii_lowercase();
            let bytes = std::fs::metadata(self.content_path(&sha256)).ok()?.len();
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

    /// Copies the content of `entry` into a temporary file in `dir`, or `None` (after removing
    /// the entry) when the stored bytes no longer hash to its digest.
    pub async fn restore(
        &self,
        entry: &CacheEntry,
        dir: &Path,
        dest_name: &str,
        progress: &dyn ProgressSink,
        name: &str,
    ) -> Result<Option<Downloaded>, FetchError> {
        let content = self.content_path(&entry.sha256);
        let copied = copy_hashing(&content, dir, dest_name, progress, name).await?;
        if copied.sha256 == entry.sha256 {
            crate::cache_dir::mark_used(&content);
            return Ok(Some(copied));
        }
        tracing::debug!(path = %content.display(), "damaged cache entry removed");
        let _ = std::fs::remove_file(&content);
        let _ = std::fs::remove_file(self.url_path(&entry.url));
        Ok(None)
    }

    /// Stores the verified file at `path` under `entry` (content first, then the URL index, each
    /// written under `tmp/` and renamed).
    pub async fn insert(&self, path: &Path, entry: &CacheEntry) -> Result<(), FetchError> {
        let tmp_dir = self.dir.join("tmp");
        let content = self.content_path(&entry.sha256);
        if !content.is_file() && !link_in(path, &tmp_dir, &content) {
            let temp = tempfile::NamedTempFile::new_in(&tmp_dir)
                .map_err(|e| FetchError::io("creating a file in", &tmp_dir, e))?;
            tokio::fs::copy(path, temp.path())
                .await
                .map_err(|e| FetchError::io("copying into the cache", path, e))?;
            temp.persist(&content)
                .map_err(|e| FetchError::io("renaming to", &content, e.error))?;
        }
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
}

/// Keeps `path` as `content` by a hard link made in `tmp_dir` and renamed into place (no copy:
/// a build never writes into a file it downloaded, it writes a new one and renames it);
/// whether it did (not across file systems).
fn link_in(path: &Path, tmp_dir: &Path, content: &Path) -> bool {
    let Ok(temp) = tempfile::Builder::new()
        .prefix(".link")
        .tempfile_in(tmp_dir)
    else {
        return false;
    };
    // The name only: the link takes its place.
    let Ok(name) = temp.into_temp_path().keep() else {
        return false;
    };
    let linked = std::fs::remove_file(&name).is_ok()
        && std::fs::hard_link(path, &name).is_ok()
        && std::fs::rename(&name, content).is_ok();
    if !linked {
        let _ = std::fs::remove_file(&name);
    }
    linked
}

impl Cache {
    /// Drops the entry of `url` (its content stays for other URLs with the same digest).
    pub fn forget(&self, url: &str) {
        let _ = std::fs::remove_file(self.url_path(url));
    }
}
