//! A sha256 whose progress can be written down and checked again in parallel: the state of the
//! hash (its eight words) at block-aligned offsets of a file, its checkpoints. Hashing a file
//! from one checkpoint to the next, on as many threads as there are cores, and finding each
//! segment ending in the state the next one starts from proves, link by link from the standard
//! initial state, that the last segment's digest is the sha256 of the whole file: every byte is
//! read once and hashed once, on every core, and a checkpoint that lies only makes the proof
//! fail. The compression function is `sha2`'s (SHA extensions where the CPU has them); the
//! padding is the standard's (FIPS 180-4, 5.1.1), written here because `sha2` does not expose
//! a hash that starts from a given state.

use std::fmt;
use std::io::{self, Read};
use std::path::Path;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use sha2::block_api::compress256;

use super::sha256_count::Digested;

/// SHA-256's initial hash value (FIPS 180-4, 5.3.3).
const INITIAL: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// Bytes between two checkpoints a writer records: small enough that a file of a few hundred
/// MiB splits into many more segments than cores, large enough that the list stays short.
pub const CHECKPOINT_EVERY: u64 = 16 << 20;

/// The most checkpoints a kept list may hold (a list is read from a cache: bounded).
pub const MAX_CHECKPOINTS: usize = 1 << 16;

/// The bytes read at a time by each thread of [`verify_file`] (stays in the core's cache).
const READ_CHUNK: usize = 256 * 1024;

/// The state of a sha256 after the first `offset` bytes of its input (`offset` a multiple of
/// 64).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checkpoint {
    /// The bytes hashed so far.
    pub offset: u64,
    /// The hash's eight words after them.
    pub state: [u32; 8],
}

impl fmt::Display for Checkpoint {
    /// `<offset> <64 hex digits>`, one checkpoint a line in a kept list.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.offset)?;
        f.write_str(" ")?;
        for word in self.state {
            write!(f, "{word:08x}")?;
        }
        Ok(())
    }
}

/// A checkpoint line that does not read as one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a sha256 checkpoint must read `<offset, a multiple of 64> <64 hex digits>`, not {0:?}")]
pub struct CheckpointError(String);

impl FromStr for Checkpoint {
    type Err = CheckpointError;

    fn from_str(line: &str) -> Result<Self, Self::Err> {
        let bad = || CheckpointError(line.chars().take(100).collect());
        let (offset, words) = line.trim().split_once(' ').ok_or_else(bad)?;
        let offset: u64 = offset.parse().map_err(|_| bad())?;
        if !offset.is_multiple_of(64)
            || words.len() != 64
            || !words.bytes().all(|b| b.is_ascii_hexdigit())
        {
            return Err(bad());
        }
        let mut state = [0u32; 8];
        for (i, word) in state.iter_mut().enumerate() {
            *word = u32::from_str_radix(&words[i * 8..i * 8 + 8], 16).map_err(|_| bad())?;
        }
        Ok(Checkpoint { offset, state })
    }
}

/// A sha256 in progress that can tell its state at block boundaries and start from one.
#[derive(Debug, Clone)]
pub struct Sha256Chain {
    state: [u32; 8],
    /// Bytes given so far.
    len: u64,
    /// The bytes of a block not yet complete.
    block: [u8; 64],
    filled: usize,
}

impl Default for Sha256Chain {
    fn default() -> Self {
        Self::new()
    }
}

impl Sha256Chain {
    /// A sha256 of nothing yet.
    pub fn new() -> Self {
        Self::resume(Checkpoint {
            offset: 0,
            state: INITIAL,
        })
    }

    /// A sha256 that has already hashed `at.offset` bytes, ending in `at.state`.
    pub fn resume(at: Checkpoint) -> Self {
        Sha256Chain {
            state: at.state,
            len: at.offset,
            block: [0; 64],
            filled: 0,
        }
    }

    /// The bytes given so far.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether nothing was given yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The checkpoint here, when the bytes so far end on a block boundary.
    pub fn checkpoint(&self) -> Option<Checkpoint> {
        (self.filled == 0).then_some(Checkpoint {
            offset: self.len,
            state: self.state,
        })
    }

    /// Hashes `bytes` next.
    pub fn update(&mut self, mut bytes: &[u8]) {
        self.len += bytes.len() as u64;
        if self.filled > 0 {
            let take = (64 - self.filled).min(bytes.len());
            self.block[self.filled..self.filled + take].copy_from_slice(&bytes[..take]);
            self.filled += take;
            bytes = &bytes[take..];
            if self.filled < 64 {
                return;
            }
            compress256(&mut self.state, &[self.block]);
            self.filled = 0;
        }
        let (blocks, rest) = bytes.as_chunks::<64>();
        if !blocks.is_empty() {
            compress256(&mut self.state, blocks);
        }
        self.block[..rest.len()].copy_from_slice(rest);
        self.filled = rest.len();
    }

    /// The sha256 of everything given, lower-case hex.
    pub fn finish_hex(mut self) -> String {
        let bits = self.len.wrapping_mul(8);
        let mut tail = [0u8; 128];
        tail[..self.filled].copy_from_slice(&self.block[..self.filled]);
        tail[self.filled] = 0x80;
        let blocks = if self.filled < 56 { 1 } else { 2 };
        tail[blocks * 64 - 8..blocks * 64].copy_from_slice(&bits.to_be_bytes());
        let (tail, _) = tail[..blocks * 64].as_chunks::<64>();
        compress256(&mut self.state, tail);
        self.state.iter().map(|w| format!("{w:08x}")).collect()
    }
}

/// A sha256 that notes a checkpoint at the first block boundary past every
/// [`CHECKPOINT_EVERY`] bytes (and one at 0), for [`verify_file`] to check the same bytes again.
#[derive(Debug, Clone)]
pub struct Noted {
    hash: Sha256Chain,
    points: Vec<Checkpoint>,
}

impl Default for Noted {
    fn default() -> Self {
        Self::new()
    }
}

impl Noted {
    /// Nothing hashed yet.
    pub fn new() -> Self {
        let hash = Sha256Chain::new();
        Noted {
            points: hash.checkpoint().into_iter().collect(),
            hash,
        }
    }

    /// Hashes `bytes` next.
    pub fn update(&mut self, bytes: &[u8]) {
        self.hash.update(bytes);
        let last = self.points.last().map_or(0, |p| p.offset);
        if self.hash.len() - last >= CHECKPOINT_EVERY
            && let Some(point) = self.hash.checkpoint()
        {
            self.points.push(point);
        }
    }

    /// The digest of everything hashed and the checkpoints noted (none at the very end: it
    /// would say nothing the digest does not).
    pub fn finish(self) -> (Digested, Vec<Checkpoint>) {
        let bytes = self.hash.len();
        let mut points = self.points;
        points.retain(|p| p.offset < bytes || p.offset == 0);
        (Digested::new(self.hash.finish_hex(), bytes), points)
    }
}

/// The sha256 of the file at `path` and its checkpoints, read once in chunks.
pub fn noted_file(path: &Path) -> io::Result<(Digested, Vec<Checkpoint>)> {
    let mut file = std::fs::File::open(path)?;
    let mut hash = Noted::new();
    let mut buffer = vec![0u8; READ_CHUNK];
    loop {
        let n = file.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hash.update(&buffer[..n]);
    }
    Ok(hash.finish())
}

/// Why a file does not hash to what its checkpoints promise.
#[derive(Debug, thiserror::Error)]
pub enum ChainError {
    /// The list itself is not a chain over this file.
    #[error("its sha256 checkpoints do not fit a file of {size} bytes")]
    Misfit {
        /// The file's size.
        size: u64,
    },
    /// A segment did not end where the next one starts.
    #[error("its bytes from offset {offset} do not hash to the state kept for offset {next}")]
    Broken {
        /// Where the segment starts.
        offset: u64,
        /// Where the next starts.
        next: u64,
    },
    /// The file could not be read.
    #[error("reading it: {0}")]
    Read(#[from] io::Error),
    /// The caller stopped the proof before it ended.
    #[error("its proof was stopped before it ended")]
    Stopped,
}

/// The bytes of segment `index` (from its checkpoint to the next, or to `size`); an empty
/// range past the last.
fn segment(checkpoints: &[Checkpoint], index: usize, size: u64) -> (u64, u64) {
    match checkpoints.get(index) {
        Some(start) => (
            start.offset,
            checkpoints.get(index + 1).map_or(size, |c| c.offset),
        ),
        None => (size, size),
    }
}

/// The sha256 of the file at `path`, hashed from `checkpoints` (in order, the first at 0 with
/// the initial state, each within the file) on up to `threads` threads, every segment checked
/// against the next checkpoint: the digest (hex) when every link holds.
pub fn verify_file(
    path: &Path,
    checkpoints: &[Checkpoint],
    threads: usize,
) -> Result<String, ChainError> {
    let file = std::fs::File::open(path)?;
    verify_open(&file, checkpoints, threads, &AtomicBool::new(false))
}

/// [`verify_file`] over a file already open (every thread reads it at its own offsets, so
/// what is proven is the file this handle names, whatever its path names meanwhile); ends
/// with [`ChainError::Stopped`] soon after `stop` is set.
pub fn verify_open(
    file: &std::fs::File,
    checkpoints: &[Checkpoint],
    threads: usize,
    stop: &AtomicBool,
) -> Result<String, ChainError> {
    use std::os::unix::fs::FileExt;
    let size = file.metadata()?.len();
    let fits = checkpoints.first()
        == Some(&Checkpoint {
            offset: 0,
            state: INITIAL,
        })
        && checkpoints.len() <= MAX_CHECKPOINTS
        && checkpoints.windows(2).all(|w| w[0].offset < w[1].offset)
        && checkpoints.last().is_some_and(|c| c.offset <= size);
    if !fits {
        return Err(ChainError::Misfit { size });
    }
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let last = std::sync::Mutex::new(None);
    let first_error = std::sync::Mutex::new(None);
    let work = || -> Result<(), ChainError> {
        let mut buffer = vec![0u8; READ_CHUNK];
        while !failed.load(Ordering::Relaxed) {
            if stop.load(Ordering::Relaxed) {
                return Err(ChainError::Stopped);
            }
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(start) = checkpoints.get(index) else {
                break;
            };
            let end = checkpoints.get(index + 1).map_or(size, |c| c.offset);
            // The segment asked of the disk as a whole, and the one this thread likely takes
            // next: the kernel reads them while this one is hashed (best effort; a file the
            // page cache holds already costs nothing).
            for (from, to) in [
                (start.offset, end),
                segment(checkpoints, index + threads, size),
            ] {
                let _ = rustix::fs::fadvise(
                    file,
                    from,
                    std::num::NonZeroU64::new(to.saturating_sub(from)),
                    rustix::fs::Advice::WillNeed,
                );
            }
            let mut hash = Sha256Chain::resume(*start);
            let mut at = start.offset;
            while at < end {
                let want = (end - at).min(READ_CHUNK as u64) as usize;
                file.read_exact_at(&mut buffer[..want], at)?;
                hash.update(&buffer[..want]);
                at += want as u64;
            }
            match checkpoints.get(index + 1) {
                Some(next) => {
                    if hash.checkpoint() != Some(*next) {
                        return Err(ChainError::Broken {
                            offset: start.offset,
                            next: next.offset,
                        });
                    }
                }
                None => {
                    if let Ok(mut last) = last.lock() {
                        *last = Some(hash.finish_hex());
                    }
                }
            }
        }
        Ok(())
    };
    let run = || {
        if let Err(error) = work() {
            failed.store(true, Ordering::Relaxed);
            if let Ok(mut first) = first_error.lock() {
                first.get_or_insert(error);
            }
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..threads.clamp(1, checkpoints.len()) {
            scope.spawn(run);
        }
        run();
    });
    if let Some(error) = first_error.into_inner().ok().flatten() {
        return Err(error);
    }
    last.into_inner()
        .ok()
        .flatten()
        .ok_or(ChainError::Misfit { size })
}

#[cfg(test)]
mod tests;
