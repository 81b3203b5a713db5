//! Every sha256 of cks-iso: a hasher that counts bytes ([`Sha256Count`]), a writer
//! that hashes what passes through it ([`HashingWriter`]), a file's digest ([`sha256_file`]), a
//! cache key over several parts ([`cache_key`]), a sha256 on a thread of its own
//! ([`HashThread`]); and, re-exported from [`cks_pinning::digest`], what a sha256 looks like.
//!
//! ```
//! use cks_iso_reader::digest::{HashingWriter, cache_key, sha256_hex};
//! use std::io::Write;
//! let mut writer = HashingWriter::new(Vec::new());
//! writer.write_all(b"abc").expect("write");
//! let (bytes, digest) = writer.finish();
//! assert_eq!((bytes.len(), digest.hex().to_string()), (3, sha256_hex(b"abc")));
//! assert_ne!(cache_key(&["a", "b"]), cache_key(&["ab"]));
//! ```

use std::io::{self, Read, Write};
use std::path::Path;

pub mod chain;
mod hash_beside;
mod hash_thread;
mod sha256_count;
pub use hash_beside::{HashBeside, HashBesideError};
pub use hash_thread::HashThread;
pub use sha256_count::{Digested, Sha256Count};

pub use cks_pinning::digest::{is_sha256_digest, is_sha256_hex, is_sha256_lower_hex};

/// A writer that hashes and counts every byte written through it to `inner`.
#[derive(Debug)]
pub struct HashingWriter<W> {
    inner: W,
    hash: Sha256Count,
}

impl<W> HashingWriter<W> {
    /// Wraps `inner`.
    pub fn new(inner: W) -> Self {
        HashingWriter {
            inner,
            hash: Sha256Count::new(),
        }
    }

    /// The wrapped writer.
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// The wrapped writer and the digest of what was written.
    pub fn finish(self) -> (W, Digested) {
        (self.inner, self.hash.finish())
    }
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

pub use cks_pinning::digest::sha256_hex;

/// The sha256 of the file at `path`, read in chunks.
pub fn sha256_file(path: &Path) -> io::Result<Digested> {
    sha256_reader(std::fs::File::open(path)?)
}

/// The sha256 of everything `reader` gives until its end, read in chunks of 1 MiB.
pub fn sha256_reader(mut reader: impl Read) -> io::Result<Digested> {
    let mut hash = Sha256Count::new();
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let n = reader.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hash.update(&buffer[..n]);
    }
    Ok(hash.finish())
}

/// A file name for a cache entry described by `parts`: the sha256 of each part followed by a
/// newline (so `["a", "b"]` and `["ab"]` differ).
pub fn cache_key(parts: &[&str]) -> String {
    let mut hash = Sha256Count::new();
    for part in parts {
        hash.update(part.as_bytes());
        hash.update(b"\n");
    }
    hash.finish().into_hex()
}
