//! Finished ISOs kept in the cache folder, keyed by what determines every byte of one: the
//! tree's `versions.txt` (every path, digest and the build time) and SBOM, the volume id and the
//! writer. A rebuild that comes to the same key links the ISO it made before (hard link, no copy),
//! hashes it again against the digest it was kept with, and writes only its sidecar.

use std::path::Path;

use crate::iso::{BuildTime, Packed, partial_path, sidecar_line, sidecar_path};
use crate::store::LocalFinished;

/// The cache entry for one build.
#[derive(Debug, Clone)]
pub struct IsoCache {
    folder: LocalFinished,
    key: String,
}

/// The text kept beside a cached ISO: its sha256.
const SUM: &str = "sha256";

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
            folder: LocalFinished::new(dir.to_path_buf(), "iso"),
            key: key.to_string(),
        }
    }

    /// Links the cached ISO to `to` and hashes it again: its sha256 when that is the digest
    /// it was kept with; `None` (the entry removed, when it is damaged) otherwise.
    pub fn link_rehashed(&self, to: &Path) -> Option<String> {
        let sha256 = self.folder.side(&self.key, SUM)?.trim().to_string();
        if !self.folder.link(&self.key, to) {
            return None;
        }
        match crate::digest::sha256_file(to) {
            Ok(actual) if actual.hex() == sha256 => Some(sha256),
            _ => {
                tracing::debug!(key = %self.key, "damaged cached ISO removed");
                let _ = std::fs::remove_file(to);
                self.remove();
                None
            }
        }
    }

    /// Removes the entry.
    pub fn remove(&self) {
        self.folder.remove(&self.key, &[SUM]);
    }

    /// Links the cached ISO to `out` (through `<out>.partial`, hashed again there against the
    /// digest it was kept with) and writes its sidecar; `None` when there is no sound entry or
    /// it cannot be linked.
    pub fn take(&self, out: &Path, time: BuildTime) -> Option<Packed> {
        let size = std::fs::metadata(self.folder.path(&self.key)).ok()?.len();
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
        self.folder
            .put(&self.key, &packed.path, &[(SUM, packed.sha256.as_str())]);
    }
}
