//! The `.sig` file beside a signed file: base64 of the DER signature, written under a temporary
//! name and renamed when complete.

use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use super::error::SigningError;

/// The suffix of a signature file: `<file>.sig`.
pub const SIG_SUFFIX: &str = ".sig";

/// `<file>.sig`.
pub fn sig_path(file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(SIG_SUFFIX);
    PathBuf::from(name)
}

/// Writes `<file>.sig` holding `der` in base64; returns its path.
pub(super) fn write_signature(file: &Path, der: &[u8]) -> Result<PathBuf, SigningError> {
    let path = sig_path(file);
    crate::atomic::write(&path, STANDARD.encode(der).as_bytes()).map_err(|source| {
        SigningError::Io {
            path: path.clone(),
            source,
        }
    })?;
    Ok(path)
}
