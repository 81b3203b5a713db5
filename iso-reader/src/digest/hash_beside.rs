//! A stream's sha256 taken beside the work that streams it: on a thread of its own when one can
//! start.

use std::io;

use super::hash_thread::HashThread;
use super::sha256_count::{Digested, Sha256Count};

/// Why the sha256 taken beside cannot be had.
#[derive(Debug, thiserror::Error)]
pub enum HashBesideError {
    /// The hashing thread stopped before it hashed everything fed.
    #[error("{0}")]
    Thread(#[from] io::Error),
}

/// The sha256 of a whole stream, on a thread of its own (beside other hashing on the writer's
/// thread), or here when no thread can be started.
pub struct HashBeside(Inner);

enum Inner {
    Thread(HashThread, Vec<Vec<u8>>),
    Here(Sha256Count),
}

impl HashBeside {
    /// A hash started on a thread of its own, or here when no thread can be started.
    pub fn start() -> Self {
        HashBeside(match HashThread::start() {
            Ok(thread) => Inner::Thread(thread, Vec::new()),
            Err(_) => Inner::Here(Sha256Count::new()),
        })
    }

    /// Hashes `buf` (copied into a spare buffer for the thread).
    pub fn update(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.0 {
            Inner::Here(hash) => hash.update(buf),
            Inner::Thread(thread, spare) => {
                let mut bytes = spare.pop().unwrap_or_default();
                bytes.clear();
                bytes.extend_from_slice(buf);
                if let Some(back) = thread.feed(bytes)? {
                    spare.push(back);
                }
            }
        }
        Ok(())
    }

    /// The digest and length of everything hashed.
    pub fn finish(self) -> Result<Digested, HashBesideError> {
        match self.0 {
            Inner::Here(hash) => Ok(hash.finish()),
            Inner::Thread(thread, _) => Ok(thread.finish()?),
        }
    }
}
