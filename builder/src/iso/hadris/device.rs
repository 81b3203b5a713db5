//! The output device: writes the image sequentially to a file (through the page cache: see
//! [`super::buffer`]) while a thread of its own hashes it.

use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::buffer::Buffer;
use crate::digest::HashThread;
use crate::digest::chain::Checkpoint;
use hadris_io::{Error, ErrorKind, ErrorType};
use hadris_storage::sync::BlockDevice;
use hadris_storage::{BlockIndex, BlockSize};

/// ISO 9660 logical sector size.
pub const SECTOR: u64 = 2048;

/// The block size the writer is given.
const BLOCK: BlockSize = match BlockSize::new(SECTOR as u32) {
    Some(size) => size,
    None => panic!("2048 is not zero"),
};

/// Zero runs of at least this many bytes are skipped (seeked over) rather than written.
const HOLE: usize = 64 * 1024;

/// Bytes gathered before a write reaches the file and the buffer goes to the hash thread.
const BUFFER: usize = 1 << 20;

/// A write-once block device over a file. The writer emits blocks in ascending order; gaps it
/// skips (the system area, padding) are written as zeros, so the file is the whole image and its
/// sha256 is known when the last block is written, with no second pass over the image. Each
/// full buffer is written, then hashed on the hash thread while the next one fills.
pub struct HashingFile {
    out: File,
    buffer: Buffer,
    /// Buffers the hash thread is done with, to fill next.
    spent: Vec<Buffer>,
    hash: HashThread<Buffer>,
    written: u64,
    zeros: Vec<u8>,
    /// Where the bytes written so far are published for a progress display, if anywhere.
    counter: Option<Arc<AtomicU64>>,
}

impl HashingFile {
    /// Wraps a file opened for writing, empty, and starts its hash thread.
    pub fn new(file: File) -> io::Result<Self> {
        Ok(Self {
            out: file,
            buffer: Buffer::new(BUFFER),
            spent: Vec::new(),
            hash: HashThread::start()?,
            written: 0,
            zeros: vec![0; HOLE],
            counter: None,
        })
    }

    /// The same device, publishing the bytes written so far in `counter` (a progress display
    /// reads it).
    pub fn counting(self, counter: Option<Arc<AtomicU64>>) -> Self {
        Self { counter, ..self }
    }

    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        if bytes.len() >= HOLE && is_zero(bytes, &self.zeros) {
            // A hole: a sparse source stays sparse in the image (a 4 GiB test file costs no disk).
            self.drain()?;
            let count = i64::try_from(bytes.len()).map_err(io::Error::other)?;
            self.out.seek(SeekFrom::Current(count))?;
            self.hash.zeros(bytes.len() as u64)?;
        } else {
            let mut rest = bytes;
            while !rest.is_empty() {
                let took = self.buffer.fill(rest);
                rest = &rest[took..];
                if self.buffer.is_full() {
                    self.drain()?;
                }
            }
        }
        self.written += bytes.len() as u64;
        if let Some(counter) = &self.counter {
            counter.store(self.written, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Writes the gathered bytes to the file and hands them to the hash thread.
    fn drain(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        self.out.write_all(self.buffer.as_ref())?;
        let mut next = self.spent.pop().unwrap_or_else(|| Buffer::new(BUFFER));
        next.clear();
        let full = std::mem::replace(&mut self.buffer, next);
        self.spent.extend(self.hash.feed(full)?);
        Ok(())
    }

    fn zero_to(&mut self, end: u64) -> io::Result<()> {
        while self.written < end {
            let take = (end - self.written).min(self.zeros.len() as u64) as usize;
            let zeros = std::mem::take(&mut self.zeros);
            let result = self.put(&zeros[..take]);
            self.zeros = zeros;
            result?;
        }
        Ok(())
    }

    /// Pads the image with zeros to `size` bytes, flushes it and returns the file, the hex
    /// sha256 of everything written and the hash's checkpoints.
    pub fn finish(mut self, size: u64) -> io::Result<(File, String, Vec<Checkpoint>)> {
        self.zero_to(size)?;
        self.drain()?;
        self.out.flush()?;
        self.out.set_len(size)?;
        let file = self.out;
        let (digested, points) = self.hash.finish_noted()?;
        Ok((file, digested.into_hex(), points))
    }
}

/// Whether `bytes` are all zero, compared a chunk at a time with `zeros` (memcmp, fast in every
/// build profile).
fn is_zero(bytes: &[u8], zeros: &[u8]) -> bool {
    bytes
        .chunks(zeros.len())
        .all(|chunk| chunk == &zeros[..chunk.len()])
}

impl ErrorType for HashingFile {
    type Error = io::Error;
}

impl BlockDevice for HashingFile {
    fn block_size(&self) -> BlockSize {
        BLOCK
    }

    fn block_count(&self) -> u64 {
        self.written / SECTOR
    }

    fn max_block_count(&self) -> u64 {
        u64::MAX / SECTOR
    }

    fn writable(&self) -> bool {
        true
    }

    fn read_blocks(&mut self, _first: BlockIndex, _buf: &mut [u8]) -> Result<(), Error<io::Error>> {
        Err(Error::new(
            ErrorKind::Unsupported,
            "the image output is written once and not read back",
        ))
    }

    fn write_blocks(&mut self, first: BlockIndex, buf: &[u8]) -> Result<(), Error<io::Error>> {
        let offset = first.get() * SECTOR;
        if offset < self.written {
            return Err(Error::new(
                ErrorKind::Unsupported,
                "the image output is written in ascending order only",
            ));
        }
        self.zero_to(offset)
            .and_then(|()| self.put(buf))
            .map_err(|err| Error::device(err, "writing the image file failed"))
    }

    fn flush(&mut self) -> Result<(), Error<io::Error>> {
        // Whole buffers only: the image is finished (padded, written out) by `finish`.
        Ok(())
    }
}
