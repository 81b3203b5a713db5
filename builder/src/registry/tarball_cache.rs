//! Finished image tarballs kept between builds: a tarball is a deterministic function of the
//! image's name, the digest the registry served and the target platform, so a rebuild links the
//! one it wrote before instead of writing it again. Entries are added by hard link (no copy);
//! where the cache is on another file system, nothing is cached.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// What the cache records beside each tarball.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CachedTarball {
    /// The tarball's size.
    pub size: u64,
    /// Its `sha256:` digest.
    pub sha256: String,
    /// The digest of the platform's manifest.
    pub platform_digest: String,
    /// The platform, e.g. `linux/arm64`.
    pub platform: String,
    /// The blobs it holds.
    pub blobs: Vec<String>,
}

/// A folder of finished tarballs.
#[derive(Debug, Clone)]
pub struct TarballCache {
    dir: PathBuf,
}

/// The tarball format this cache holds: an OCI layout with the Docker archive files.
pub const TARBALL_FORMAT: &str = "oci-layout+docker-archive/1";

impl TarballCache {
    /// The cache in `dir` (created when the first entry is added).
    pub fn new(dir: PathBuf) -> Self {
        TarballCache { dir }
    }

    fn key(name: &str, digest: &str, platform: &str) -> String {
        // The tarball format is part of the key: a tarball written by another format (before the
        // Docker archive files were added) is never reused.
        crate::digest::cache_key(&[TARBALL_FORMAT, name, digest, platform])
    }

    /// Links the cached tarball of `name` at `digest` for `platform` to a new temporary name in
    /// `out_dir`, with what the cache recorded about it.
    pub fn take(
        &self,
        name: &str,
        digest: &str,
        platform: &str,
        out_dir: &Path,
    ) -> Option<(tempfile::TempPath, CachedTarball)> {
        let key = Self::key(name, digest, platform);
        let text = std::fs::read_to_string(self.dir.join(format!("{key}.json"))).ok()?;
        let record: CachedTarball = serde_json::from_str(&text).ok()?;
        let tar = self.dir.join(format!("{key}.tar"));
        if std::fs::metadata(&tar).ok()?.len() != record.size {
            return None;
        }
        let link = out_dir.join(format!(".cks-cached-{key}.tar"));
        let _ = std::fs::remove_file(&link);
        std::fs::hard_link(&tar, &link).ok()?;
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
        let key = Self::key(name, digest, platform);
        if std::fs::create_dir_all(&self.dir).is_err() {
            return;
        }
        let tar = self.dir.join(format!("{key}.tar"));
        let json = self.dir.join(format!("{key}.json"));
        let _ = std::fs::remove_file(&tar);
        if std::fs::hard_link(path, &tar).is_err() {
            return;
        }
        let Ok(text) = serde_json::to_string(record) else {
            return;
        };
        let Ok(mut temp) = tempfile::NamedTempFile::new_in(&self.dir) else {
            return;
        };
        if std::io::Write::write_all(&mut temp, text.as_bytes()).is_ok() {
            let _ = temp.persist(&json);
        }
    }
}
