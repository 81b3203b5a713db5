//! Finished ISOs kept in the cache folder, keyed by what determines every byte of one: the
//! tree's `versions.txt` (every path, digest and the build time) and SBOM, the volume id and the
//! writer. A rebuild that comes to the same key links the ISO it made before (hard link, no copy),
//! hashes it again against the digest it was kept with, and writes only its sidecar.

use std::path::{Path, PathBuf};

use crate::iso::{BuildTime, Packed, partial_path, sidecar_line, sidecar_path};

/// The cache entry for one build.
#[derive(Debug, Clone)]
pub struct IsoCache {
    iso: PathBuf,
    sum: PathBuf,
}

impl IsoCache {
    /// The entry for a tree whose generated files (`versions.txt` first, then any other file the
    /// build writes into the tree from what it fetched) have the texts `generated`, packed with
    /// `volume_id`: those texts name every path and digest of the tree and the build time.
    pub fn new(dir: &Path, generated: &[&str], volume_id: &str) -> Self {
        let mut parts = vec![
            concat!("cks-iso ", env!("CARGO_PKG_VERSION")),
            volume_id,
            "rock-ridge+joliet",
        ];
        parts.extend_from_slice(generated);
        Self::for_key(dir, &crate::digest::cache_key(&parts))
    }

    /// The entry named `key` (a key computed elsewhere, such as a build's recipe key).
    pub fn for_key(dir: &Path, key: &str) -> Self {
        IsoCache {
            iso: dir.join(format!("{key}.iso")),
            sum: dir.join(format!("{key}.iso.sha256")),
        }
    }

    /// Links the cached ISO to `to` and hashes it again: its sha256 when that is the digest
    /// it was kept with; `None` (the entry removed, when it is damaged) otherwise.
    pub fn link_rehashed(&self, to: &Path) -> Option<String> {
        let sha256 = std::fs::read_to_string(&self.sum).ok()?.trim().to_string();
        let _ = std::fs::remove_file(to);
        std::fs::hard_link(&self.iso, to).ok()?;
        match crate::digest::sha256_file(to) {
            Ok(actual) if actual.hex() == sha256 => Some(sha256),
            _ => {
                tracing::debug!(iso = %self.iso.display(), "damaged cached ISO removed");
                let _ = std::fs::remove_file(to);
                self.remove();
                None
            }
        }
    }

    /// Removes the entry.
    pub fn remove(&self) {
        for path in [&self.iso, &self.sum] {
            let _ = std::fs::remove_file(path);
        }
    }

    /// Links the cached ISO to `out` (through `<out>.partial`, hashed again there against the
    /// digest it was kept with) and writes its sidecar; `None` when there is no sound entry or
    /// it cannot be linked.
    pub fn take(&self, out: &Path, time: BuildTime) -> Option<Packed> {
        let size = std::fs::metadata(&self.iso).ok()?.len();
        let partial = partial_path(out);
        let sha256 = self.link_rehashed(&partial)?;
        let name = out.file_name()?.to_string_lossy().into_owned();
        let sidecar = sidecar_path(out);
        let sidecar_partial = partial_path(&sidecar);
        let done = std::fs::write(&sidecar_partial, sidecar_line(&sha256, &name))
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

    /// Adds a freshly packed ISO (best effort).
    pub fn put(&self, packed: &Packed) {
        let Some(dir) = self.iso.parent() else { return };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let _ = std::fs::remove_file(&self.iso);
        if std::fs::hard_link(&packed.path, &self.iso).is_err() {
            return;
        }
        let Ok(mut temp) = tempfile::NamedTempFile::new_in(dir) else {
            return;
        };
        if std::io::Write::write_all(&mut temp, packed.sha256.as_bytes()).is_ok() {
            let _ = temp.persist(&self.sum);
        }
    }
}
