//! `git://`: the same pkt-lines over a TCP connection to `git daemon` (port 9418 by default),
//! asking for protocol v2 in the request's extra parameters.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::error::GitError;
use super::http::read_error;
use super::pktline::{self, Packet, decode};
use super::refs::{
    Advertisement, RemoteRef, ls_refs_request, parse_advertisement, parse_ls_refs, tags_only,
};

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
    buf: Vec<u8>,
    url: String,
    stall: Duration,
    /// Bytes read so far, and the most that may be.
    read: u64,
    limit: u64,
}

impl Reader {
    /// Packets up to and including the next flush (fewer when the connection ends first).
    async fn until_flush(&mut self) -> Result<Vec<Packet>, GitError> {
        let mut packets = Vec::new();
        loop {
            while let Some((packet, used)) =
                decode(&self.buf).map_err(|reason| GitError::Protocol {
                    url: self.url.clone(),
                    reason,
                })?
            {
                self.buf.drain(..used);
                let flush = packet == Packet::Flush;
                packets.push(packet);
                if flush {
                    return Ok(packets);
                }
            }
            let mut chunk = [0u8; 16 * 1024];
            let n = match tokio::time::timeout(self.stall, self.stream.read(&mut chunk)).await {
                Err(_) => {
                    return Err(GitError::Stalled {
                        url: self.url.clone(),
                        timeout: self.stall,
                    });
                }
                Ok(Err(e)) => return Err(GitError::io(&self.url, &e)),
                Ok(Ok(n)) => n,
            };
            if n == 0 {
                return Ok(packets);
            }
            self.read += n as u64;
            if self.read > self.limit {
                return Err(GitError::Http(crate::http::HttpError::TooLarge {
                    url: self.url.clone(),
                    kind: cks_pinning::limits::LimitKind::Git,
                    limit: self.limit,
                }));
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }

    async fn write(&mut self, bytes: &[u8]) -> Result<(), GitError> {
        self.stream
            .write_all(bytes)
            .await
            .map_err(|e| GitError::io(&self.url, &e))
    }
}

/// Lists the tags of the repository at `remote`.
pub async fn list(
    remote: &DaemonUrl,
    url: &str,
    connect_timeout: Duration,
    stall: Duration,
    limit: u64,
) -> Result<Vec<RemoteRef>, GitError> {
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
        buf: Vec::new(),
        url: url.to_string(),
        stall,
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
    let first = reader.until_flush().await?;
    match parse_advertisement(&first).map_err(|e| read_error(url, e))? {
        Advertisement::V0 { refs } => {
            // No wants: end the conversation politely.
            let _ = reader.write(pktline::FLUSH).await;
            Ok(tags_only(refs))
        }
        Advertisement::V2 { capabilities } => {
            reader.write(&ls_refs_request(&capabilities)).await?;
            let answer = reader.until_flush().await?;
            parse_ls_refs(&answer)
                .map(tags_only)
                .map_err(|e| read_error(url, e))
        }
    }
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
