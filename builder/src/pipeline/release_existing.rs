//! An ISO already in a release's output folder, before it may be kept: its `.sha256` sidecar
//! must name it and the digest the file hashes to now. Only then is it offered to the build
//! ([`super::Request::keep_existing`]), which keeps it only when it is byte for byte what this
//! run builds from what it verifies (the check a cached ISO passes); otherwise it is rebuilt
//! and the release's table says why.

use std::io::Read;
use std::path::Path;

use crate::iso::sidecar_path;

/// The most read of a sidecar (one line).
const MAX_SIDECAR: u64 = 64 * 1024;

/// What the folder holds at an ISO's path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InFolder {
    /// No ISO there.
    Missing,
    /// An ISO that cannot be kept, and why (`its sha256 differs from its sidecar`).
    Refused(String),
    /// An ISO whose sidecar agrees with its bytes: offered to the build, with its sha256.
    Candidate(String),
}

/// Looks at the ISO at `iso` and its sidecar (hashing the ISO).
pub fn look(iso: &Path) -> InFolder {
    if !iso.is_file() {
        return InFolder::Missing;
    }
    let sidecar = sidecar_path(iso);
    let mut text = String::new();
    let read =
        std::fs::File::open(&sidecar).and_then(|f| f.take(MAX_SIDECAR).read_to_string(&mut text));
    if read.is_err() {
        return InFolder::Refused("it has no readable .sha256 sidecar".to_string());
    }
    let name = iso
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Some(listed) = sidecar_digest(&text, &name) else {
        return InFolder::Refused(format!("its sidecar does not name {name}"));
    };
    match crate::digest::sha256_file(iso) {
        Ok(digest) if digest.hex() == listed => InFolder::Candidate(listed),
        Ok(_) => InFolder::Refused("its sha256 differs from its sidecar".to_string()),
        Err(e) => InFolder::Refused(format!("it cannot be read: {e}")),
    }
}

/// The digest a sidecar's one line (`<hex>  <name>`) names for `name`.
fn sidecar_digest(text: &str, name: &str) -> Option<String> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let line = lines.next()?;
    if lines.next().is_some() {
        return None;
    }
    let (hex, file) = line.split_once("  ")?;
    let hex = hex.to_ascii_lowercase();
    (file == name && cks_pinning::digest::is_sha256_lower_hex(&hex)).then_some(hex)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sidecar_must_name_the_iso_and_the_digest_it_hashes_to() {
        let dir = tempfile::tempdir().expect("dir");
        let iso = dir.path().join("cks.iso");
        assert_eq!(look(&iso), InFolder::Missing);
        std::fs::write(&iso, b"an image").expect("write");
        assert!(matches!(look(&iso), InFolder::Refused(r) if r.contains("no readable")));
        let digest = cks_pinning::digest::sha256_hex(b"an image");
        let sidecar = sidecar_path(&iso);
        std::fs::write(&sidecar, format!("{digest}  other.iso\n")).expect("write");
        assert!(matches!(look(&iso), InFolder::Refused(r) if r.contains("does not name")));
        std::fs::write(&sidecar, format!("{digest}  cks.iso\n")).expect("write");
        assert_eq!(look(&iso), InFolder::Candidate(digest.clone()));
        std::fs::write(&iso, b"an imagE").expect("write");
        assert_eq!(
            look(&iso),
            InFolder::Refused("its sha256 differs from its sidecar".to_string())
        );
    }
}
