//! One HTTP attempt: the request and its status, then the body streamed to a temporary file in
//! the destination's directory while it is hashed. Retrying is the caller's business.

use std::path::Path;
use std::time::Duration;

use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

use super::FetchError;
use crate::progress::ProgressSink;

/// Bytes on disk under a temporary name (removed on drop unless persisted), with their digest.
#[derive(Debug)]
pub struct Downloaded {
    /// The temporary file.
    pub temp: tempfile::NamedTempFile,
    /// The sha256 of its content, lower-case hex.
    pub sha256: String,
    /// Its size.
    pub bytes: u64,
}

/// A temporary file beside `dest_name` in `dir`: `.<name>.<random>.part`.
pub fn temp_in(dir: &Path, dest_name: &str) -> Result<tempfile::NamedTempFile, FetchError> {
    tempfile::Builder::new()
        .prefix(&format!(".{dest_name}."))
        .suffix(".part")
        .tempfile_in(dir)
        .map_err(|e| FetchError::io("creating a temporary file in", dir, e))
}

/// Sends a GET for `url` through [`crate::http::send`]: 404 gives [`FetchError::NotFound`],
/// other 4xx except 408 and 429 give [`FetchError::Status`], 5xx, 408 and 429 give
/// [`FetchError::Unavailable`] with the server's `Retry-After`.
pub async fn request(
    client: &reqwest::Client,
    url: &str,
    stall: Duration,
) -> Result<reqwest::Response, FetchError> {
    crate::http::send(client.get(url), url, stall)
        .await
        .map_err(FetchError::from)
}

/// Streams the body of `response` into a new temporary file in `dir`, hashing it, failing when
/// the body stalls or ends short of its `Content-Length`.
pub async fn stream_to_temp(
    mut response: reqwest::Response,
    url: &str,
    dir: &Path,
    dest_name: &str,
    stall: Duration,
    progress: &dyn ProgressSink,
    name: &str,
) -> Result<Downloaded, FetchError> {
    let expected = response.content_length();
    let temp = temp_in(dir, dest_name)?;
    let std_file = temp
        .as_file()
        .try_clone()
        .map_err(|e| FetchError::io("opening", temp.path(), e))?;
    let mut file = tokio::fs::File::from_std(std_file);
    let mut hasher = Sha256::new();
    let mut received = 0u64;
    progress.on_start(name, expected);
    loop {
        let chunk = match tokio::time::timeout(stall, response.chunk()).await {
            Err(_) => {
                return Err(FetchError::Stalled {
                    url: url.to_string(),
                    timeout: stall,
                    received,
                });
            }
            Ok(Err(e)) => {
                return Err(match expected {
                    Some(expected) if received < expected => FetchError::Truncated {
                        url: url.to_string(),
                        expected,
                        received,
                    },
                    _ => FetchError::transport(url, &e),
                });
            }
            Ok(Ok(None)) => break,
            Ok(Ok(Some(chunk))) => chunk,
        };
        hasher.update(&chunk);
        file.write_all(&chunk)
            .await
            .map_err(|e| FetchError::io("writing", temp.path(), e))?;
        received += chunk.len() as u64;
        progress.on_bytes(name, chunk.len() as u64);
    }
    if let Some(expected) = expected
        && received != expected
    {
        return Err(FetchError::Truncated {
            url: url.to_string(),
            expected,
            received,
        });
    }
    file.flush()
        .await
        .map_err(|e| FetchError::io("writing", temp.path(), e))?;
    Ok(Downloaded {
        temp,
        sha256: hex::encode(hasher.finalize()),
        bytes: received,
    })
}

/// The body of a small text file (a published checksum), at most `limit` bytes.
pub async fn get_text(
    client: &reqwest::Client,
    url: &str,
    stall: Duration,
    limit: usize,
) -> Result<String, FetchError> {
    let mut response = request(client, url, stall).await?;
    let mut body = Vec::new();
    loop {
        match tokio::time::timeout(stall, response.chunk()).await {
            Err(_) => {
                return Err(FetchError::Stalled {
                    url: url.to_string(),
                    timeout: stall,
                    received: body.len() as u64,
                });
            }
            Ok(Err(e)) => return Err(FetchError::transport(url, &e)),
            Ok(Ok(None)) => break,
            Ok(Ok(Some(chunk))) => {
                body.extend_from_slice(&chunk);
                if body.len() > limit {
                    return Err(FetchError::ChecksumFile {
                        url: url.to_string(),
                        reason: format!("it is larger than {limit} bytes"),
                    });
                }
            }
        }
    }
    String::from_utf8(body).map_err(|_| FetchError::ChecksumFile {
        url: url.to_string(),
        reason: "it is not UTF-8 text".to_string(),
    })
}
