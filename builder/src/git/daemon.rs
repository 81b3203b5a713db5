//! `git://`: the same pkt-lines over a TCP connection to `git daemon` (port 9418 by default),
//! asking for protocol v2 in the request's extra parameters.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::answer::{Advertisement, Framer, LsRefs, Parser, Step};
use super::error::GitError;
use super::http::read_error;
use super::pktline;
use super::refs::{ReadError, TagText, ls_refs_request};
use crate::http::HttpError;
use crate::pace::{Guard, Pace, Slow};

/// A `git://host[:port]/path` URL, taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DaemonUrl {
    /// The host.
    pub host: String,
    /// The port (9418 unless given).
    pub port: u16,
    /// The repository path, starting with `/`.
    pub path: String,
}

impl DaemonUrl {
    /// Parses `git://host[:port]/path`; `None` for anything else.
    pub fn parse(url: &str) -> Option<Self> {
        let rest = url.strip_prefix("git://")?;
        let (authority, path) = rest.split_at(rest.find('/')?);
        let (host, port) = match authority.rsplit_once(':') {
            Some((host, port)) => (host, port.parse().ok()?),
            None => (authority, 9418),
        };
        (!host.is_empty() && path.len() > 1).then(|| DaemonUrl {
            host: host.to_string(),
            port,
            path: path.to_string(),
        })
    }
}

struct Reader {
    stream: TcpStream,
    framer: Framer,
    url: String,
    guard: Guard,
    /// Bytes read so far, and the most that may be.
    read: u64,
    limit: u64,
}

impl Reader {
    /// Reads one answer into `parser`, up to its closing flush.
    async fn answer(&mut self, parser: &mut impl Parser) -> Result<(), GitError> {
        let url = self.url.as_str();
        if self
            .framer
            .feed(&[], parser)
            .map_err(|e| read_error(url, e))?
            == Step::Done
        {
            return Ok(());
        }
        let mut chunk = vec![0u8; 16 * 1024];
        loop {
            let n = match self.guard.read(self.stream.read(&mut chunk)).await {
                Err(Slow::Stalled(timeout)) => {
                    return Err(GitError::Stalled {
                        url: url.to_string(),
                        timeout,
                    });
                }
                Err(slow) => return Err(GitError::Http(HttpError::slow(url, slow))),
                Ok(Err(e)) => return Err(GitError::io(url, &e)),
                Ok(Ok(n)) => n,
            };
            if n == 0 {
                return Err(read_error(url, ReadError::Truncated));
            }
            self.read += n as u64;
            if self.read > self.limit {
                return Err(GitError::Http(HttpError::TooLarge {
                    url: url.to_string(),
                    kind: cks_pinning::limits::LimitKind::Git,
                    limit: self.limit,
                }));
            }
            self.guard
                .count(n)
                .map_err(|slow| GitError::Http(HttpError::slow(url, slow)))?;
            let step = self
                .framer
                .feed(&chunk[..n], parser)
                .map_err(|e| read_error(url, e))?;
            if step == Step::Done {
                return Ok(());
            }
        }
    }

    async fn write(&mut self, bytes: &[u8]) -> Result<(), GitError> {
        self.stream
            .write_all(bytes)
            .await
            .map_err(|e| GitError::io(&self.url, &e))
    }
}

/// Lists the tags of the repository at `remote`, as `git ls-remote --tags` prints them.
pub async fn list(
    remote: &DaemonUrl,
    url: &str,
    connect_timeout: Duration,
    pace: Pace,
    limit: u64,
) -> Result<TagText, GitError> {
    let address = (remote.host.as_str(), remote.port);
    let stream = match tokio::time::timeout(connect_timeout, TcpStream::connect(address)).await {
        Err(_) => {
            return Err(GitError::Transport {
                url: url.to_string(),
                reason: format!("no connection within {} s", connect_timeout.as_secs_f64()),
            });
        }
        Ok(Err(e)) => return Err(GitError::io(url, &e)),
        Ok(Ok(stream)) => stream,
    };
    let mut reader = Reader {
        stream,
        framer: Framer::default(),
        url: url.to_string(),
        guard: Guard::new(pace),
        read: 0,
        limit,
    };
    let host = if remote.port == 9418 {
        remote.host.clone()
    } else {
        format!("{}:{}", remote.host, remote.port)
    };
    let hello = format!(
        "git-upload-pack {}\0host={host}\0\0version=2\0",
        remote.path
    );
    reader.write(&pktline::data(hello.as_bytes())).await?;
    let mut tags = TagText::default();
    let mut advertisement = Advertisement::new(&mut tags);
    reader.answer(&mut advertisement).await?;
    if !advertisement.is_v2() {
        // No wants: end the conversation politely.
        let _ = reader.write(pktline::FLUSH).await;
        return Ok(tags);
    }
    let request = ls_refs_request(advertisement.object_format.as_deref());
    reader.write(&request).await?;
    reader.answer(&mut LsRefs::new(&mut tags)).await?;
    Ok(tags)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_git_urls() {
        assert_eq!(
            DaemonUrl::parse("git://127.0.0.1:9419/autoscaler.git"),
            Some(DaemonUrl {
                host: "127.0.0.1".into(),
                port: 9419,
                path: "/autoscaler.git".into()
            })
        );
        assert_eq!(
            DaemonUrl::parse("git://example.org/a/b").map(|u| u.port),
            Some(9418)
        );
        assert_eq!(DaemonUrl::parse("git://host"), None);
        assert_eq!(DaemonUrl::parse("https://host/x"), None);
    }
}
