//! `cks-iso catalog DIR`: (re)writes `catalog.json` and one `SHA256SUMS-<minor>` per minor from
//! the ISOs in a folder (each ISO checked by `verify` first, its `versions.txt`, its sha256
//! hashed again as it streams and compared with its `.sha256` sidecar, the SBOM and signature
//! files beside it), signing the ISOs, the checksum files and the catalog when a key is given.
//! An ISO that fails, a sidecar that disagrees, or a folder without an ISO writes nothing. The
//! catalog carries a `serial` (default: the Unix time it is written) and an `expires` (default:
//! [`DEFAULT_EXPIRY`] later) that `register --catalog` checks. Every file is written under a temporary name and renamed when complete;
//! checksum files of minors no longer there are removed. `cks-iso release` calls [`write()`] on
//! its output folder.
//!
//! The schema is [`cks_pinning::catalog::Catalog`] (documented field by field in the README).
//!
//! ```no_run
//! use cks_builder::catalog::{self, Options};
//! let written = catalog::write("out".as_ref(), &Options {
//!     base_url: Some("https://images.example/cks/".into()),
//!     ..Options::default()
//! })?;
//! println!("{} ISOs in {}", written.catalog.isos.len(), written.path.display());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod entry;
mod error;
mod sums;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use cks_pinning::catalog::{
    CHECKSUMS_PREFIX, Catalog, ChecksumFile, FILE_NAME, Generator, SCHEMA_VERSION,
    checksums_file_name,
};

pub(crate) use entry::{isos_in, read as read_entry};
pub use error::CatalogWriteError;
pub(crate) use sums::render as render_sums;

use crate::signing::SigningKey;

/// How to write the catalog.
#[derive(Debug, Default)]
pub struct Options<'a> {
    /// Where the folder is published (`https://host/path/`): each ISO's `url` is this plus its
    /// file name; no `url` when `None`.
    pub base_url: Option<String>,
    /// Sign each ISO, each checksum file and the catalog with this key.
    pub sign_key: Option<&'a SigningKey>,
    /// The catalog's serial; the Unix time now when `None`.
    pub serial: Option<u64>,
    /// How long the catalog is valid from now; [`DEFAULT_EXPIRY`] when `None`.
    pub expires_in: Option<Duration>,
    /// Where `verify` keeps its scratch files (default: `TMPDIR`).
    pub temp_dir: Option<PathBuf>,
    /// ISOs the caller has just checked as thoroughly as `verify` does (a release's own builds
    /// and the ISOs it kept), with the sha256 it found: not verified again, only hashed.
    pub checked: BTreeMap<PathBuf, String>,
}

/// How long a catalog is valid without `--expires-in`: 30 days (a release job that runs
/// weekly or after each Kubernetes patch renews it well before).
pub const DEFAULT_EXPIRY: Duration = Duration::from_secs(30 * 24 * 3600);

/// What [`write()`] wrote.
#[derive(Debug, Clone)]
pub struct Written {
    /// `DIR/catalog.json`.
    pub path: PathBuf,
    /// What it holds.
    pub catalog: Catalog,
    /// `DIR/catalog.json.sig`, when signed.
    pub signature: Option<PathBuf>,
    /// The checksum files written (and their signatures, when signed).
    pub checksums: Vec<PathBuf>,
    /// Checksum files of minors no longer in the folder, removed.
    pub removed: Vec<PathBuf>,
}

/// This `cks-iso`, as the catalog's generator.
pub fn generator() -> Generator {
    let tool = crate::pipeline::sbom_tool();
    Generator {
        name: tool.name,
        version: tool.version,
        commit: tool.commit,
    }
}

/// Writes `dir/catalog.json` and the per-minor checksum files from the ISOs in `dir`.
pub fn write(dir: &Path, options: &Options<'_>) -> Result<Written, CatalogWriteError> {
    let base_url = options
        .base_url
        .as_deref()
        .map(entry::check_base_url)
        .transpose()?;
    let found = entry::isos_in(dir)?;
    if found.is_empty() {
        return Err(CatalogWriteError::Empty {
            dir: dir.to_path_buf(),
        });
    }
    let mut isos = Vec::new();
    for iso in found {
        let checked = options.checked.get(&iso).map(String::as_str);
        isos.push(entry::read(
            &iso,
            base_url.as_deref(),
            options.sign_key,
            checked,
            options.temp_dir.as_deref(),
        )?);
    }
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let expires = now.saturating_add(options.expires_in.unwrap_or(DEFAULT_EXPIRY).as_secs());
    let mut catalog = Catalog {
        schema_version: SCHEMA_VERSION,
        generator: generator(),
        isos,
        checksums: Vec::new(),
        serial: Some(options.serial.unwrap_or(now)),
        expires: Some(cks_pinning::sbom::rfc3339(
            i64::try_from(expires).unwrap_or(i64::MAX),
        )),
    };
    catalog.sort();
    let mut written_sums = Vec::new();
    for (minor, text) in sums::render(&catalog.isos) {
        let file = checksums_file_name(&minor);
        let path = dir.join(&file);
        write_file(&path, text.as_bytes())?;
        written_sums.push(path.clone());
        if let Some(key) = options.sign_key {
            written_sums.push(sign_small(key, &path, text.as_bytes())?);
        }
        catalog.checksums.push(ChecksumFile { minor, file });
    }
    catalog.sort();
    let removed = remove_stale_sums(dir, &catalog)?;
    let path = dir.join(FILE_NAME);
    let text = catalog.render();
    write_file(&path, text.as_bytes())?;
    let signature = options
        .sign_key
        .map(|key| sign_small(key, &path, text.as_bytes()))
        .transpose()?;
    Ok(Written {
        path,
        catalog,
        signature,
        checksums: written_sums,
        removed,
    })
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CatalogWriteError> {
    crate::atomic::write(path, bytes).map_err(|source| CatalogWriteError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Signs a file just written from `bytes` (hashed from memory, not read again).
fn sign_small(key: &SigningKey, path: &Path, bytes: &[u8]) -> Result<PathBuf, CatalogWriteError> {
    Ok(key.sign_hex_digest(path, &cks_pinning::digest::sha256_hex(bytes))?)
}

/// Removes `SHA256SUMS-<minor>` (and its `.sig`) for minors the catalog no longer has.
fn remove_stale_sums(dir: &Path, catalog: &Catalog) -> Result<Vec<PathBuf>, CatalogWriteError> {
    let io = |source| CatalogWriteError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut removed = Vec::new();
    for item in std::fs::read_dir(dir).map_err(io)? {
        let name = item.map_err(io)?.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(minor) = name.strip_prefix(CHECKSUMS_PREFIX) else {
            continue;
        };
        let minor = minor
            .strip_suffix(crate::signing::SIG_SUFFIX)
            .unwrap_or(minor);
        if minor.contains('.') && catalog.checksums.iter().all(|c| c.minor != minor) {
            let path = dir.join(name);
            std::fs::remove_file(&path).map_err(|source| CatalogWriteError::Io {
                path: path.clone(),
                source,
            })?;
            removed.push(path);
        }
    }
    removed.sort();
    Ok(removed)
}
