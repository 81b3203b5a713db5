//! A sha256 computed on a thread of its own from whole buffers handed to it, so hashing
//! overlaps the writing of what is hashed (the ISO writer's output) instead of adding to it.
//! It records the hash's checkpoints on the way ([`super::chain`]), so what it hashed can be
//! checked again later on every core.

use std::io;
use std::sync::mpsc::{Receiver, SyncSender, channel, sync_channel};
use std::thread::JoinHandle;

use super::chain::{Checkpoint, Noted};
use super::sha256_count::Digested;

/// Buffers queued for the thread at most; a feeder that gets ahead waits.
const IN_FLIGHT: usize = 4;

/// Zeros hashed at a time for [`HashThread::zeros`].
const ZERO_RUN: usize = 64 * 1024;

/// What the thread is given, in order.
enum Piece<B> {
    Bytes(B),
    Zeros(u64),
}

/// A sha256 of everything fed to it, computed on its own thread. Buffers (any owned bytes, `B`)
/// come back spent for reuse, so memory stays at a few buffers however much is hashed.
pub struct HashThread<B = Vec<u8>> {
    feed: SyncSender<Piece<B>>,
    spent: Receiver<B>,
    thread: JoinHandle<Noted>,
}

impl<B: AsRef<[u8]> + Send + 'static> HashThread<B> {
    /// Starts the thread.
    pub fn start() -> io::Result<Self> {
        Self::resume(Noted::new(), IN_FLIGHT)
    }

    /// Starts the thread from `hash` (what an earlier thread hashed: see [`Self::stop`]), with
    /// at most `in_flight` buffers queued.
    pub fn resume(hash: Noted, in_flight: usize) -> io::Result<Self> {
        let (feed, pieces) = sync_channel::<Piece<B>>(in_flight);
        let (give_back, spent) = channel();
        let thread = std::thread::Builder::new()
            .name("sha256".to_string())
            .spawn(move || {
                let mut hash = hash;
                let zeros = vec![0u8; ZERO_RUN];
                for piece in pieces {
                    match piece {
                        Piece::Bytes(bytes) => {
                            hash.update(bytes.as_ref());
                            // The feeder may be gone already; the buffer is then dropped.
                            let _ = give_back.send(bytes);
                        }
                        Piece::Zeros(mut count) => {
                            while count > 0 {
                                let take = count.min(ZERO_RUN as u64) as usize;
                                hash.update(&zeros[..take]);
                                count -= take as u64;
                            }
                        }
                    }
                }
                hash
            })?;
        Ok(Self {
            feed,
            spent,
            thread,
        })
    }

    /// Hands `bytes` to the thread (waiting while `IN_FLIGHT` buffers are queued) and returns
    /// a spent buffer, as the thread left it, when one has come back.
    pub fn feed(&mut self, bytes: B) -> io::Result<Option<B>> {
        self.feed.send(Piece::Bytes(bytes)).map_err(|_| stopped())?;
        Ok(self.spent.try_recv().ok())
    }

    /// Hashes `count` zero bytes next, without a buffer of them.
    pub fn zeros(&mut self, count: u64) -> io::Result<()> {
        self.feed.send(Piece::Zeros(count)).map_err(|_| stopped())
    }

    /// Waits for the thread to hash everything fed and returns the digest.
    pub fn finish(self) -> io::Result<Digested> {
        Ok(self.finish_noted()?.0)
    }

    /// Waits for the thread to hash everything fed and returns the digest with the checkpoints
    /// noted on the way (the first at 0), to check the same bytes again with
    /// [`super::chain::verify_file`].
    pub fn finish_noted(self) -> io::Result<(Digested, Vec<Checkpoint>)> {
        Ok(self.stop()?.finish())
    }

    /// Waits for the thread to hash everything fed and returns the hash as it stands, to go on
    /// from (a transfer resumed where it broke off).
    pub fn stop(self) -> io::Result<Noted> {
        drop(self.feed);
        self.thread.join().map_err(|_| stopped())
    }
}

fn stopped() -> io::Error {
    io::Error::other("the sha256 thread stopped")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::Sha256Count;

    #[test]
    fn the_digest_is_the_one_of_the_bytes_and_zeros_in_the_order_fed() {
        let mut whole = Sha256Count::new();
        let mut thread = HashThread::start().expect("start");
        let mut buffer = Vec::with_capacity(1000);
        for round in 0..50u8 {
            buffer.extend(std::iter::repeat_n(round, 1000));
            whole.update(&buffer);
            match thread.feed(buffer).expect("feed") {
                Some(mut spent) => {
                    spent.clear();
                    buffer = spent;
                }
                None => buffer = Vec::with_capacity(1000),
            }
            let zeros = u64::from(round) * 70_001;
            whole.update(&vec![0; zeros as usize]);
            thread.zeros(zeros).expect("zeros");
        }
        let (digested, points) = thread.finish_noted().expect("finish");
        assert_eq!(digested, whole.finish());
        assert_eq!(points.first().map(|p| p.offset), Some(0));
    }
}
