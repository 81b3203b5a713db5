//! The ISO 9660 writer behind [`crate::iso::pack`]: hadris-iso 3.0, level 3, Rock Ridge and
//! Joliet. Everything hadris-specific is in this folder, so it can be swapped for another writer
//! (`xorriso -as mkisofs -J -R -l -iso-level 3` is the documented fallback).

mod buffer;
mod device;
mod tree;

use crate::digest::chain::Checkpoint;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use hadris_fs::DateTime;
use hadris_iso::{IsoId, IsoLevel, IsoOptions, Relocation};

use super::error::PackError;
use super::options::PackOptions;
use super::warning::PackWarning;

/// What the writer produced.
pub struct Written {
    /// The file the image was written to, flushed.
    pub file: File,
    /// Image size in bytes.
    pub size: u64,
    /// Hex sha256 of the image.
    pub sha256: String,
    /// The sha256's checkpoints, to check the image again on every core.
    pub checkpoints: Vec<Checkpoint>,
    /// What the writer stored differently from the tree.
    pub warnings: Vec<PackWarning>,
}

/// Writes `dir` as an image into `file` (empty, opened for writing). `out` names the image in
/// errors; `counter`, when given, holds the bytes written so far.
pub fn write(
    dir: &Path,
    file: File,
    out: &Path,
    options: &PackOptions,
    counter: Option<Arc<AtomicU64>>,
) -> Result<Written, PackError> {
    let tree = tree::read(dir, options.time)?;
    let failed = |detail: String| PackError::Write {
        out: out.to_path_buf(),
        detail,
    };
    let stamp = DateTime::from_unix_seconds(options.time.unix_seconds)
        .map_err(|err| failed(format!("the build time is out of range: {err:?}")))?;
    let mut iso = IsoOptions::new()
        .with_level(IsoLevel::L3)
        .with_rock_ridge()
        .with_relocation(Relocation::DotRrMoved)
        .with_id(IsoId::Volume, options.volume_id())
        .with_id(IsoId::Application, "CKS-ISO")
        .with_time(stamp);
    if options.joliet {
        iso = iso.with_joliet();
    }
    let mut device = device::HashingFile::new(file)
        .map_err(|err| failed(err.to_string()))?
        .counting(counter);
    let report = hadris_iso::sync::write(&mut device, &tree, &iso)
        .map_err(|err| failed(describe(&err, out)))?;
    let (file, sha256, checkpoints) = device
        .finish(report.size())
        .map_err(|err| failed(crate::space::explain(err, out, Some(report.size())).to_string()))?;
    let warnings = report.warnings().iter().map(warning).collect();
    Ok(Written {
        file,
        size: report.size(),
        sha256,
        checkpoints,
        warnings,
    })
}

/// The writer's error with the tree path and host path it names; no room to write `out`
/// (ENOSPC, EFBIG) is explained ([`crate::space::explain`]).
fn describe(err: &hadris_fs::PathError, out: &Path) -> String {
    let mut text = err.to_string();
    if let Some(host) = err.host_path() {
        let host = host.display().to_string();
        if !text.contains(&host) {
            text.push_str(&format!(" ({host})"));
        }
    }
    if let Some(code) = err.raw_os_error() {
        let io = std::io::Error::from_raw_os_error(code);
        if crate::space::no_room(&io) {
            text.push_str(&format!(": {}", crate::space::explain(io, out, None)));
        }
    }
    text
}

fn warning(w: &hadris_fs::Warning) -> PackWarning {
    let text =
        |bytes: Option<&[u8]>| String::from_utf8_lossy(bytes.unwrap_or_default()).into_owned();
    let message = w.message();
    match (w.path(), w.stored_as()) {
        (Some(path), Some(stored)) if message.contains("cut to 64") => PackWarning::JolietNameCut {
            path: text(Some(path)),
            joliet_name: text(Some(stored)),
        },
        (Some(path), Some(stored)) if message.contains("in the Joliet name") => {
            PackWarning::JolietNameChanged {
                path: text(Some(path)),
                joliet_name: text(Some(stored)),
            }
        }
        _ => PackWarning::Other {
            message: w.to_string(),
        },
    }
}
