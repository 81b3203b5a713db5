//! Reading one answer of a server whole, at most a limit: the CloudStack API, the Kubernetes API
//! and etcd answers of `cks-rollout`, `cks-iso register` and `cks-upgrade-hook` all go through
//! [`read_answer`], so an answer that never ends is refused at the limit instead of growing
//! memory with whatever the server sends. The limit is [`DEFAULT_MAX_ANSWER`] unless raised with
//! the `--max-answer-size` flag ([`MAX_ANSWER_FLAG`]) every one of those binaries takes. The read
//! deadline is the reader's own (each blocking read of the HTTP client waits at most its request
//! timeout, so an answer that stops making progress ends there).
//!
//! ```
//! use cks_pinning::answer_read::{AnswerReadError, read_answer};
//! let body = read_answer(&b"{\"count\":1}"[..], 64).expect("short enough");
//! assert_eq!(body, b"{\"count\":1}");
//! let endless = std::io::repeat(b'[');
//! let err = read_answer(endless, 1 << 20).expect_err("never ends");
//! assert_eq!(err, AnswerReadError::TooLarge { limit: 1 << 20 });
//! assert!(err.to_string().contains("--max-answer-size"));
//! ```

use std::io::{ErrorKind, Read};

use crate::limits::show_size;

/// How much of one answer is read when no `--max-answer-size` is given: far above a page of
/// 500 CloudStack VMs (a few MiB) or a node list of a large cluster, and low enough that a
/// cut-off endless answer keeps the process well under 100 MiB.
pub const DEFAULT_MAX_ANSWER: u64 = 32 << 20;

/// The flag that raises [`DEFAULT_MAX_ANSWER`], named in [`AnswerReadError::TooLarge`].
pub const MAX_ANSWER_FLAG: &str = "--max-answer-size";

/// The size of each buffer an answer is read into: an answer cut at the limit never held more
/// than the limit and one buffer.
const CHUNK: usize = 1 << 20;

/// Why an answer could not be read whole.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerReadError {
    /// The answer ran past the limit; the rest was never read.
    #[error(
        "the answer is larger than the limit of {}; raise it with {MAX_ANSWER_FLAG} SIZE (e.g. {MAX_ANSWER_FLAG} 128MiB)",
        show_size(*limit)
    )]
    TooLarge {
        /// The limit in bytes.
        limit: u64,
    },
    /// No byte arrived within the reader's deadline.
    #[error(
        "the answer stopped arriving after {received} bytes (no progress within the request timeout)"
    )]
    Stalled {
        /// Bytes received before it stopped.
        received: u64,
    },
    /// The connection broke or the body could not be decoded.
    #[error("the answer broke off after {received} bytes: {reason}")]
    Broken {
        /// Bytes received before it broke.
        received: u64,
        /// What the reader reported.
        reason: String,
    },
}

impl AnswerReadError {
    /// True when the answer ran past the limit (asking again gets the same answer); false when
    /// it stalled or broke (asking again may help).
    pub fn is_too_large(&self) -> bool {
        matches!(self, AnswerReadError::TooLarge { .. })
    }
}

/// The whole of `reader`, at most `limit` bytes: one byte more and the read stops with
/// [`AnswerReadError::TooLarge`]. The answer is gathered in buffers of 1 MiB and joined once
/// complete, so a refused answer never held more than the limit.
pub fn read_answer(mut reader: impl Read, limit: u64) -> Result<Vec<u8>, AnswerReadError> {
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    let mut received: u64 = 0;
    loop {
        let mut chunk = vec![0u8; CHUNK];
        let mut filled = 0;
        while filled < CHUNK {
            match reader.read(&mut chunk[filled..]) {
                Ok(0) => break,
                Ok(n) => {
                    filled += n;
                    received += n as u64;
                    if received > limit {
                        return Err(AnswerReadError::TooLarge { limit });
                    }
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == ErrorKind::TimedOut || is_timeout(&e) => {
                    return Err(AnswerReadError::Stalled { received });
                }
                Err(e) => {
                    return Err(AnswerReadError::Broken {
                        received,
                        reason: causes(&e),
                    });
                }
            }
        }
        chunk.truncate(filled);
        let last = filled < CHUNK;
        chunks.push(chunk);
        if last {
            break;
        }
    }
    if chunks.len() == 1 {
        return Ok(chunks.pop().unwrap_or_default());
    }
    let mut body = Vec::with_capacity(received as usize);
    for chunk in chunks.drain(..) {
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// An I/O error whose causes say it timed out (the HTTP client wraps its timeout in another
/// error kind).
fn is_timeout(error: &std::io::Error) -> bool {
    causes(error).to_ascii_lowercase().contains("timed out")
}

fn causes(error: &std::io::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_at_the_limit_is_read_and_one_byte_more_refused() {
        let body = vec![b'x'; 3 * CHUNK + 17];
        let limit = body.len() as u64;
        assert_eq!(read_answer(&body[..], limit), Ok(body.clone()));
        assert_eq!(
            read_answer(&body[..], limit - 1),
            Err(AnswerReadError::TooLarge { limit: limit - 1 })
        );
        assert_eq!(read_answer(&b""[..], 0), Ok(Vec::new()));
    }

    #[test]
    fn a_timed_out_read_is_a_stall_and_a_broken_one_names_its_cause() {
        struct Failing(ErrorKind);
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(std::io::Error::new(self.0, "operation timed out"))
            }
        }
        assert_eq!(
            read_answer(Failing(ErrorKind::TimedOut), 10),
            Err(AnswerReadError::Stalled { received: 0 })
        );
        assert_eq!(
            read_answer(Failing(ErrorKind::Other), 10),
            Err(AnswerReadError::Stalled { received: 0 })
        );
        struct Reset;
        impl Read for Reset {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(std::io::Error::new(
                    ErrorKind::ConnectionReset,
                    "reset by peer",
                ))
            }
        }
        let err = read_answer(Reset, 10).expect_err("broken");
        assert!(err.to_string().contains("reset by peer"), "{err}");
    }

    #[test]
    fn the_limit_error_names_the_size_and_the_flag() {
        let text = AnswerReadError::TooLarge { limit: 32 << 20 }.to_string();
        assert!(
            text.contains("32 MiB") && text.contains("--max-answer-size"),
            "{text}"
        );
    }
}
