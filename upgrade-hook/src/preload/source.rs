//! Where the new ISO's image tarballs are read from: the ISO file itself (through the builder's
//! ISO reader, so nothing needs mounting) or a folder where it is mounted or unpacked.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use cks_iso_reader::iso::{EntryKind, IsoImage};

/// The new ISO's `docker/` folder.
#[derive(Debug, Clone)]
pub enum IsoSource {
    /// An ISO file.
    Iso(PathBuf),
    /// A folder holding the ISO's files (`docker/*.tar`).
    Folder(PathBuf),
}

/// The ISO could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// Neither an ISO file nor a folder.
    #[error("--iso {}: {detail}; give the new ISO file or the folder it is mounted on", .path.display())]
    Unusable {
        /// The path given.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// Reading failed.
    #[error("reading {what}: {detail}")]
    Read {
        /// What was read.
        what: String,
        /// Why.
        detail: String,
    },
}

/// Discards the first `skip` bytes written, then passes the rest on.
struct SkipWriter<W> {
    skip: u64,
    inner: W,
}

impl<W: Write> Write for SkipWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let dropped = self.skip.min(buf.len() as u64) as usize;
        self.skip -= dropped as u64;
        self.inner.write_all(&buf[dropped..])?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

fn is_image_tarball(name: &str) -> bool {
    name.ends_with(".tar") && !name.contains('/')
}

impl IsoSource {
    /// A folder when `path` is one, else an ISO file.
    pub fn open(path: &Path) -> Result<Self, SourceError> {
        let unusable = |detail: String| SourceError::Unusable {
            path: path.to_path_buf(),
            detail,
        };
        if path.is_dir() {
            if !path.join("docker").is_dir() {
                return Err(unusable("the folder has no docker/ folder".to_string()));
            }
            return Ok(IsoSource::Folder(path.to_path_buf()));
        }
        if !path.is_file() {
            return Err(unusable("no such file or folder".to_string()));
        }
        IsoImage::open(path).map_err(|e| unusable(e.to_string()))?;
        Ok(IsoSource::Iso(path.to_path_buf()))
    }

    /// The `docker/*.tar` file names, sorted.
    pub fn tarballs(&self) -> Result<Vec<String>, SourceError> {
        let read = |detail: String| SourceError::Read {
            what: "the ISO's docker/ folder".to_string(),
            detail,
        };
        let mut names: Vec<String> = match self {
            IsoSource::Folder(dir) => std::fs::read_dir(dir.join("docker"))
                .map_err(|e| read(e.to_string()))?
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| is_image_tarball(n))
                .collect(),
            IsoSource::Iso(path) => IsoImage::open(path)
                .and_then(|image| image.entries())
                .map_err(|e| read(e.to_string()))?
                .into_iter()
                .filter(|e| e.kind == EntryKind::File)
                .filter_map(|e| e.path.strip_prefix("/docker/").map(str::to_string))
                .filter(|n| is_image_tarball(n))
                .collect(),
        };
        names.sort();
        Ok(names)
    }

    /// The root file `name` (such as `provider.yaml`), when the ISO has it; refused when larger
    /// than `max` bytes.
    pub fn small_file(&self, name: &str, max: u64) -> Result<Option<Vec<u8>>, SourceError> {
        let read = |detail: String| SourceError::Read {
            what: name.to_string(),
            detail,
        };
        let bytes = match self {
            IsoSource::Folder(dir) => {
                let path = dir.join(name);
                if !path.is_file() {
                    return Ok(None);
                }
                let mut bytes = Vec::new();
                File::open(&path)
                    .and_then(|f| f.take(max + 1).read_to_end(&mut bytes))
                    .map_err(|e| read(e.to_string()))?;
                bytes
            }
            IsoSource::Iso(path) => {
                let image = IsoImage::open(path).map_err(|e| read(e.to_string()))?;
                let inside = format!("/{name}");
                let present = image
                    .entries()
                    .map_err(|e| read(e.to_string()))?
                    .iter()
                    .any(|e| e.path == inside && e.kind == EntryKind::File && e.size <= max + 1);
                if !present {
                    return Ok(None);
                }
                let mut bytes = Vec::new();
                image
                    .copy_file(&inside, &mut bytes)
                    .map_err(|e| read(e.to_string()))?;
                bytes
            }
        };
        if bytes.len() as u64 > max {
            return Err(read(format!("larger than {max} bytes")));
        }
        Ok(Some(bytes))
    }

    /// The tarball `name`'s bytes from `offset` on.
    pub fn reader(&self, name: &str, offset: u64) -> Result<Box<dyn Read + Send>, SourceError> {
        let read = |detail: String| SourceError::Read {
            what: format!("docker/{name}"),
            detail,
        };
        match self {
            IsoSource::Folder(dir) => {
                let mut file =
                    File::open(dir.join("docker").join(name)).map_err(|e| read(e.to_string()))?;
                file.seek(SeekFrom::Start(offset))
                    .map_err(|e| read(e.to_string()))?;
                Ok(Box::new(file))
            }
            IsoSource::Iso(path) => {
                let (reader, writer) = io::pipe().map_err(|e| read(e.to_string()))?;
                let path = path.clone();
                let inside = format!("/docker/{name}");
                std::thread::spawn(move || {
                    let mut out = SkipWriter {
                        skip: offset,
                        inner: writer,
                    };
                    // A failure closes the pipe early; the receiver's checksum then fails.
                    if let Err(error) =
                        IsoImage::open(&path).and_then(|image| image.copy_file(&inside, &mut out))
                    {
                        tracing::debug!(%error, "reading {inside} from the ISO");
                    }
                });
                Ok(Box::new(reader))
            }
        }
    }
}
