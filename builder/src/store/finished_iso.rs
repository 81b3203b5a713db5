//! Finished ISOs in the artifact store, layered in one place: the local `--cache-dir` folder
//! first (a hard link, hashed again against the digest it was kept with while the check reads
//! it), then the cache
//! registry (hashed as it streams in). Every entry is found by one key, the ISO's recipe
//! ([`ArtifactKey::Iso`]), and every hit passes the caller's check of a written ISO before it
//! is used; one that fails is not used (a local entry is removed, a cache registry's is warned
//! about once and replaced by the ISO the build then makes).

use std::future::Future;
use std::path::Path;

use crate::artifact::{ArtifactKey, FinishedFile, LocalFinished, SharedTier};
use crate::iso::Packed;
use crate::progress::ProgressSink;

/// The text kept beside a local ISO: its sha256.
const SUM: &str = "sha256";

/// The finished ISOs of a build's caches.
#[derive(Debug, Clone)]
pub struct IsoStore<'a> {
    local: Option<LocalFinished>,
    shared: Option<&'a SharedTier>,
}

/// An ISO the store served that passed the check.
#[derive(Debug)]
pub struct IsoHit<T> {
    /// Its sha256, lower-case hex.
    pub sha256: String,
    /// What the check made of it.
    pub checked: T,
}

impl<'a> IsoStore<'a> {
    /// The ISOs kept in the folder `local` and the cache registry `shared`, where given.
    pub fn new(local: Option<&Path>, shared: Option<&'a SharedTier>) -> Self {
        IsoStore {
            local: local.map(|dir| LocalFinished::new(dir.to_path_buf(), "iso")),
            shared,
        }
    }

    /// Whether there is neither a local folder nor a shared tier (nothing to ask or keep).
    pub fn is_empty(&self) -> bool {
        self.local.is_none() && self.shared.is_none()
    }

    /// Whether asking can find nothing: no shared tier, and a local folder that holds no ISO
    /// (a first build need not learn its recipe before it downloads).
    pub fn holds_none(&self) -> bool {
        self.shared.is_none() && self.local.as_ref().is_none_or(LocalFinished::holds_none)
    }

    /// The ISO `key` at `partial`, from the local folder and then the cache registry, once
    /// `check` (given the file) says it is the one this build would write; `None` when neither
    /// holds one that passes (nothing is left at `partial`).
    pub async fn find<T, F, Fut>(
        &self,
        key: &ArtifactKey,
        partial: &Path,
        progress: &dyn ProgressSink,
        check: F,
    ) -> anyhow::Result<Option<IsoHit<T>>>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = anyhow::Result<Result<T, String>>>,
    {
        let name = key.local_name();
        if let Some(local) = &self.local
            && let Some(kept) = local.side(&name, SUM)
            && local.link(&name, partial)
        {
            // The whole file is hashed again while the check reads it file by file.
            let kept = kept.trim().to_string();
            let whole = {
                let partial = partial.to_path_buf();
                tokio::task::spawn_blocking(move || crate::digest::sha256_file(&partial))
            };
            let (whole, checked) = tokio::join!(whole, check());
            let sound = matches!(whole, Ok(Ok(actual)) if actual.hex() == kept);
            match checked? {
                Ok(checked) if sound => {
                    return Ok(Some(IsoHit {
                        sha256: kept,
                        checked,
                    }));
                }
                _ => {
                    tracing::debug!(key = %name, "a cached ISO that fails its check removed");
                    let _ = std::fs::remove_file(partial);
                    local.remove(&name, &[SUM]);
                }
            }
        }
        let Some(shared) = self.shared else {
            return Ok(None);
        };
        let Some(hit) = shared.0.iso(key, partial, progress).await else {
            return Ok(None);
        };
        match check().await? {
            Ok(checked) => {
                if let Some(local) = &self.local {
                    local.put(&name, partial, &[(SUM, hit.sha256.as_str())]);
                }
                Ok(Some(IsoHit {
                    sha256: hit.sha256,
                    checked,
                }))
            }
            Err(reason) => {
                let _ = std::fs::remove_file(partial);
                shared.0.refused_iso(key, reason);
                Ok(None)
            }
        }
    }

    /// Keeps the ISO `packed` as `key`: in the local folder, and with `record` (what the build reports of it) in the cache
    /// registry (pushed after it was written and hashed; failures are the registry's
    /// warnings). Best effort.
    pub async fn keep(&self, key: &ArtifactKey, packed: &Packed, record: Option<String>) {
        if let Some(local) = &self.local {
            local.put(
                &key.local_name(),
                &packed.path,
                &[(SUM, packed.sha256.as_str())],
            );
        }
        let (Some(shared), Some(record)) = (self.shared, record) else {
            return;
        };
        let file = FinishedFile {
            sha256: packed.sha256.clone(),
            size: packed.size,
        };
        shared.0.push_iso(key, &packed.path, file, record).await;
    }
}
