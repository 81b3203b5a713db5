//! Packs a directory into an ISO image: check the paths, write under a temporary name, hash on
//! the way, rename into place, write the sidecar.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use super::error::PackError;
use super::hadris;
use super::options::PackOptions;
use super::output::{self, Partial};
use super::time::BuildTime;
use super::warning::PackWarning;
use crate::digest::chain::Checkpoint;

/// A finished image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packed {
    /// Where the image is.
    pub path: PathBuf,
    /// Where its `sha256sum`-format sidecar is.
    pub sidecar: PathBuf,
    /// Image size in bytes.
    pub size: u64,
    /// Hex sha256 of the image.
    pub sha256: String,
    /// The sha256's checkpoints (empty when the image was not written here), to check the
    /// same bytes again on every core ([`crate::digest::chain`]).
    pub checkpoints: Vec<Checkpoint>,
    /// The time every entry carries (record it when it came from the clock).
    pub time: BuildTime,
    /// Names the Joliet tree cut or changed, and other writer notes.
    pub warnings: Vec<PackWarning>,
}

/// Packs `dir` into the image `out` as `options` say.
///
/// The image is written to `<out>.partial` and renamed to `out` when complete, then
/// `<out>.sha256` is written. On any error nothing new is left behind: no partial file, no
/// sidecar.
pub fn pack(dir: &Path, out: &Path, options: &PackOptions) -> Result<Packed, PackError> {
    pack_counting(dir, out, options, None)
}

/// [`pack`], publishing the bytes of the image written so far in `counter` (for a progress
/// display; see [`tree_bytes`] for the total to expect).
pub fn pack_counting(
    dir: &Path,
    out: &Path,
    options: &PackOptions,
    counter: Option<Arc<AtomicU64>>,
) -> Result<Packed, PackError> {
    check_paths(dir, out)?;
    let (partial, file) = Partial::create(out)?;
    let written = hadris::write(dir, file, out, options, counter)?;
    drop(written.file);
    let sidecar = output::write_sidecar(out, &written.sha256)?;
    partial.commit(out)?;
    if let Err(err) = sidecar.commit(&output::sidecar_path(out)) {
        let _ = fs::remove_file(out);
        return Err(err);
    }
    tracing::debug!(out = %out.display(), size = written.size, "image written");
    Ok(Packed {
        path: out.to_path_buf(),
        sidecar: output::sidecar_path(out),
        size: written.size,
        sha256: written.sha256,
        checkpoints: written.checkpoints,
        time: options.time,
        warnings: written.warnings,
    })
}

/// About the size of the image of `dir`: its files' bytes, each rounded up to a whole sector,
/// and a sector per entry for the directory records (the writer's exact size is known only once
/// it is done). Entries that cannot be read count as nothing.
pub fn tree_bytes(dir: &Path) -> u64 {
    const SECTOR: u64 = 2048;
    let mut total = 16 * SECTOR; // the system area
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            if meta.is_dir() {
                folders.push(entry.path());
            }
            total = total.saturating_add(meta.len().div_ceil(SECTOR).saturating_add(1) * SECTOR);
        }
    }
    total
}

/// Checks that `dir` is a directory and that `out` is a file path outside it.
fn check_paths(dir: &Path, out: &Path) -> Result<(), PackError> {
    let meta = fs::metadata(dir).map_err(|err| PackError::Input {
        dir: dir.to_path_buf(),
        detail: err.to_string(),
    })?;
    if !meta.is_dir() {
        return Err(PackError::Input {
            dir: dir.to_path_buf(),
            detail: "it is not a directory".to_string(),
        });
    }
    let bad_out = |detail: String| PackError::Output {
        out: out.to_path_buf(),
        detail,
    };
    if out.file_name().is_none() || out.is_dir() {
        return Err(bad_out("expected a file path such as cks.iso".to_string()));
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let parent = fs::canonicalize(&parent).map_err(|err| {
        bad_out(format!(
            "its directory {} cannot be used: {err}; create it first",
            parent.display()
        ))
    })?;
    let dir = fs::canonicalize(dir).map_err(|err| PackError::Input {
        dir: dir.to_path_buf(),
        detail: err.to_string(),
    })?;
    if parent.starts_with(&dir) {
        return Err(bad_out(format!(
            "it is inside the directory being packed ({}); write the image elsewhere",
            dir.display()
        )));
    }
    Ok(())
}
