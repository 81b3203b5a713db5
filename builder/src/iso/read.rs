//! Reading an image back with the same library: every entry with its Rock Ridge name, mode and
//! symlink target, and a file's bytes streamed out (so a caller can check sha256s).
//!
//! ```no_run
//! use cks_builder::iso::IsoImage;
//!
//! let image = IsoImage::open("cks.iso".as_ref())?;
//! for entry in image.entries()? {
//!     println!("{:o} {} {}", entry.mode, entry.size, entry.path);
//! }
//! println!("{}", image.sha256("/versions.txt")?);
//! # Ok::<(), cks_builder::iso::IsoError>(())
//! ```

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use hadris_fs::sync::Volume;
use hadris_fs::{FileType, MountOptions, OpenOptions};
use hadris_iso::IsoId;
use hadris_iso::sync::IsoFs;
use hadris_storage::host::FileDevice;

use super::error::IsoError;
use super::mode::EntryKind;

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

/// An ISO image opened for reading (Rock Ridge names when present).
pub struct IsoImage {
    path: PathBuf,
    volume: Volume<IsoFs<FileDevice>>,
    volume_id: String,
}

impl IsoImage {
    /// Opens the image at `path`.
    pub fn open(path: &Path) -> Result<Self, IsoError> {
        let failed = |detail: String| IsoError::Read {
            iso: path.to_path_buf(),
            detail,
        };
        let device = FileDevice::open(path).map_err(|err| failed(err.to_string()))?;
        let fs = IsoFs::mount(device, MountOptions::new()).map_err(|err| {
            failed(format!(
                "not an ISO 9660 image: {}",
                hadris_fs::PathError::from(err)
            ))
        })?;
        let volume_id = String::from_utf8_lossy(fs.info().id(IsoId::Volume))
            .trim_end()
            .to_string();
        Ok(Self {
            path: path.to_path_buf(),
            volume: Volume::new(fs),
            volume_id,
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

    /// Every entry below the root, sorted by path.
    pub fn entries(&self) -> Result<Vec<IsoEntry>, IsoError> {
        let walk = self
            .volume
            .walk("/")
            .map_err(|err| self.failed(err.to_string()))?;
        let mut out = Vec::new();
        for item in walk {
            let item = item.map_err(|err| self.failed(err.to_string()))?;
            let raw = String::from_utf8_lossy(item.path()).into_owned();
            let path = if raw.starts_with('/') {
                raw
            } else {
                format!("/{raw}")
            };
            let meta = item.entry().metadata();
            let kind = match item.entry().file_type() {
                FileType::Dir => EntryKind::Dir,
                FileType::Symlink => EntryKind::Symlink,
                _ => EntryKind::File,
            };
            let target = match kind {
                EntryKind::Symlink => Some(
                    self.volume
                        .read_link(path.as_bytes())
                        .map(|t| String::from_utf8_lossy(&t).into_owned())
                        .map_err(|err| self.failed(format!("{path}: {err}")))?,
                ),
                _ => None,
            };
            out.push(IsoEntry {
                size: if kind == EntryKind::File {
                    meta.len()
                } else {
                    0
                },
                mode: meta.permissions().bits() & 0o7777,
                kind,
                target,
                path,
            });
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// Streams the file at `path` into `out`; returns the bytes copied.
    pub fn copy_file(&self, path: &str, out: &mut impl Write) -> Result<u64, IsoError> {
        let meta = self
            .volume
            .symlink_metadata(path.as_bytes())
            .map_err(|err| self.failed(format!("{path}: {err}")))?;
        if !meta.file_type().is_file() {
            return Err(IsoError::NotAFile {
                iso: self.path.clone(),
                path: path.to_string(),
            });
        }
        let mut file = self
            .volume
            .open(path.as_bytes(), OpenOptions::new().read())
            .map_err(|err| self.failed(format!("{path}: {err}")))?;
        let mut buf = vec![0u8; 256 * 1024];
        let mut total = 0u64;
        loop {
            let n = match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(err) => return Err(self.failed(format!("{path}: {err}"))),
            };
            out.write_all(&buf[..n])
                .map_err(|err| self.failed(format!("writing {path} out: {err}")))?;
            total += n as u64;
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
