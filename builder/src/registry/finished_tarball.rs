//! Finished image tarballs in the artifact store's tiers ([`Layers`], as the finished ISOs
//! are): the local `--cache-dir` folder first (a hard link), then the cache registry (hashed as
//! it streams in). A tarball is a deterministic function of the image's name, the digest the
//! registry served and the target platform, so a rebuild takes the one it wrote before instead
//! of writing it again; an entry is named by the store's one key of the tarball
//! ([`TarballId::key`]). Every hit passes the caller's check of a written tarball
//! ([`super::tarball_check::TarballCheck`]) before it is used; one that fails is refused by its
//! tier, and the tarball the pull then writes is kept in both.

use std::future::Future;
use std::path::{Path, PathBuf};

use crate::artifact::{CachedTarball, Kept, Landing, Layer, Layers, Note, SharedTier, TarballId};
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

/// The text kept beside a local tarball: its record (JSON).
const RECORD: &str = "json";

/// The finished tarballs of a pull's caches.
#[derive(Debug, Clone)]
pub struct TarballStore {
    layers: Layers,
}

impl TarballStore {
    /// The tarballs kept in the folder `local` and the shared tier `shared`, where given.
    pub fn new(local: Option<PathBuf>, shared: Option<&SharedTier>) -> Self {
        TarballStore {
            layers: Layers::new(local.as_deref(), "tar", &[RECORD], shared),
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
        let key = id.key();
        let link = out_dir.join(format!(".cks-cached-{}.tar", key.local_name()));
        if self.layers.take_local(&key, RECORD, &link).is_some()
            && let Ok(file) = tempfile::TempPath::try_from_path(link)
        {
            match check(file.to_path_buf()).await {
                Ok(checked) => return Some((file, checked)),
                Err(reason) => {
                    let reason = reason.to_string();
                    self.layers
                        .refuse(Layer::Local, &key, id.image, &file, &reason);
                }
            }
        }
        if !self.layers.has_shared() {
            return None;
        }
        let file = tempfile::Builder::new()
            .prefix(".cks-tarball-")
            .tempfile_in(out_dir)
            .ok()?
            .into_temp_path();
        let landing = Landing {
            file: &file,
            about: id.image,
            progress,
            mark: None,
        };
        self.layers.take_shared(&key, landing).await?;
        match check(file.to_path_buf()).await {
            Ok(checked) => {
                if let Ok(text) = serde_json::to_string(&checked) {
                    self.layers.keep_local(&key, &file, &[(RECORD, &text)]);
                }
                Some((file, checked))
            }
            Err(reason) => {
                let reason = reason.to_string();
                self.layers
                    .refuse(Layer::Shared, &key, id.image, &file, &reason);
                None
            }
        }
    }

    /// Keeps the tarball of `id` written at `path` with its `record`: in the local folder and
    /// the shared tier (its failures are its own warnings). Best effort.
    pub async fn keep(&self, id: TarballId<'_>, path: &Path, record: &CachedTarball) {
        let Ok(text) = serde_json::to_string(record) else {
            return;
        };
        let kept = Kept {
            path,
            sha256: &record.sha256,
            size: record.size,
            note: Note::Record(text.clone()),
        };
        self.layers.keep(&id.key(), &[(RECORD, &text)], kept).await;
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
