//! Finished image tarballs in the artifact store, layered in one place as the finished ISOs
//! are: the local `--cache-dir` folder first (a hard link), then the cache registry (hashed as
//! it streams in). Every hit passes the caller's check of a written tarball
//! ([`super::tarball_check::TarballCheck`]) before it is used; a local entry that fails is
//! removed (the rule of the finished ISOs), one from the cache registry that fails is warned
//! about once, and the tarball the pull then writes is kept in both.

use std::future::Future;
use std::path::{Path, PathBuf};

use super::tarball_cache::TarballCache;
use crate::artifact::{CachedTarball, Kept, Landing, Note, SharedTier, TarballId};
use crate::progress::ProgressSink;

/// Why a tarball taken from a cache is not used.
#[derive(Debug, thiserror::Error)]
pub enum CachedTarballRefusal {
    /// It is not the tarball the build writes.
    #[error(transparent)]
    Check(#[from] super::tarball_check::TarballError),
    /// The check did not run to its end.
    #[error(transparent)]
    Task(#[from] tokio::task::JoinError),
    /// It is sound, but of another platform than the pull chose.
    #[error("it holds {digest} for {platform}")]
    OtherPlatform {
        /// The digest of the platform manifest it holds.
        digest: String,
        /// That manifest's platform.
        platform: String,
    },
}

/// The finished tarballs of a pull's caches.
#[derive(Debug, Clone)]
pub struct TarballStore<'a> {
    local: Option<TarballCache>,
    shared: Option<&'a SharedTier>,
}

impl<'a> TarballStore<'a> {
    /// The tarballs kept in the folder `local` and the shared tier `shared`, where given.
    pub fn new(local: Option<PathBuf>, shared: Option<&'a SharedTier>) -> Self {
        TarballStore {
            local: local.map(TarballCache::new),
            shared,
        }
    }

    /// The tarball of `id` under a temporary name in `out_dir`, from the local folder and then
    /// the shared tier, with what `check` (given its path) says it is; `None` when neither holds
    /// one that passes. One from the shared tier is kept in the local folder too.
    pub async fn find<F, Fut>(
        &self,
        id: TarballId<'_>,
        out_dir: &Path,
        progress: &dyn ProgressSink,
        check: F,
    ) -> Option<(tempfile::TempPath, CachedTarball)>
    where
        F: Fn(PathBuf) -> Fut,
        Fut: Future<Output = Result<CachedTarball, CachedTarballRefusal>>,
    {
        if let Some(local) = &self.local
            && let Some((file, _)) = local.take(id, out_dir)
        {
            match check(file.to_path_buf()).await {
                Ok(checked) => return Some((file, checked)),
                // A damaged entry is removed, as a damaged ISO is: no later build takes it.
                Err(_) => local.remove(id),
            }
        }
        let shared = self.shared?;
        let file = tempfile::Builder::new()
            .prefix(".cks-tarball-")
            .tempfile_in(out_dir)
            .ok()?
            .into_temp_path();
        let key = id.key();
        let landing = Landing {
            file: &file,
            about: id.image,
            progress,
            mark: None,
        };
        shared.0.take(&key, landing).await?;
        let checked = match check(file.to_path_buf()).await {
            Ok(checked) => checked,
            Err(reason) => {
                shared.0.refused(&key, id.image, reason.to_string());
                return None;
            }
        };
        if let Some(local) = &self.local {
            local.put(id, &file, &checked);
        }
        Some((file, checked))
    }

    /// Keeps the tarball of `id` written at `path` with its `record`: in the local folder and
    /// the shared tier (its failures are its own warnings). Best effort.
    pub async fn keep(&self, id: TarballId<'_>, path: &Path, record: &CachedTarball) {
        if let Some(local) = &self.local {
            local.put(id, path, record);
        }
        if let Some(shared) = self.shared
            && let Ok(text) = serde_json::to_string(record)
        {
            let kept = Kept {
                path,
                sha256: &record.sha256,
                size: record.size,
                note: Note::Record(text),
            };
            shared.0.keep(&id.key(), kept).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::NoProgress;
    use cks_pinning::digest::Digest;

    fn id() -> TarballId<'static> {
        TarballId {
            image: "registry.k8s.io/pause:3.10",
            digest: "sha256:1111111111111111111111111111111111111111111111111111111111111111",
            platform_digest: "sha256:2222222222222222222222222222222222222222222222222222222222222222",
            platform: "linux/amd64",
        }
    }

    fn record() -> CachedTarball {
        CachedTarball {
            size: 4,
            sha256: format!("sha256:{}", crate::digest::sha256_hex(b"good")),
            platform_digest: Digest::parse(id().platform_digest).expect("a digest"),
            platform: "linux/amd64".into(),
            blobs: Vec::new(),
        }
    }

    fn other_platform() -> CachedTarballRefusal {
        CachedTarballRefusal::OtherPlatform {
            digest: "sha256:3333".into(),
            platform: "linux/arm64".into(),
        }
    }

    /// The rule every kind of entry follows: one taken from the local folder that fails its
    /// check is removed, so no later build takes it; one that passes is used and kept.
    #[tokio::test]
    async fn a_local_entry_that_fails_its_check_is_removed_and_one_that_passes_is_kept() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (cache, out) = (dir.path().join("tarballs"), dir.path().join("out"));
        std::fs::create_dir_all(&out).expect("out");
        let written = dir.path().join("written.tar");
        std::fs::write(&written, b"good").expect("a tarball");
        let store = TarballStore::new(Some(cache.clone()), None);
        store.keep(id(), &written, &record()).await;
        let entries = || std::fs::read_dir(&cache).map(|d| d.count()).unwrap_or(0);
        assert_eq!(entries(), 2, "the tarball and its record");

        let passes = |path: PathBuf| async move {
            match std::fs::read(&path) {
                Ok(bytes) if bytes == b"good" => Ok(record()),
                _ => Err(other_platform()),
            }
        };
        let found = store.find(id(), &out, &NoProgress, passes).await;
        assert!(found.is_some(), "a good entry is used");
        drop(found);
        assert_eq!(entries(), 2, "and kept");

        let fails = |_: PathBuf| async { Err(other_platform()) };
        let found = store.find(id(), &out, &NoProgress, fails).await;
        assert!(found.is_none(), "a damaged entry is not used");
        assert_eq!(entries(), 0, "and removed with its record");
        assert!(
            std::fs::read(&written).is_ok_and(|b| b == b"good"),
            "the written one stays"
        );
    }
}
