//! Reading a file while it is being written: the writer publishes how many bytes have landed
//! ([`Watermark`]), and a reader of the same file ([`Following`]) waits for the bytes it asks for
//! instead of reading past the end. So a check of what streams in (an ISO from the cache
//! registry) runs beside the transfer instead of after it, without a second copy in memory.
//!
//! A transfer that starts again from the beginning (its server did not resume) may write other
//! bytes where the reader has already been: the watermark then counts a restart, and every
//! read from then on fails, so a check that followed the first attempt is never taken for one
//! of the file as it ends up.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// Where a file being written stands.
#[derive(Debug, Default)]
struct Mark {
    /// Bytes landed from the start of the file.
    landed: u64,
    /// Whether the writer started over, or stopped before the end.
    spoilt: bool,
    /// Whether the writer is done (the file is complete, or will not be).
    ended: bool,
}

/// What a writer publishes of the file it writes, for [`Following`] readers.
#[derive(Debug, Default)]
pub struct Watermark {
    mark: Mutex<Mark>,
    moved: Condvar,
}

impl Watermark {
    /// A file nothing is written to yet.
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    fn lock(&self) -> MutexGuard<'_, Mark> {
        self.mark
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The first `landed` bytes of the file are written (and readable).
    pub fn landed(&self, landed: u64) {
        let mut mark = self.lock();
        mark.landed = mark.landed.max(landed);
        self.moved.notify_all();
    }

    /// The writer starts over from the beginning: what readers saw may be overwritten.
    pub fn restarted(&self) {
        let mut mark = self.lock();
        mark.spoilt = true;
        self.moved.notify_all();
    }

    /// The writer is done: `complete` when the whole file is written and checked.
    pub fn ended(&self, complete: bool) {
        let mut mark = self.lock();
        mark.ended = true;
        mark.spoilt |= !complete;
        self.moved.notify_all();
    }

    /// Whether the writer started over or did not complete (a check that followed it must be
    /// run again, or the file not used).
    pub fn spoilt(&self) -> bool {
        self.lock().spoilt
    }

    /// Waits until the first `end` bytes have landed; an error when the writer started over or
    /// ended short of them.
    pub fn wait_for(&self, end: u64) -> io::Result<()> {
        let mut mark = self.lock();
        loop {
            if mark.spoilt {
                return Err(io::Error::other(
                    "the transfer started over or failed while it was read",
                ));
            }
            if mark.landed >= end {
                return Ok(());
            }
            if mark.ended {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("the transfer ended before byte {end}"),
                ));
            }
            mark = self
                .moved
                .wait(mark)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }
}

/// Positioned reads of a file, whole or being written.
pub trait ReadAt: Send + Sync {
    /// Fills `buf` from `offset`.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;
}

impl ReadAt for File {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        FileExt::read_exact_at(self, buf, offset)
    }
}

/// A file being written, read behind its writer.
#[derive(Debug)]
pub struct Following {
    file: File,
    mark: Arc<Watermark>,
}

impl Following {
    /// Reads `file` as the writer publishing `mark` writes it.
    pub fn new(file: File, mark: Arc<Watermark>) -> Self {
        Following { file, mark }
    }
}

impl ReadAt for Following {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.mark.wait_for(offset + buf.len() as u64)?;
        FileExt::read_exact_at(&self.file, buf, offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_reader_waits_for_the_bytes_it_asks_for_and_gets_them() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("f");
        let mut writer = File::create(&path).expect("create");
        let mark = Watermark::new();
        let reader = Following::new(File::open(&path).expect("open"), mark.clone());
        std::thread::scope(|scope| {
            let read = scope.spawn(|| {
                let mut buf = [0u8; 4];
                reader.read_exact_at(&mut buf, 6).map(|()| buf)
            });
            for piece in [b"0123".as_slice(), b"4567", b"89"] {
                writer.write_all(piece).expect("write");
                let landed = writer.metadata().expect("meta").len();
                mark.landed(landed);
            }
            assert_eq!(read.join().expect("reader").expect("read"), *b"6789");
        });
    }

    #[test]
    fn a_restart_or_a_short_end_fails_the_reads() {
        let mark = Watermark::new();
        mark.landed(10);
        mark.restarted();
        assert!(
            mark.wait_for(5).is_err(),
            "what was read may be overwritten"
        );
        assert!(mark.spoilt());
        let short = Watermark::new();
        short.landed(10);
        short.ended(true);
        assert!(short.wait_for(10).is_ok());
        assert_eq!(
            short.wait_for(11).map_err(|e| e.kind()),
            Err(io::ErrorKind::UnexpectedEof)
        );
        let failed = Watermark::new();
        failed.ended(false);
        assert!(failed.spoilt());
    }
}
