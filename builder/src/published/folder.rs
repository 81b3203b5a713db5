//! A release folder: every ISO with its neighbours, then `catalog.json` (its `.sig` with a key,
//! fresh, each entry the one `cks-iso catalog` writes for the ISO on disk, no ISO missing or
//! unlisted) and the `SHA256SUMS-<minor>` files (each the one `catalog` renders from those
//! entries, its `.sig` with a key).

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use cks_pinning::catalog::{CHECKSUMS_PREFIX, Catalog, CatalogIso, FILE_NAME, checksums_file_name};

use super::Finding;
use super::iso::{Neighbours, check_iso};
use crate::register::RequiredKey;
use crate::register::from_catalog::DEFAULT_CATALOG_LIMIT;
use crate::signing::sig_path;

/// The most read of a `.sig` or a `SHA256SUMS-<minor>` file.
const MAX_SMALL: u64 = 1024 * 1024;

/// Checks the folder `dir` (see the module doc).
pub fn check(dir: &Path, key: Option<&RequiredKey>) -> std::io::Result<Vec<Finding>> {
    let isos = crate::catalog::isos_in(dir).map_err(std::io::Error::other)?;
    let mut findings = Vec::new();
    if isos.is_empty() {
        findings.push(Finding::new(dir, "holds no ISO"));
    }
    let mut hashed = BTreeMap::new();
    for iso in &isos {
        if let Some(sha256) = check_iso(iso, key, Neighbours::Required, &mut findings) {
            hashed.insert(iso.clone(), sha256);
        }
    }
    let path = dir.join(FILE_NAME);
    let Some(catalog) = read_catalog(&path, key, &mut findings) else {
        return Ok(findings);
    };
    let entries = compare_entries(dir, &path, &catalog, &hashed, &mut findings);
    check_sums(dir, &entries, key, &mut findings)?;
    Ok(findings)
}

/// Reads, checks the signature of and parses `catalog.json`; `None` (with a finding) when it
/// cannot be read or parsed.
fn read_catalog(
    path: &Path,
    key: Option<&RequiredKey>,
    findings: &mut Vec<Finding>,
) -> Option<Catalog> {
    let bytes = match read_bounded(path, DEFAULT_CATALOG_LIMIT) {
        Ok(bytes) => bytes,
        Err(detail) => {
            findings.push(Finding::new(path, detail.to_string()));
            return None;
        }
    };
    if let Some(key) = key {
        check_sig(path, &bytes, key, findings);
    }
    let parsed = std::str::from_utf8(&bytes)
        .map_err(|_| "not UTF-8 text".to_string())
        .and_then(|text| Catalog::parse(text).map_err(|e| e.to_string()));
    let catalog = match parsed {
        Ok(catalog) => catalog,
        Err(detail) => {
            findings.push(Finding::new(path, detail));
            return None;
        }
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    if let Err(error) = catalog.check_fresh(now, 0) {
        findings.push(Finding::new(path, error.to_string()));
    }
    Some(catalog)
}

/// Each ISO's entry as `cks-iso catalog` writes it from the file on disk, compared with the
/// catalog's; returns the entries read from disk (for the checksum files).
fn compare_entries(
    dir: &Path,
    path: &Path,
    catalog: &Catalog,
    hashed: &BTreeMap<PathBuf, String>,
    findings: &mut Vec<Finding>,
) -> Vec<CatalogIso> {
    let listed: BTreeMap<&str, &CatalogIso> =
        catalog.isos.iter().map(|i| (i.file.as_str(), i)).collect();
    let mut on_disk = Vec::new();
    for (iso, sha256) in hashed {
        let file = iso
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some(entry) = listed.get(file.as_str()) else {
            findings.push(Finding::new(path, format!("does not list {file}")));
            continue;
        };
        // The base URL the entry was written with, so the URL is compared too.
        let base = entry
            .url
            .as_deref()
            .and_then(|url| url.strip_suffix(file.as_str()));
        let actual = match crate::catalog::read_entry(iso, base, None, Some(sha256), None) {
            Ok(actual) => actual,
            // The ISO's own findings say why `catalog` would refuse it; its checksum line is
            // still that of the bytes on disk.
            Err(_) => {
                let mut listed = (*entry).clone();
                listed.sha256.clone_from(sha256);
                on_disk.push(listed);
                continue;
            }
        };
        for (field, listed, actual) in differences(entry, &actual) {
            findings.push(Finding::new(
                path,
                format!("{file}: its {field} is {listed}, the file's is {actual}"),
            ));
        }
        on_disk.push(actual);
    }
    for entry in &catalog.isos {
        if !dir.join(&entry.file).is_file() {
            findings.push(Finding::new(
                path,
                format!("lists {}, which is not in the folder", entry.file),
            ));
        }
    }
    on_disk
}

/// The fields of `listed` that differ from `actual`: name, listed value, actual value.
fn differences(listed: &CatalogIso, actual: &CatalogIso) -> Vec<(&'static str, String, String)> {
    let show = |value: &Option<String>| value.clone().unwrap_or_else(|| "none".to_string());
    [
        ("sha256", listed.sha256.clone(), actual.sha256.clone()),
        ("size", listed.size.to_string(), actual.size.to_string()),
        (
            "kubernetes_version",
            listed.kubernetes_version.clone(),
            actual.kubernetes_version.clone(),
        ),
        ("minor", listed.minor.clone(), actual.minor.clone()),
        ("arch", listed.arch.clone(), actual.arch.clone()),
        ("sbom", show(&listed.sbom), show(&actual.sbom)),
        (
            "signature",
            show(&listed.signature),
            show(&actual.signature),
        ),
        ("built", show(&listed.built), show(&actual.built)),
    ]
    .into_iter()
    .filter(|(_, listed, actual)| listed != actual)
    .collect()
}

/// Each `SHA256SUMS-<minor>` the entries call for is there, byte for byte as `catalog` renders
/// it (and signed, with a key); none is there for another minor.
fn check_sums(
    dir: &Path,
    entries: &[CatalogIso],
    key: Option<&RequiredKey>,
    findings: &mut Vec<Finding>,
) -> std::io::Result<()> {
    let expected = crate::catalog::render_sums(entries);
    let mut wanted = BTreeSet::new();
    for (minor, text) in &expected {
        let path = dir.join(checksums_file_name(minor));
        wanted.insert(path.clone());
        match read_bounded(&path, MAX_SMALL) {
            Err(detail) => findings.push(Finding::new(&path, detail.to_string())),
            Ok(bytes) => {
                if bytes != text.as_bytes() {
                    findings.push(Finding::new(
                        &path,
                        "does not list the ISOs of its minor as they hash now",
                    ));
                }
                if let Some(key) = key {
                    check_sig(&path, &bytes, key, findings);
                }
            }
        }
    }
    for item in std::fs::read_dir(dir)? {
        let path = item?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        if name.is_some_and(|n| n.starts_with(CHECKSUMS_PREFIX) && !n.ends_with(".sig"))
            && !wanted.contains(&path)
        {
            findings.push(Finding::new(
                &path,
                "names a minor no ISO of the folder has",
            ));
        }
    }
    Ok(())
}

/// `<path>.sig` verifies over `bytes` with `key`, or a finding naming the `.sig`.
fn check_sig(path: &Path, bytes: &[u8], key: &RequiredKey, findings: &mut Vec<Finding>) {
    let sig = sig_path(path);
    match read_bounded(&sig, MAX_SMALL) {
        Err(detail) => findings.push(Finding::new(&sig, detail.to_string())),
        Ok(signature) => {
            if let Err(error) = key.key.verify_bytes(bytes, &signature) {
                findings.push(Finding::new(
                    &sig,
                    format!("does not verify with --key {}: {error}", key.path),
                ));
            }
        }
    }
}

/// Why a small file of the folder was not read.
#[derive(Debug, thiserror::Error)]
enum ReadError {
    /// It is not there or cannot be read.
    #[error("missing or unreadable: {0}")]
    Unreadable(std::io::Error),
    /// It is larger than its bound.
    #[error("larger than {limit} bytes")]
    TooLarge {
        /// The bound.
        limit: u64,
    },
}

/// At most `limit` bytes of `path`, or why not.
fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(limit + 1).read_to_end(&mut bytes))
        .map_err(ReadError::Unreadable)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { limit });
    }
    Ok(bytes)
}
