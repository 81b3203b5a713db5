//! The reading edge of `verify` and `diff`: opening an image, reading its small text files with
//! a size cap, and streaming a file out through a hasher (into a scratch file when asked).

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

use crate::digest::Sha256Count;
use cks_pinning::versions_txt::{FILE_NAME, VersionsTxt};

use super::contract::rel;
use super::error::InspectError;
use crate::iso::EntryKind;
use crate::iso::{IsoEntry, IsoError, IsoImage};

/// Why a text file of an image cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum TextError {
    /// The image cannot be opened or listed.
    #[error("{0}")]
    Open(#[from] InspectError),
    /// The file cannot be streamed out of the image, or is larger than 16 MiB.
    #[error("{0}")]
    Read(#[from] IsoError),
    /// The file is not in the image.
    #[error("is missing")]
    Missing,
    /// The file's bytes are not UTF-8.
    #[error("is not UTF-8 text")]
    NotUtf8,
}

/// The largest text file (`versions.txt`, a manifest) read into memory.
pub const MAX_TEXT: u64 = 16 * 1024 * 1024;

/// Opens `iso` and lists its entries.
pub fn open(iso: &Path) -> Result<(IsoImage, Vec<IsoEntry>), InspectError> {
    let failed = |source| InspectError::Open {
        iso: iso.to_path_buf(),
        source,
    };
    let image = IsoImage::open(iso).map_err(failed)?;
    let entries = image.entries().map_err(failed)?;
    Ok((image, entries))
}

/// A writer that keeps at most `limit` bytes and fails beyond.
struct Capped {
    bytes: Vec<u8>,
    limit: u64,
}

impl Write for Capped {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if (self.bytes.len() + buf.len()) as u64 > self.limit {
            return Err(io::Error::other(format!(
                "larger than {} bytes, too large for a text file",
                self.limit
            )));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Reads the text file at `path` (absolute in the image): at most [`MAX_TEXT`] bytes of UTF-8.
pub fn text(image: &IsoImage, path: &str) -> Result<String, TextError> {
    let mut out = Capped {
        bytes: Vec::new(),
        limit: MAX_TEXT,
    };
    image.copy_file(path, &mut out)?;
    String::from_utf8(out.bytes).map_err(|_| TextError::NotUtf8)
}

/// The text of the SBOM `iso` carries (`/sbom.spdx.json`, at most 16 MiB), or why
/// it cannot be read (`missing`, an unreadable image).
pub fn sbom_text(iso: &Path) -> Result<String, TextError> {
    let (image, entries) = open(iso)?;
    let name = cks_pinning::sbom::FILE_NAME;
    if !files(&entries).any(|(path, _)| path == name) {
        return Err(TextError::Missing);
    }
    text(&image, name)
}

/// Writes to `inner` (if any) and hashes on the way.
pub struct Tee<W> {
    inner: W,
    hasher: Sha256Count,
}

impl<W: Write> Tee<W> {
    /// A hashing writer in front of `inner`.
    pub fn new(inner: W) -> Self {
        Tee {
            inner,
            hasher: Sha256Count::new(),
        }
    }

    /// The hex sha256 of everything written.
    pub fn finish(self) -> String {
        self.hasher.finish().into_hex()
    }
}

impl<W: Write> Write for Tee<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The regular files of a listing, as paths without the leading `/`.
pub fn files(entries: &[IsoEntry]) -> impl Iterator<Item = (&str, &IsoEntry)> {
    entries
        .iter()
        .filter(|e| e.kind == EntryKind::File)
        .map(|e| (rel(&e.path), e))
}

/// What `diff` compares of one image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contents {
    /// The parsed `versions.txt`, when the image has one.
    pub versions: Option<VersionsTxt>,
    /// Every file (path without the leading `/`; `versions.txt` and the SBOM made from it left
    /// out, as `verify` leaves them out of the `file:` lines) → the hex sha256 of its bytes as
    /// read from the image, whatever `versions.txt` says.
    pub files: BTreeMap<String, String>,
}

/// Reads what `diff` compares of `iso`: its `versions.txt`, and the sha256 of every file,
/// streamed out of the image one at a time.
pub fn read_contents(iso: &Path) -> Result<Contents, InspectError> {
    let (image, entries) = open(iso)?;
    let has_versions = files(&entries).any(|(path, _)| path == FILE_NAME);
    let versions = if has_versions {
        let text =
            text(&image, &format!("/{FILE_NAME}")).map_err(|detail| InspectError::Unreadable {
                iso: iso.to_path_buf(),
                path: FILE_NAME.to_string(),
                detail: detail.to_string(),
            })?;
        Some(
            VersionsTxt::parse(&text).map_err(|source| InspectError::VersionsTxt {
                iso: iso.to_path_buf(),
                source,
            })?,
        )
    } else {
        None
    };
    let mut out = BTreeMap::new();
    for (path, entry) in files(&entries) {
        if path == FILE_NAME || path == cks_pinning::sbom::FILE_NAME {
            continue;
        }
        let sha = image
            .sha256(&entry.path)
            .map_err(|source| InspectError::Open {
                iso: iso.to_path_buf(),
                source,
            })?;
        out.insert(path.to_string(), sha);
    }
    Ok(Contents {
        versions,
        files: out,
    })
}
