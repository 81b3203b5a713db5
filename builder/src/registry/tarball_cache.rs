//! Finished image tarballs kept between builds: a tarball is a deterministic function of the
//! image's name, the digest the registry served and the target platform, so a rebuild links the
//! one it wrote before instead of writing it again (kept in a [`LocalFinished`] folder, as the
//! finished ISOs are, and checked before use as anything from a cache).

use std::path::{Path, PathBuf};

use crate::artifact::{CachedTarball, LocalFinished};

/// A folder of finished tarballs.
#[derive(Debug, Clone)]
pub struct TarballCache {
    folder: LocalFinished,
}

/// The tarball format this cache holds: an OCI layout with the Docker archive files.
pub const TARBALL_FORMAT: &str = "oci-layout+docker-archive/1";

/// The text kept beside a cached tarball: its record.
const RECORD: &str = "json";

impl TarballCache {
    /// The cache in `dir` (created when the first entry is added).
    pub fn new(dir: PathBuf) -> Self {
        TarballCache {
            folder: LocalFinished::new(dir, "tar"),
        }
    }

    fn key(name: &str, digest: &str, platform: &str) -> String {
        // The tarball format is part of the key: a tarball written by another format (before the
        // Docker archive files were added) is never reused.
        crate::digest::cache_key(&[TARBALL_FORMAT, name, digest, platform])
    }

    /// Links the cached tarball of `name` at `digest` for `platform` to a new temporary name in
    /// `out_dir`, with what the cache recorded about it (the caller checks the tarball itself).
    pub fn take(
        &self,
        name: &str,
        digest: &str,
        platform: &str,
        out_dir: &Path,
    ) -> Option<(tempfile::TempPath, CachedTarball)> {
        let key = Self::key(name, digest, platform);
        let record: CachedTarball = serde_json::from_str(&self.folder.side(&key, RECORD)?).ok()?;
        let link = out_dir.join(format!(".cks-cached-{key}.tar"));
        if !self.folder.link(&key, &link) {
            return None;
        }
        let path = tempfile::TempPath::try_from_path(link).ok()?;
        Some((path, record))
    }

    /// Adds the tarball at `path` (best effort: a cache that cannot take it is skipped).
    pub fn put(
        &self,
        name: &str,
        digest: &str,
        platform: &str,
        path: &Path,
        record: &CachedTarball,
    ) {
        let Ok(text) = serde_json::to_string(record) else {
            return;
        };
        let key = Self::key(name, digest, platform);
        self.folder.put(&key, path, &[(RECORD, text.as_str())]);
    }
}
