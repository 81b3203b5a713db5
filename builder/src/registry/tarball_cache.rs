//! Finished image tarballs kept between builds: a tarball is a deterministic function of the
//! image's name, the digest the registry served and the target platform, so a rebuild links the
//! one it wrote before instead of writing it again (kept in a [`LocalFinished`] folder, as the
//! finished ISOs are, and checked before use as anything from a cache). An entry is named by
//! the store's one key of the tarball ([`TarballId::key`]), the key the cache registry tags it
//! by.

use std::path::{Path, PathBuf};

pub use crate::artifact::TARBALL_FORMAT;
use crate::artifact::{CachedTarball, LocalFinished, TarballId};

/// A folder of finished tarballs.
#[derive(Debug, Clone)]
pub struct TarballCache {
    folder: LocalFinished,
}

/// The text kept beside a cached tarball: its record.
const RECORD: &str = "json";

impl TarballCache {
    /// The cache in `dir` (created when the first entry is added).
    pub fn new(dir: PathBuf) -> Self {
        TarballCache {
            folder: LocalFinished::new(dir, "tar"),
        }
    }

    /// Links the cached tarball of `id` to a new temporary name in `out_dir`, with what the
    /// cache recorded about it (the caller checks the tarball itself).
    pub fn take(
        &self,
        id: TarballId<'_>,
        out_dir: &Path,
    ) -> Option<(tempfile::TempPath, CachedTarball)> {
        let key = id.key().local_name();
        let record: CachedTarball = serde_json::from_str(&self.folder.side(&key, RECORD)?).ok()?;
        let link = out_dir.join(format!(".cks-cached-{key}.tar"));
        if !self.folder.link(&key, &link) {
            return None;
        }
        let path = tempfile::TempPath::try_from_path(link).ok()?;
        Some((path, record))
    }

    /// Adds the tarball of `id` at `path` (best effort: a cache that cannot take it is
    /// skipped).
    pub fn put(&self, id: TarballId<'_>, path: &Path, record: &CachedTarball) {
        let Ok(text) = serde_json::to_string(record) else {
            return;
        };
        let key = id.key().local_name();
        self.folder.put(&key, path, &[(RECORD, text.as_str())]);
    }

    /// Removes the entry of `id` and its record: it failed its check, and no build takes it
    /// again.
    pub fn remove(&self, id: TarballId<'_>) {
        self.folder.remove(&id.key().local_name(), &[RECORD]);
    }
}
