//! Finished ISOs in the artifact store, layered in one place: the local `--cache-dir` folder
//! first (a hard link, hashed again against the digest it was kept with), then the cache
//! registry (hashed as it streams in). Every entry is found by one key, the ISO's recipe
//! ([`ArtifactKey::Iso`]), and every hit passes the caller's check of a written ISO before it
//! is used; one that fails is not used (a local entry is removed, a cache registry's is warned
//! about once and replaced by the ISO the build then makes).

use std::future::Future;
use std::path::Path;

use super::key::ArtifactKey;
use super::local::LocalFinished;
use super::port::{FinishedFile, SharedTier};
use crate::iso::{BuildTime, Packed, partial_path, sidecar_line, sidecar_path};
use crate::progress::ProgressSink;

/// The text kept beside a local ISO: its sha256.
const SUM: &str = "sha256";
/// The text kept beside a local ISO: the digest of the generated files it was packed with.
const GENERATED: &str = "generated";

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
            && let Some(sha256) = link_rehashed(local, &name, partial)
        {
            match check().await? {
                Ok(checked) => return Ok(Some(IsoHit { sha256, checked })),
                Err(_) => {
                    let _ = std::fs::remove_file(partial);
                    local.remove(&name, &[SUM, GENERATED]);
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

    /// The local ISO `key` packed from the generated files whose digest is `generated`, linked
    /// to `out` (through `<out>.partial`, hashed again there) with its sidecar; `None` when
    /// there is no sound entry for those files or it cannot be linked.
    pub fn take_packed(
        &self,
        key: &ArtifactKey,
        generated: &str,
        out: &Path,
        time: BuildTime,
    ) -> Option<Packed> {
        let local = self.local.as_ref()?;
        let name = key.local_name();
        if local.side(&name, GENERATED)?.trim() != generated {
            return None;
        }
        let size = std::fs::metadata(local.path(&name)).ok()?.len();
        let partial = partial_path(out);
        let sha256 = link_rehashed(local, &name, &partial)?;
        let file_name = out.file_name()?.to_string_lossy().into_owned();
        let sidecar = sidecar_path(out);
        let sidecar_partial = partial_path(&sidecar);
        let done = std::fs::write(&sidecar_partial, sidecar_line(&sha256, &file_name))
            .and_then(|()| std::fs::rename(&partial, out))
            .and_then(|()| std::fs::rename(&sidecar_partial, &sidecar));
        if done.is_err() {
            let _ = std::fs::remove_file(&partial);
            let _ = std::fs::remove_file(&sidecar_partial);
            return None;
        }
        Some(Packed {
            path: out.to_path_buf(),
            sidecar,
            size,
            sha256,
            time,
            warnings: Vec::new(),
        })
    }

    /// Keeps the ISO `packed` from the generated files whose digest is `generated` as `key`:
    /// in the local folder, and with `record` (what the build reports of it) in the cache
    /// registry (pushed after it was written and hashed; failures are the registry's
    /// warnings). Best effort.
    pub async fn keep(
        &self,
        key: &ArtifactKey,
        packed: &Packed,
        generated: &str,
        record: Option<String>,
    ) {
        if let Some(local) = &self.local {
            local.put(
                &key.local_name(),
                &packed.path,
                &[(SUM, packed.sha256.as_str()), (GENERATED, generated)],
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

/// Links the local entry `name` to `to` and hashes it again: its sha256 when that is the digest
/// it was kept with; `None` (the entry removed, when it is damaged) otherwise.
fn link_rehashed(local: &LocalFinished, name: &str, to: &Path) -> Option<String> {
    let sha256 = local.side(name, SUM)?.trim().to_string();
    if !local.link(name, to) {
        return None;
    }
    match crate::digest::sha256_file(to) {
        Ok(actual) if actual.hex() == sha256 => Some(sha256),
        _ => {
            tracing::debug!(key = %name, "damaged cached ISO removed");
            let _ = std::fs::remove_file(to);
            local.remove(name, &[SUM, GENERATED]);
            None
        }
    }
}
