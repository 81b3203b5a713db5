//! The image file written around the page cache (`O_DIRECT`) where the file system allows it.
//!
//! An ISO is written once, in order, and this process never reads it back; sending it through
//! the page cache would only cost a copy into cache pages, evict what the build host had cached
//! (the tree the image is packed from among it) and leave gigabytes of dirty pages for the
//! kernel to write later. Direct writes go from the writer's buffers to the disk. They need the
//! buffer's address, the file offset and the length aligned to the device's logical block: the
//! buffers here are aligned to [`ALIGN`], and every write is whole 2048-byte sectors. A file
//! system or device that refuses direct writes (tmpfs on older kernels, 4096-byte logical
//! sectors and a write of an odd sector count, ...) answers `EINVAL`; the file then goes on
//! through the page cache, and the write is made again, so the image is the same either way.

use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};

/// Alignment of the buffers' first byte: a page, which satisfies every logical block size.
pub const ALIGN: usize = 4096;

/// A fixed-capacity byte buffer whose first byte is [`ALIGN`]-aligned, so direct writes can
/// take it as it is.
pub struct AlignedBuffer {
    bytes: Vec<u8>,
    start: usize,
    len: usize,
    capacity: usize,
}

impl AlignedBuffer {
    /// An empty buffer of `capacity` bytes.
    pub fn new(capacity: usize) -> Self {
        // One allocation, never grown, with room to start at an aligned address inside it.
        let bytes = vec![0u8; capacity + ALIGN];
        let start = bytes.as_ptr().align_offset(ALIGN).min(ALIGN);
        AlignedBuffer {
            bytes,
            start,
            len: 0,
            capacity,
        }
    }

    /// Copies as much of `src` as fits; returns how many bytes it took.
    pub fn fill(&mut self, src: &[u8]) -> usize {
        let take = (self.capacity - self.len).min(src.len());
        let at = self.start + self.len;
        self.bytes[at..at + take].copy_from_slice(&src[..take]);
        self.len += take;
        take
    }

    /// Whether no more bytes fit.
    pub fn is_full(&self) -> bool {
        self.len == self.capacity
    }

    /// Whether it holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Empties it for reuse.
    pub fn clear(&mut self) {
        self.len = 0;
    }
}

impl AsRef<[u8]> for AlignedBuffer {
    fn as_ref(&self) -> &[u8] {
        &self.bytes[self.start..self.start + self.len]
    }
}

/// The image file, written directly while the file system lets it.
pub struct DirectFile {
    file: File,
    direct: bool,
}

impl DirectFile {
    /// Turns direct writes on for `file` when the system has them; otherwise it is written as
    /// any file is.
    pub fn new(file: File) -> Self {
        let direct = set_direct(&file, true).is_ok();
        DirectFile { file, direct }
    }

    /// Whether writes still bypass the page cache.
    pub fn is_direct(&self) -> bool {
        self.direct
    }

    /// Writes all of `bytes` at the current offset; a refused direct write turns direct writes
    /// off and is made again through the page cache.
    pub fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.direct {
            let position = self.file.stream_position()?;
            match self.file.write_all(bytes) {
                Ok(()) => return Ok(()),
                Err(err) if err.raw_os_error() == Some(rustix::io::Errno::INVAL.raw_os_error()) => {
                    // Nothing or part was written: write it all again from where it began.
                    set_direct(&self.file, false)?;
                    self.direct = false;
                    self.file.seek(SeekFrom::Start(position))?;
                }
                Err(err) => return Err(err),
            }
        }
        self.file.write_all(bytes)
    }

    /// Moves the offset `count` bytes on, leaving a hole.
    pub fn skip(&mut self, count: u64) -> io::Result<()> {
        let count = i64::try_from(count).map_err(io::Error::other)?;
        self.file.seek(SeekFrom::Current(count)).map(drop)
    }

    /// Sets the file's length and gives the file back, direct writes off again.
    pub fn finish(mut self, size: u64) -> io::Result<File> {
        if self.direct {
            set_direct(&self.file, false)?;
        }
        self.file.flush()?;
        self.file.set_len(size)?;
        Ok(self.file)
    }
}

#[cfg(target_os = "linux")]
fn set_direct(file: &File, on: bool) -> io::Result<()> {
    use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
    let mut flags = fcntl_getfl(file)?;
    flags.set(OFlags::DIRECT, on);
    fcntl_setfl(file, flags)?;
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn set_direct(_file: &File, on: bool) -> io::Result<()> {
    if on {
        Err(io::Error::from(io::ErrorKind::Unsupported))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_starts_aligned_fills_to_its_capacity_and_empties() {
        let mut buffer = AlignedBuffer::new(3 * 2048);
        assert_eq!(buffer.as_ref().as_ptr().align_offset(ALIGN), 0);
        assert!(buffer.is_empty());
        assert_eq!(buffer.fill(&[7; 4096]), 4096);
        assert_eq!(buffer.fill(&[8; 4096]), 2048);
        assert!(buffer.is_full());
        assert_eq!(&buffer.as_ref()[4094..4098], &[7, 7, 8, 8]);
        buffer.clear();
        assert!(buffer.is_empty() && buffer.as_ref().is_empty());
    }

    #[test]
    fn sectors_written_directly_and_a_refused_odd_write_read_back_the_same() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("image");
        let mut out = DirectFile::new(File::create(&path).expect("creates"));
        let mut sectors = AlignedBuffer::new(4 * 2048);
        sectors.fill(&[1; 4 * 2048]);
        out.write_all(sectors.as_ref()).expect("whole sectors");
        out.skip(2048).expect("a hole");
        // An unaligned length is refused by a direct write and made through the page cache.
        out.write_all(&[2; 100]).expect("an odd write");
        assert!(!out.is_direct());
        let file = out.finish(6 * 2048).expect("finishes");
        drop(file);
        let bytes = std::fs::read(&path).expect("reads");
        assert_eq!(bytes.len(), 6 * 2048);
        assert!(bytes[..4 * 2048].iter().all(|&b| b == 1));
        assert!(bytes[4 * 2048..5 * 2048].iter().all(|&b| b == 0));
        assert!(bytes[5 * 2048..5 * 2048 + 100].iter().all(|&b| b == 2));
        assert!(bytes[5 * 2048 + 100..].iter().all(|&b| b == 0));
    }
}
