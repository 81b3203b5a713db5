//! The lock file: everything a build resolved (inputs, tags, commits, URLs, every file's
//! upstream sha256, every image's digest), so `--locked` can rebuild exactly, failing if any
//! upstream byte differs.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use super::options::Inputs;
use super::plan::Plan;
use super::staging::write_atomically;

/// The lock file's format version.
pub const LOCK_FORMAT: u32 = 1;

/// What a build resolved and fetched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lock {
    /// [`LOCK_FORMAT`].
    pub format: u32,
    /// The inputs of the build (flags, environment and config merged).
    pub inputs: Inputs,
    /// The plan.
    pub plan: Plan,
    /// The sha256 of every file as fetched (before any edit), by path in the ISO.
    pub files: BTreeMap<String, String>,
    /// The digest of every image, by full normalised reference.
    pub images: BTreeMap<String, cks_pinning::digest::Digest>,
    /// The URL each file fetched through a mirror came from, by path in the ISO (the ISO
    /// records canonical URLs only).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub mirrored: BTreeMap<String, String>,
}

impl Lock {
    /// The upstream sha256 recorded for the file at `iso_path`.
    pub fn file_sha256(&self, iso_path: &str) -> Option<&str> {
        self.files.get(iso_path).map(String::as_str)
    }

    /// The digest recorded for `reference`.
    pub fn image_digest(&self, reference: &str) -> Option<&cks_pinning::digest::Digest> {
        self.images.get(reference)
    }

    /// Reads a lock file.
    pub fn read(path: &Path) -> Result<Lock> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the lock file {}", path.display()))?;
        let lock: Lock = serde_json::from_str(&text).with_context(|| {
            format!(
                "{} is not a cks-iso lock file (write one with --write-lock)",
                path.display()
            )
        })?;
        if lock.format != LOCK_FORMAT {
            bail!(
                "{} has lock format {}; this cks-iso reads format {LOCK_FORMAT}",
                path.display(),
                lock.format
            );
        }
        Ok(lock)
    }

    /// Writes the lock file atomically.
    pub fn write(&self, path: &Path) -> Result<()> {
        write_atomically(path, self.text()?.as_bytes())
    }

    /// Writes the lock whole to a temporary file beside `path` (mode 0644), put in place by
    /// [`StagedLock::commit`]: the lock is written before the ISO is, and is gone if the build
    /// fails before the commit.
    pub fn stage(&self, path: &Path) -> Result<StagedLock> {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let mut file = tempfile::NamedTempFile::new_in(dir)
            .map_err(crate::atomic::plain)
            .with_context(|| format!("writing the lock file {}", path.display()))?;
        std::io::Write::write_all(file.as_file_mut(), self.text()?.as_bytes())
            .with_context(|| format!("writing the lock file {}", path.display()))?;
        use std::os::unix::fs::PermissionsExt;
        file.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))
            .with_context(|| format!("setting the mode of {}", path.display()))?;
        Ok(StagedLock {
            file,
            path: path.to_path_buf(),
        })
    }

    fn text(&self) -> Result<String> {
        let mut text = serde_json::to_string_pretty(self).context("serialising the lock")?;
        text.push('\n');
        Ok(text)
    }
}

/// A lock written whole beside its path, not yet in place (removed when dropped).
#[derive(Debug)]
pub struct StagedLock {
    file: tempfile::NamedTempFile,
    path: std::path::PathBuf,
}

impl StagedLock {
    /// Renames the lock into place.
    pub fn commit(self) -> Result<()> {
        self.file
            .persist(&self.path)
            .with_context(|| format!("renaming into {}", self.path.display()))?;
        Ok(())
    }
}
