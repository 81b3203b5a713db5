//! The new ISO, checked before anything reaches a node: its sha256 must be the checksum
//! CloudStack holds for the target version (`listKubernetesSupportedVersions` names the ISO,
//! `listIsos` gives its checksum, without the `{SHA-256}` prefix it was registered with) or the
//! one `--sha256` gives, and `verify` must find nothing wrong with it. The file is opened once
//! and every later read (the hash, `verify`, the scan, each copy to a node) goes through that
//! open file (`/proc/self/fd/N`), so a file put at the path after the check is never read.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use cks_cloudstack::kubernetes::KubernetesVersion;
use cks_cloudstack::{CloudStackClient, CloudStackError};
use cks_iso_reader::digest::{is_sha256_hex, sha256_reader};
use cks_iso_reader::inspect;

use super::source::IsoSource;

/// The sha256 the ISO must have, and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// Lower-case hex.
    pub sha256: String,
    /// Where it comes from, for messages: `--sha256`, or the version in CloudStack.
    pub from: String,
}

/// The ISO could not be checked, or failed a check; nothing was sent to a node.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// A checksum that is not a sha256.
    #[error(
        "{from} is {given:?}: {detail}; expected a sha256 (64 hex digits, optionally after {{SHA-256}})"
    )]
    BadChecksum {
        /// Where it came from.
        from: String,
        /// What it is.
        given: String,
        /// What is wrong.
        detail: String,
    },
    /// CloudStack shows no checksum for the version's ISO.
    #[error(
        "CloudStack shows no checksum for the ISO {iso} of version {version}; register the version with its {{SHA-256}} checksum, or pass --sha256 HEX of the ISO you trust"
    )]
    NoChecksum {
        /// The version's name.
        version: String,
        /// The ISO's id (or `none`).
        iso: String,
    },
    /// Reading the ISO's checksum from CloudStack failed.
    #[error("reading the checksum of version {version}'s ISO (listIsos): {source}")]
    CloudStack {
        /// The version's name.
        version: String,
        /// Why.
        source: CloudStackError,
    },
    /// A folder was given.
    #[error(
        "--iso {}: a folder has no sha256 to compare with the checksum CloudStack holds; give the ISO file", .0.display()
    )]
    Folder(PathBuf),
    /// The file could not be opened or read.
    #[error("--iso {}: {source}; give the new ISO file", .iso.display())]
    Read {
        /// The path given.
        iso: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The ISO is not the one expected.
    #[error(
        "--iso {}: its sha256 is {actual}, but {from} is {expected}; nothing was sent to a node (give the ISO registered for that version)", .iso.display()
    )]
    Mismatch {
        /// The path given.
        iso: PathBuf,
        /// Its sha256.
        actual: String,
        /// The sha256 expected.
        expected: String,
        /// Where that comes from.
        from: String,
    },
    /// `verify` cannot read it.
    #[error("--iso {}: {detail}; nothing was sent to a node", .iso.display())]
    Unreadable {
        /// The path given.
        iso: PathBuf,
        /// Why.
        detail: String,
    },
    /// `verify` finds something wrong.
    #[error(
        "--iso {}: verify finds {count} problem{plural}, the first: {first}; nothing was sent to a node (run `cks-iso verify` on it for all)", .iso.display()
    )]
    Rejected {
        /// The path given.
        iso: PathBuf,
        /// How many findings.
        count: usize,
        /// `s` or nothing.
        plural: &'static str,
        /// The first finding.
        first: String,
    },
}

impl Expected {
    /// The sha256 `--sha256` gives.
    pub fn given(text: &str) -> Result<Expected, CheckError> {
        Ok(Expected {
            sha256: parse_checksum(text, "--sha256")?,
            from: "--sha256".to_string(),
        })
    }

    /// The checksum CloudStack holds for `version`'s ISO.
    pub fn from_cloudstack(
        client: &CloudStackClient,
        version: &KubernetesVersion,
    ) -> Result<Expected, CheckError> {
        let none = || CheckError::NoChecksum {
            version: version.name.clone(),
            iso: if version.iso_id.is_empty() {
                "none".to_string()
            } else {
                version.iso_id.clone()
            },
        };
        if version.iso_id.is_empty() {
            return Err(none());
        }
        let iso = client
            .iso(&version.iso_id)
            .map_err(|source| CheckError::CloudStack {
                version: version.name.clone(),
                source,
            })?
            .ok_or_else(none)?;
        let text = iso
            .checksum
            .filter(|c| !c.trim().is_empty())
            .ok_or_else(none)?;
        let from = format!(
            "the checksum CloudStack holds for version {} (ISO {})",
            version.name, version.iso_id
        );
        Ok(Expected {
            sha256: parse_checksum(&text, &from)?,
            from,
        })
    }
}

/// The lower-case hex of a sha256 checksum, bare or after `{SHA-256}` (CloudStack answers
/// without the prefix it was registered with); any other `{ALG}` is refused.
pub fn parse_checksum(text: &str, from: &str) -> Result<String, CheckError> {
    let bad = |detail: &str| CheckError::BadChecksum {
        from: from.to_string(),
        given: text.to_string(),
        detail: detail.to_string(),
    };
    let trimmed = text.trim();
    let hex = match trimmed.strip_prefix('{') {
        Some(rest) => {
            let (alg, hex) = rest
                .split_once('}')
                .ok_or_else(|| bad("the {ALG} prefix is not closed"))?;
            let alg = alg.to_ascii_uppercase();
            if alg != "SHA-256" && alg != "SHA256" {
                return Err(bad("not a SHA-256 checksum"));
            }
            hex
        }
        None => trimmed,
    };
    if !is_sha256_hex(hex) {
        return Err(bad("not 64 hex digits"));
    }
    Ok(hex.to_ascii_lowercase())
}

/// An ISO whose sha256 and `verify` checked out; read only through the file opened for the
/// check.
#[derive(Debug)]
pub struct CheckedIso {
    /// Its images, read through the open file.
    pub source: IsoSource,
    /// Its sha256.
    pub sha256: String,
    _file: File,
}

/// Opens `iso` once, requires its sha256 to be `expected` and `verify` to find nothing wrong.
pub fn check(iso: &Path, expected: &Expected) -> Result<CheckedIso, CheckError> {
    if iso.is_dir() {
        return Err(CheckError::Folder(iso.to_path_buf()));
    }
    let read = |source| CheckError::Read {
        iso: iso.to_path_buf(),
        source,
    };
    let file = File::open(iso).map_err(read)?;
    let pinned = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
    let actual = sha256_reader(File::open(&pinned).map_err(read)?)
        .map_err(read)?
        .into_hex();
    if actual != expected.sha256 {
        return Err(CheckError::Mismatch {
            iso: iso.to_path_buf(),
            actual,
            expected: expected.sha256.clone(),
            from: expected.from.clone(),
        });
    }
    let report = inspect::verify(&pinned).map_err(|e| CheckError::Unreadable {
        iso: iso.to_path_buf(),
        detail: e.to_string(),
    })?;
    if let Some(first) = report.findings.first() {
        return Err(CheckError::Rejected {
            iso: iso.to_path_buf(),
            count: report.findings.len(),
            plural: if report.findings.len() == 1 { "" } else { "s" },
            first: first.to_string(),
        });
    }
    Ok(CheckedIso {
        source: IsoSource::Iso(pinned),
        sha256: actual,
        _file: file,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checksum_is_a_sha256_bare_or_after_its_prefix() {
        let hex = "Ab".repeat(32);
        let want = "ab".repeat(32);
        assert_eq!(parse_checksum(&hex, "x").expect("bare"), want);
        assert_eq!(
            parse_checksum(&format!("{{SHA-256}}{hex}"), "x").expect("prefixed"),
            want
        );
        assert_eq!(
            parse_checksum(&format!("{{sha256}}{hex}\n"), "x").expect("lower"),
            want
        );
        for bad in [
            format!("{{MD5}}{}", "a".repeat(32)),
            "a".repeat(32),
            format!("{{SHA-256{hex}"),
            "{SHA-256}11".to_string(),
            String::new(),
        ] {
            let error = parse_checksum(&bad, "--sha256").expect_err(&bad);
            assert!(error.to_string().starts_with("--sha256 is"), "{error}");
        }
    }
}
