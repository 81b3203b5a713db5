//! What `register` needs to know of an ISO: the Kubernetes version and arch from its
//! `versions.txt`, its size and sha256 (checked against the `.sha256` sidecar beside it), and
//! that `verify` finds nothing wrong with it.

use std::path::{Path, PathBuf};

use cks_pinning::versions_txt::{FILE_NAME, VersionsTxt};
use serde::Serialize;

use super::error::RegisterError;
use crate::inspect;
use crate::iso::IsoImage;
use crate::iso::sidecar_path;

/// The facts of one ISO.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IsoFacts {
    /// The image.
    pub iso: PathBuf,
    /// The Kubernetes version, `MAJOR.MINOR.PATCH`.
    pub semantic_version: String,
    /// The arch as CloudStack names it: `x86_64` or `aarch64`.
    pub arch: String,
    /// The size in bytes.
    pub size: u64,
    /// The hex sha256 of the whole image.
    pub sha256: String,
    /// Whether a `.sha256` sidecar was found (and agreed).
    pub sidecar_checked: bool,
    /// Which CloudStack lines' node contracts the ISO's files fit.
    pub fits: cks_pinning::node_contract::Fits,
}

impl IsoFacts {
    /// The checksum as `addKubernetesSupportedVersion` takes it.
    pub fn checksum(&self) -> String {
        format!("{{SHA-256}}{}", self.sha256)
    }
}

/// The bytes of a `versions.txt` this reader takes at most.
const MAX_VERSIONS_TXT: u64 = 16 * 1024 * 1024;

/// Reads the facts of `iso` and refuses one `verify` rejects.
pub fn read(iso: &Path) -> Result<IsoFacts, RegisterError> {
    let report = inspect::verify(iso)?;
    if let Some(first) = report.findings.first() {
        return Err(RegisterError::Rejected {
            iso: iso.to_path_buf(),
            count: report.findings.len(),
            plural: if report.findings.len() == 1 { "" } else { "s" },
            first: first.to_string(),
        });
    }
    let versions = versions_txt(iso)?;
    let semantic_version = versions.kubernetes.trim_start_matches('v').to_string();
    let arch = versions.arch.iso_suffix().to_string();
    let (size, sha256) = hash_file(iso)?;
    let sidecar = sidecar_path(iso);
    let sidecar_checked = match std::fs::read_to_string(&sidecar) {
        Ok(text) => {
            let listed = text
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_lowercase();
            if listed != sha256 {
                return Err(RegisterError::Sidecar {
                    iso: iso.to_path_buf(),
                    sidecar,
                    listed,
                    actual: sha256,
                });
            }
            true
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(source) => {
            return Err(RegisterError::Read {
                iso: sidecar,
                source,
            });
        }
    };
    Ok(IsoFacts {
        iso: iso.to_path_buf(),
        semantic_version,
        arch,
        size,
        sha256,
        sidecar_checked,
        fits: report.fits,
    })
}

pub(crate) fn versions_txt(iso: &Path) -> Result<VersionsTxt, RegisterError> {
    let image = IsoImage::open(iso).map_err(|source| RegisterError::Image {
        iso: iso.to_path_buf(),
        source,
    })?;
    let mut bytes = Vec::new();
    image
        .copy_file(&format!("/{FILE_NAME}"), &mut bytes)
        .map_err(|source| RegisterError::Image {
            iso: iso.to_path_buf(),
            source,
        })?;
    let bad = |detail: String| RegisterError::Versions {
        iso: iso.to_path_buf(),
        detail,
    };
    if bytes.len() as u64 > MAX_VERSIONS_TXT {
        return Err(bad(format!(
            "/{FILE_NAME} is larger than {MAX_VERSIONS_TXT} bytes"
        )));
    }
    let text = String::from_utf8(bytes).map_err(|_| bad(format!("/{FILE_NAME} is not UTF-8")))?;
    VersionsTxt::parse(&text).map_err(|e| bad(format!("/{FILE_NAME}: {e}")))
}

/// The size and hex sha256 of a file, streamed.
pub fn hash_file(path: &Path) -> Result<(u64, String), RegisterError> {
    let failed = |source| RegisterError::Read {
        iso: path.to_path_buf(),
        source,
    };
    let digest = crate::digest::sha256_file(path).map_err(failed)?;
    Ok((digest.bytes, digest.into_hex()))
}
