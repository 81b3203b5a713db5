//! One published ISO and its neighbours: the `.sha256` sidecar (the check `release` makes
//! before keeping an ISO), the `.sig` (the check `register --key` makes), the SBOM beside it
//! (byte for byte the `sbom.spdx.json` the ISO carries), and `verify` of the ISO itself.

use std::io::Read;
use std::path::Path;

use super::Finding;
use crate::inspect;
use crate::pipeline::{InFolder, look_in_folder, sbom_beside};
use crate::register::{RegisterError, RequiredKey, check_signature};

/// The most read of the SBOM beside an ISO (as of the one inside: a text file of the ISO).
const MAX_SBOM: u64 = 16 * 1024 * 1024;

/// Which neighbours an ISO must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Neighbours {
    /// The sidecar and the SBOM (an ISO of a release folder).
    Required,
    /// Those that are there (one ISO named on its own).
    Present,
}

/// Checks `iso` (`verify`) and its neighbours, adding what is wrong to `findings`; returns the
/// sha256 (hex) the ISO hashes to, when it could be read.
pub fn check_iso(
    iso: &Path,
    key: Option<&RequiredKey>,
    neighbours: Neighbours,
    findings: &mut Vec<Finding>,
) -> Option<String> {
    let sha256 = check_neighbours(iso, key, neighbours, findings);
    match inspect::verify(iso) {
        Ok(report) => findings.extend(
            report
                .findings
                .iter()
                .map(|f| Finding::new(iso, f.to_string())),
        ),
        Err(error) => findings.push(Finding::new(iso, error.to_string())),
    }
    sha256
}

/// Checks the neighbours of `iso` only (the sidecar, the `.sig` with `key`, the SBOM beside
/// it), adding what is wrong to `findings`; returns the sha256 (hex) the ISO hashes to when it
/// was hashed (always with a key or a sidecar, or when they are required).
pub fn check_neighbours(
    iso: &Path,
    key: Option<&RequiredKey>,
    neighbours: Neighbours,
    findings: &mut Vec<Finding>,
) -> Option<String> {
    let sidecar = crate::iso::sidecar_path(iso);
    let name = iso
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let sha256 = if sidecar.exists() || neighbours == Neighbours::Required {
        match look_in_folder(iso) {
            InFolder::Candidate(sha256) => Some(sha256),
            InFolder::Missing => {
                findings.push(Finding::new(iso, "not a readable file"));
                return None;
            }
            InFolder::Refused(reason) => {
                findings.push(Finding::new(&sidecar, format!("{name}: {reason}")));
                hash(iso, findings)
            }
        }
    } else if key.is_some() {
        hash(iso, findings)
    } else {
        None
    };
    if let (Some(key), Some(sha256)) = (key, &sha256) {
        let sig = crate::signing::sig_path(iso);
        match check_signature(iso, sha256, key) {
            Ok(()) => {}
            Err(RegisterError::Unsigned { detail, .. }) => {
                findings.push(Finding::new(
                    &sig,
                    format!("missing or unreadable: {detail}"),
                ));
            }
            Err(RegisterError::BadSignature { key, source, .. }) => findings.push(Finding::new(
                &sig,
                format!("not a signature of {name} by --key {key}: {source}"),
            )),
            Err(other) => findings.push(Finding::new(&sig, other.to_string())),
        }
    }
    let sbom = sbom_beside(iso);
    if (sbom.exists() || neighbours == Neighbours::Required)
        && let Some(detail) = sbom_differs(iso, &sbom)
    {
        findings.push(Finding::new(&sbom, detail));
    }
    sha256
}

/// The sha256 of `iso`, or a finding.
fn hash(iso: &Path, findings: &mut Vec<Finding>) -> Option<String> {
    match crate::digest::sha256_file(iso) {
        Ok(digest) => Some(digest.into_hex()),
        Err(error) => {
            findings.push(Finding::new(iso, format!("cannot be read: {error}")));
            None
        }
    }
}

/// Why the SBOM at `beside` is not the one `iso` carries; `None` when it is.
fn sbom_differs(iso: &Path, beside: &Path) -> Option<String> {
    let mut outside = Vec::new();
    let read = std::fs::File::open(beside)
        .and_then(|file| file.take(MAX_SBOM + 1).read_to_end(&mut outside));
    if let Err(error) = read {
        return Some(format!("missing or unreadable: {error}"));
    }
    if outside.len() as u64 > MAX_SBOM {
        return Some(format!("larger than {MAX_SBOM} bytes, not an SBOM of ours"));
    }
    let inside = match inspect::sbom_text(iso) {
        Ok(text) => text,
        Err(detail) => return Some(format!("cannot be compared: the ISO's SBOM {detail}")),
    };
    (outside != inside.as_bytes()).then(|| {
        format!(
            "not the {} the ISO carries: a build writes the same SBOM beside its ISO",
            cks_pinning::sbom::FILE_NAME
        )
    })
}
