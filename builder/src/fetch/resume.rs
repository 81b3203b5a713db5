//! Resuming a download that broke mid-body: the bytes already written and the sha256 state over
//! them are kept between attempts, and the next attempt asks for the rest with
//! `Range: bytes=N-`. A `206` whose `Content-Range` starts at `N` continues the same file and
//! hash; any other success (a server that ignores `Range` answers `200` with the whole body)
//! starts again from byte 0.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use crate::digest::Sha256Count;
use crate::http::HttpError;
use crate::pace::{Guard, Pace, Slow};
use cks_pinning::limits::LimitKind;
use tokio::io::AsyncWriteExt;

use super::error::FetchError;
use super::http::{Downloaded, temp_in};
use crate::progress::ProgressSink;

/// The bytes of one candidate received so far, under a temporary name, with the hash over them.
#[derive(Debug)]
pub struct Partial {
    temp: tempfile::NamedTempFile,
    hasher: Sha256Count,
    received: u64,
}

/// What attempts on one candidate share: the partial body a broken attempt left.
#[derive(Debug, Default)]
pub struct Resume {
    partial: Mutex<Option<Partial>>,
}

impl Resume {
    /// The bytes a next attempt can skip.
    pub fn offset(&self) -> u64 {
        self.lock().as_ref().map_or(0, |p| p.received)
    }

    fn take(&self) -> Option<Partial> {
        self.lock().take()
    }

    fn keep(&self, partial: Partial) {
        *self.lock() = Some(partial);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Partial>> {
        self.partial
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Sends a GET for `url`, asking for the bytes after those `resume` holds.
pub async fn request_rest(
    client: &super::client::MirrorClient,
    url: &str,
    stall: Duration,
    resume: &Resume,
) -> Result<reqwest::Response, FetchError> {
    let offset = resume.offset();
    let mut request = client.get(url);
    if offset > 0 {
        request = request.header(reqwest::header::RANGE, format!("bytes={offset}-"));
    }
    crate::http::send(request, url, stall)
        .await
        .map_err(FetchError::from)
}

/// The first byte and the total size of a `Content-Range: bytes FIRST-LAST/TOTAL` header.
fn content_range(response: &reqwest::Response) -> Option<(u64, Option<u64>)> {
    let value = response
        .headers()
        .get(reqwest::header::CONTENT_RANGE)?
        .to_str()
        .ok()?;
    let spec = value.trim().strip_prefix("bytes ")?;
    let (range, total) = spec.split_once('/')?;
    let (first, _) = range.split_once('-')?;
    Some((first.trim().parse().ok()?, total.trim().parse().ok()))
}

/// Where a streamed body is written and what bounds it.
#[derive(Debug, Clone, Copy)]
pub struct BodyTarget<'a> {
    /// The folder the temporary file is made in (beside the destination).
    pub dir: &'a Path,
    /// The destination's file name, which the temporary file is named after.
    pub dest_name: &'a str,
    /// The longest wait for the next bytes, and the minimum rate.
    pub pace: Pace,
    /// The size limit, and which one it is.
    pub limit: (LimitKind, u64),
}

/// Streams the body of `response` onto the partial file `resume` holds when the server answered
/// the range asked for, or into a new temporary file otherwise, hashing as it goes. A body that
/// breaks leaves what was received in `resume` for the next attempt. A body larger than `limit`
/// (by its `Content-Length`, or as it arrives) fails before the excess is written.
pub async fn stream_resuming(
    mut response: reqwest::Response,
    url: &str,
    target: &BodyTarget<'_>,
    progress: &dyn ProgressSink,
    name: &str,
    resume: &Resume,
) -> Result<Downloaded, FetchError> {
    let &BodyTarget {
        dir,
        dest_name,
        pace,
        limit: (kind, limit),
    } = target;
    let mut guard = Guard::new(pace);
    let too_large = || {
        FetchError::Http(crate::http::HttpError::TooLarge {
            url: url.to_string(),
            kind,
            limit,
        })
    };
    let previous = resume.take();
    let continued = match previous {
        Some(partial)
            if response.status().as_u16() == 206
                && content_range(&response).is_some_and(|(first, _)| first == partial.received) =>
        {
            Some(partial)
        }
        _ => None,
    };
    let mut partial = match continued {
        Some(partial) => partial,
        None => {
            if response.status().as_u16() == 206 {
                return Err(FetchError::Http(crate::http::HttpError::Status {
                    url: url.to_string(),
                    status: 206,
                }));
            }
            Partial {
                temp: temp_in(dir, dest_name)?,
                hasher: Sha256Count::new(),
                received: 0,
            }
        }
    };
    let start = partial.received;
    let expected = response.content_length().map(|rest| start + rest);
    if expected.is_some_and(|n| n > limit) {
        return Err(too_large());
    }
    let std_file = partial
        .temp
        .as_file()
        .try_clone()
        .map_err(|e| FetchError::io("opening", dir.join(dest_name), e))?;
    let mut file = tokio::fs::File::from_std(std_file);
    {
        use tokio::io::AsyncSeekExt;
        file.seek(std::io::SeekFrom::Start(start))
            .await
            .map_err(|e| FetchError::io("seeking in", dir.join(dest_name), e))?;
    }
    if start == 0 {
        progress.on_start(name, expected);
    }
    let broken = loop {
        let chunk = match guard.read(response.chunk()).await {
            Err(Slow::Stalled(timeout)) => {
                break FetchError::Stalled {
                    url: url.to_string(),
                    timeout,
                    received: partial.received,
                };
            }
            Err(slow) => break FetchError::Http(HttpError::slow(url, slow)),
            Ok(Err(e)) => {
                break match expected {
                    Some(expected) if partial.received < expected => FetchError::Truncated {
                        url: url.to_string(),
                        expected,
                        received: partial.received,
                    },
                    _ => FetchError::transport(url, &e),
                };
            }
            Ok(Ok(None)) => {
                if let Some(expected) = expected
                    && partial.received != expected
                {
                    break FetchError::Truncated {
                        url: url.to_string(),
                        expected,
                        received: partial.received,
                    };
                }
                file.flush().await.map_err(|e| {
                    FetchError::io_needing("writing", dir.join(dest_name), expected, e)
                })?;
                return Ok(Downloaded {
                    sha256: partial.hasher.finish().into_hex(),
                    bytes: partial.received,
                    temp: partial.temp,
                });
            }
            Ok(Ok(Some(chunk))) => chunk,
        };
        if partial.received + chunk.len() as u64 > limit {
            return Err(too_large());
        }
        file.write_all(&chunk)
            .await
            .map_err(|e| FetchError::io_needing("writing", dir.join(dest_name), expected, e))?;
        partial.hasher.update(&chunk);
        partial.received += chunk.len() as u64;
        progress.on_bytes(name, chunk.len() as u64);
        if let Err(slow) = guard.count(chunk.len()) {
            break FetchError::Http(HttpError::slow(url, slow));
        }
    };
    if file.flush().await.is_ok() {
        resume.keep(partial);
    }
    Err(broken)
}
