//! Reading an image back: every tree it carries checked to agree ([`super::trees`]), every
//! entry with its Rock Ridge name, mode and symlink target, and a file's bytes streamed out of
//! the extents all trees point at (so a caller's sha256 covers what any tree shows).
//!
//! ```no_run
//! use cks_iso_reader::iso::IsoImage;
//!
//! let image = IsoImage::open("cks.iso".as_ref())?;
//! for entry in image.entries()? {
//!     println!("{:o} {} {}", entry.mode, entry.size, entry.path);
//! }
//! println!("{}", image.sha256("/versions.txt")?);
//! # Ok::<(), cks_iso_reader::iso::IsoError>(())
//! ```

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::error::IsoError;
use super::mode::EntryKind;
use super::trees::{self, Entry, Source, SourceError};
use crate::follow::{Following, ReadAt, Watermark};

/// Bytes in a logical sector.
const SECTOR: u64 = 2048;

/// One entry of an image, as Rock Ridge records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IsoEntry {
    /// Absolute path in the image, such as `/docker/kube-apiserver:v1.33.13.tar`.
    pub path: String,
    /// File, directory or symlink.
    pub kind: EntryKind,
    /// Permission bits, such as `0o755`.
    pub mode: u32,
    /// Size in bytes of a file (0 otherwise).
    pub size: u64,
    /// Target of a symlink.
    pub target: Option<String>,
}

/// An ISO image opened for reading: its trees checked to agree ([`trees::check`]), its Rock
/// Ridge tree listed, a file's bytes read from the extents every tree points at.
pub struct IsoImage {
    path: PathBuf,
    file: Box<dyn ReadAt>,
    volume_id: String,
    entries: BTreeMap<String, Entry>,
}

/// The image file as [`trees`] reads it.
struct Image<'a>(&'a dyn ReadAt);

impl Source for Image<'_> {
    fn read(&self, offset: u64, len: usize) -> Result<Vec<u8>, SourceError> {
        let mut buf = vec![0u8; len];
        self.0
            .read_exact_at(&mut buf, offset)
            .map_err(|source| SourceError::Read {
                len,
                offset,
                source,
            })?;
        Ok(buf)
    }
}

/// Every entry of `dir` and below, by absolute path.
fn flatten(dir: &BTreeMap<String, Entry>, prefix: &str, out: &mut BTreeMap<String, Entry>) {
    for (name, entry) in dir {
        let path = format!("{prefix}/{name}");
        flatten(&entry.children, &path, out);
        let mut entry = entry.clone();
        entry.children.clear();
        out.insert(path, entry);
    }
}

impl IsoImage {
    /// Opens the image at `path`, refusing it unless every tree it carries agrees.
    pub fn open(path: &Path) -> Result<Self, IsoError> {
        Self::open_as(path, None)
    }

    /// Opens the image at `path` while a transfer writes it (publishing `mark`): every read
    /// waits for its bytes to land, and fails when the transfer starts over or fails.
    pub fn open_following(path: &Path, mark: Arc<Watermark>) -> Result<Self, IsoError> {
        Self::open_as(path, Some(mark))
    }

    fn open_as(path: &Path, mark: Option<Arc<Watermark>>) -> Result<Self, IsoError> {
        if let Some(mark) = &mark {
            // The file exists once its first bytes have landed.
            mark.wait_for(1).map_err(|err| IsoError::Read {
                iso: path.to_path_buf(),
                detail: err.to_string(),
            })?;
        }
        let file = File::open(path).map_err(|err| IsoError::Read {
            iso: path.to_path_buf(),
            detail: err.to_string(),
        })?;
        let file: Box<dyn ReadAt> = match mark {
            Some(mark) => Box::new(Following::new(file, mark)),
            None => Box::new(file),
        };
        let checked = trees::check(&Image(file.as_ref())).map_err(|problem| IsoError::Trees {
            iso: path.to_path_buf(),
            problem,
        })?;
        let mut entries = BTreeMap::new();
        flatten(&checked.root, "", &mut entries);
        Ok(Self {
            path: path.to_path_buf(),
            file,
            volume_id: checked.volume_id,
            entries,
        })
    }

    /// The volume identifier, such as `CDROM`.
    pub fn volume_id(&self) -> &str {
        &self.volume_id
    }

    fn failed(&self, detail: String) -> IsoError {
        IsoError::Read {
            iso: self.path.clone(),
            detail,
        }
    }

    /// Where the bytes of the file at `path` start in the image, if it is one.
    pub fn start_of(&self, path: &str) -> Option<u64> {
        let absolute = format!("/{}", path.trim_start_matches('/'));
        let extent = self.entries.get(&absolute)?.extents.first()?;
        Some(u64::from(extent.start) * SECTOR)
    }

    /// Every entry below the root, sorted by path.
    pub fn entries(&self) -> Result<Vec<IsoEntry>, IsoError> {
        Ok(self
            .entries
            .iter()
            .map(|(path, entry)| IsoEntry {
                path: path.clone(),
                kind: entry.kind,
                mode: entry.mode,
                size: entry.size,
                target: entry.target.clone(),
            })
            .collect())
    }

    /// Streams the file at `path` (from the root, with or without the leading `/`) into `out`;
    /// returns the bytes copied.
    pub fn copy_file(&self, path: &str, out: &mut impl Write) -> Result<u64, IsoError> {
        let absolute = format!("/{}", path.trim_start_matches('/'));
        let entry = self
            .entries
            .get(&absolute)
            .ok_or_else(|| self.failed(format!("{path}: no such file in the image")))?;
        if entry.kind != EntryKind::File {
            return Err(IsoError::NotAFile {
                iso: self.path.clone(),
                path: path.to_string(),
            });
        }
        let mut buf = vec![0u8; 256 * 1024];
        let mut total = 0u64;
        for extent in &entry.extents {
            let mut offset = u64::from(extent.start) * SECTOR;
            let mut left = u64::from(extent.len);
            while left > 0 {
                let n = left.min(buf.len() as u64) as usize;
                self.file
                    .read_exact_at(&mut buf[..n], offset)
                    .map_err(|err| self.failed(format!("{path}: {err}")))?;
                out.write_all(&buf[..n])
                    .map_err(|err| self.failed(format!("writing {path} out: {err}")))?;
                offset += n as u64;
                left -= n as u64;
                total += n as u64;
            }
        }
        Ok(total)
    }

    /// The hex sha256 of the file at `path`, streamed.
    pub fn sha256(&self, path: &str) -> Result<String, IsoError> {
        let mut hashing = crate::digest::HashingWriter::new(io::sink());
        self.copy_file(path, &mut hashing)?;
        Ok(hashing.finish().1.hex().to_string())
    }
}
