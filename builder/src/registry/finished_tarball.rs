//! Finished image tarballs in the artifact store, layered in one place as the finished ISOs
//! are: the local `--cache-dir` folder first (a hard link), then the cache registry (hashed as
//! it streams in). Every hit passes the caller's check of a written tarball
//! ([`super::tarball_check::TarballCheck`]) before it is used; one from the cache registry that fails is
//! warned about once, and the tarball the pull then writes is kept in both.

use std::future::Future;
use std::path::{Path, PathBuf};

use super::tarball_cache::TarballCache;
use crate::artifact::{CachedTarball, SharedTier, TarballId};
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
            && let Some((file, _)) = local.take(id.image, id.digest, id.platform, out_dir)
            && let Ok(checked) = check(file.to_path_buf()).await
        {
            return Some((file, checked));
        }
        let shared = self.shared?;
        let file = shared.0.tarball(id, out_dir, progress).await?;
        let checked = match check(file.to_path_buf()).await {
            Ok(checked) => checked,
            Err(reason) => {
                shared.0.refused_tarball(id.image, reason.to_string());
                return None;
            }
        };
        if let Some(local) = &self.local {
            local.put(id.image, id.digest, id.platform, &file, &checked);
        }
        Some((file, checked))
    }

    /// Keeps the tarball of `id` written at `path` with its `record`: in the local folder and
    /// the shared tier (its failures are its own warnings). Best effort.
    pub async fn keep(&self, id: TarballId<'_>, path: &Path, record: &CachedTarball) {
        if let Some(local) = &self.local {
            local.put(id.image, id.digest, id.platform, path, record);
        }
        if let Some(shared) = self.shared {
            shared.0.push_tarball(id, path, record).await;
        }
    }
}
