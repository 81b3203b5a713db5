//! What a release folder publishes, checked as its readers will check it: each ISO with its
//! neighbours (the `.sha256` sidecar, the `.sig` with a key, the SBOM beside it) and, for a
//! folder, `catalog.json` (its `.sig`) and the `SHA256SUMS-<minor>` files. Every check is one the
//! builder already makes elsewhere — `release`'s keep check of a sidecar, `register`'s signature
//! check, `catalog`'s entries and checksum files, `verify` — run here on what is on disk.
//!
//! ```no_run
//! let findings = cks_builder::published::check("out".as_ref(), None)?;
//! for finding in &findings {
//!     println!("{finding}");
//! }
//! # Ok::<(), std::io::Error>(())
//! ```

mod folder;
mod iso;

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

pub use iso::{Neighbours, check_iso, check_neighbours};

use crate::register::RequiredKey;

/// One thing wrong with a published file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The file it is about.
    pub file: PathBuf,
    /// What is wrong.
    pub detail: String,
}

impl Finding {
    fn new(file: &Path, detail: impl Into<String>) -> Finding {
        Finding {
            file: file.to_path_buf(),
            detail: detail.into(),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file.display(), self.detail)
    }
}

/// Checks the folder `dir` (every ISO strictly, with its sidecar and SBOM, then the catalog and
/// the checksum files), or one ISO and the neighbours it has; `key` makes every `.sig` required
/// and checked. An error only when `path` cannot be read at all.
pub fn check(path: &Path, key: Option<&RequiredKey>) -> std::io::Result<Vec<Finding>> {
    if path.is_dir() {
        return folder::check(path, key);
    }
    let mut findings = Vec::new();
    check_iso(path, key, Neighbours::Present, &mut findings);
    Ok(findings)
}
