//! The build's blob store: every blob is fetched once per build and shared by the tarballs that
//! need it. It is the artifact store's tiers for blobs ([`Layers`]): a local folder of content
//! by digest (`DIR/sha256/<hex>`, [`ContentFolder`]), whose entries are hashed again before
//! reuse, then the shared tier, then the image's registry; a blob fetched upstream is kept in
//! both, and a damaged local entry is refused as every kind's is.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::{Mutex, OnceCell, Semaphore};

use super::client::RegistryClient;
use super::error::RegistryError;
use crate::artifact::{ArtifactKey, ContentFolder, Kept, Landing, Layer, Layers, Note, RemoteName};
use crate::progress::ProgressSink;

/// Blobs up to this size are fetched without waiting for a transfer slot.
const SMALL_BLOB: u64 = 256 * 1024;

/// Counts of what the store did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StoreStats {
    /// Blobs downloaded.
    pub blobs_fetched: u64,
    /// Times a blob already in the store (from this build or an earlier one in a cache
    /// directory) was used instead of downloading it.
    pub blobs_reused: u64,
    /// Total size of the distinct blobs the build used.
    pub unique_bytes: u64,
}

/// Blobs of one build, by digest.
#[derive(Debug)]
pub struct BlobStore {
    layers: Layers<ContentFolder>,
    /// The local folder (the same as the layers').
    folder: ContentFolder,
    cells: Mutex<HashMap<String, Arc<OnceCell<PathBuf>>>>,
    transfers: Semaphore,
    fetched: AtomicU64,
    reused: AtomicU64,
    unique: AtomicU64,
    /// Where each blob fetched is hashed to its SHA-1 for the SBOM as it lands, if anywhere.
    sha1_memo: Option<PathBuf>,
}

impl BlobStore {
    /// A store in `dir` (created if missing) allowing `concurrency` transfers of large blobs at
    /// once. A `dir` that persists between builds is a cache: its files are re-hashed before
    /// reuse.
    pub fn new(dir: &Path, concurrency: usize) -> Result<Self, RegistryError> {
        let folder = ContentFolder::open(dir).map_err(RegistryError::io(dir.join("sha256")))?;
        Ok(BlobStore {
            layers: Layers::over(Some(folder.clone()), None),
            folder,
            cells: Mutex::new(HashMap::new()),
            transfers: Semaphore::new(concurrency.max(1)),
            fetched: AtomicU64::new(0),
            reused: AtomicU64::new(0),
            unique: AtomicU64::new(0),
            sha1_memo: None,
        })
    }

    /// Hashes every blob fetched to its SHA-1 as it lands, remembered in `memo`
    /// ([`super::sha1_memo`]), off the async threads and while the other blobs still move.
    pub fn with_sha1_memo(mut self, memo: Option<PathBuf>) -> Self {
        self.sha1_memo = memo;
        self
    }

    /// Takes blobs from the shared tier `shared` (after this store, before the image's
    /// registry) and keeps the ones fetched upstream there.
    pub fn with_shared(mut self, shared: Option<crate::artifact::SharedTier>) -> Self {
        self.layers = Layers::over(Some(self.folder.clone()), shared);
        self
    }

    /// What the store did so far.
    pub fn stats(&self) -> StoreStats {
        StoreStats {
            blobs_fetched: self.fetched.load(Ordering::Relaxed),
            blobs_reused: self.reused.load(Ordering::Relaxed),
            unique_bytes: self.unique.load(Ordering::Relaxed),
        }
    }

    async fn cell(&self, digest: &str) -> (Arc<OnceCell<PathBuf>>, bool) {
        let mut cells = self.cells.lock().await;
        match cells.get(digest) {
            Some(cell) => (cell.clone(), false),
            None => {
                let cell = Arc::new(OnceCell::new());
                cells.insert(digest.to_string(), cell.clone());
                (cell, true)
            }
        }
    }

    /// Stores bytes already in memory (a manifest) under their digest.
    pub async fn put_bytes(&self, digest: &str, bytes: &[u8]) -> Result<PathBuf, RegistryError> {
        let (cell, _) = self.cell(digest).await;
        let key = ArtifactKey::Blob {
            digest: digest.to_string(),
            size: bytes.len() as u64,
        };
        let path = self.folder.path(&key);
        cell.get_or_try_init(|| async {
            if !path.exists() {
                let tmp = self.folder.temp_path(&key);
                tokio::fs::write(&tmp, bytes)
                    .await
                    .map_err(RegistryError::io(&tmp))?;
                self.folder
                    .settle(&key, &tmp)
                    .map_err(RegistryError::io(&path))?;
            }
            self.unique.fetch_add(bytes.len() as u64, Ordering::Relaxed);
            Ok::<_, RegistryError>(path.clone())
        })
        .await
        .cloned()
    }

    /// The path of blob `digest` of `size` bytes, downloading it from `name`'s repository the
    /// first time any image of the build asks for it.
    pub async fn blob(
        &self,
        client: &RegistryClient,
        name: &RemoteName,
        digest: &str,
        size: u64,
        progress: &dyn ProgressSink,
    ) -> Result<PathBuf, RegistryError> {
        let (cell, _) = self.cell(digest).await;
        if let Some(path) = cell.get() {
            self.reused.fetch_add(1, Ordering::Relaxed);
            return Ok(path.clone());
        }
        let mut initialised_here = false;
        let path = cell
            .get_or_try_init(|| async {
                initialised_here = true;
                let key = ArtifactKey::Blob {
                    digest: digest.to_string(),
                    size,
                };
                let path = self.folder.path(&key);
                if self.kept_sound(&key, digest, size).await {
                    self.reused.fetch_add(1, Ordering::Relaxed);
                } else {
                    if self.folder.holds(&key) {
                        // Removed, as a damaged entry of every kind is: no later build takes
                        // it, even when this one cannot fetch the blob again.
                        let reason = "it does not hash to its digest";
                        self.layers
                            .refuse(Layer::Local, &key, &name.full, &path, reason);
                    }
                    // A small blob (an image config) is one round trip, not a transfer: it
                    // does not wait for a large one to end.
                    let _permit = if size > SMALL_BLOB {
                        Some(
                            self.transfers
                                .acquire()
                                .await
                                .map_err(|_| RegistryError::Io {
                                    path: path.clone(),
                                    source: std::io::Error::other("the blob store was closed"),
                                })?,
                        )
                    } else {
                        None
                    };
                    progress.on_start(digest, Some(size));
                    let tmp = self.folder.temp_path(&key);
                    let landing = Landing {
                        file: &tmp,
                        about: &name.full,
                        progress,
                        mark: None,
                    };
                    let shared = self.layers.take_shared(&key, landing).await.is_some();
                    let result = match shared {
                        true => Ok(()),
                        false => {
                            client
                                .blob_to_file(name, digest, size, &tmp, progress)
                                .await
                        }
                    };
                    progress.on_done(digest);
                    if let Err(error) = result {
                        let _ = tokio::fs::remove_file(&tmp).await;
                        return Err(error);
                    }
                    self.folder
                        .settle(&key, &tmp)
                        .map_err(RegistryError::io(&path))?;
                    if !shared {
                        let kept = Kept {
                            path: &path,
                            sha256: digest,
                            size,
                            note: Note::Nothing,
                        };
                        self.layers.keep_shared(&key, kept).await;
                    }
                    self.fetched.fetch_add(1, Ordering::Relaxed);
                    if let Some(memo) = self.sha1_memo.clone() {
                        let (hex, path) = (key.local_name(), path.clone());
                        // Detached: a SHA-1 not remembered in time is computed by the SBOM.
                        drop(tokio::task::spawn_blocking(move || {
                            super::sha1_memo::remember_file(&memo, &hex, &path, size)
                        }));
                    }
                }
                self.unique.fetch_add(size, Ordering::Relaxed);
                Ok::<_, RegistryError>(path)
            })
            .await?
            .clone();
        if !initialised_here {
            self.reused.fetch_add(1, Ordering::Relaxed);
        }
        Ok(path)
    }

    /// Whether the local folder holds the blob `key` with `size` bytes hashing to `digest` (a
    /// warm cache entry), hashed off the async threads.
    async fn kept_sound(&self, key: &ArtifactKey, digest: &str, size: u64) -> bool {
        let (folder, key, digest) = (self.folder.clone(), key.clone(), digest.to_string());
        tokio::task::spawn_blocking(move || folder.verified(&key, &digest, size))
            .await
            .unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::NoProgress;
    use crate::registry::{CredentialStore, Endpoints};
    use crate::retry::RetryPolicy;

    /// A kept blob that no longer hashes to its digest is removed, as a damaged entry of any
    /// tier is, even when the blob cannot be fetched again: no later build finds it.
    #[tokio::test]
    async fn a_damaged_kept_blob_is_removed_even_when_it_cannot_be_fetched_again() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = BlobStore::new(dir.path(), 1).expect("store");
        let digest = format!("sha256:{}", crate::digest::sha256_hex(b"good"));
        let kept = dir
            .path()
            .join("sha256")
            .join(digest.trim_start_matches("sha256:"));
        std::fs::write(&kept, b"evil").expect("a damaged blob");
        // Nothing listens on the port the OS gave and took back.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a port")
            .port();
        let host = format!("127.0.0.1:{port}");
        let endpoints = Endpoints::new(
            &[format!("registry.example.com=http://{host}")],
            std::slice::from_ref(&host),
        )
        .expect("endpoints");
        let client = RegistryClient::new(
            endpoints,
            CredentialStore::default(),
            RetryPolicy::immediate(0),
        )
        .expect("a client");
        let name = RemoteName {
            full: "registry.example.com/test/app:1.0".into(),
            registry: "registry.example.com".into(),
            repository: "test/app".into(),
            tag: Some("1.0".into()),
            digest: None,
        };
        let got = store.blob(&client, &name, &digest, 4, &NoProgress).await;
        assert!(got.is_err(), "nothing to fetch it from: {got:?}");
        assert!(!kept.exists(), "the damaged blob is gone");
    }
}
