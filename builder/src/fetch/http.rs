//! One HTTP request and its status, the temporary file a body goes to, and small text bodies.
//! Streaming a file's body (and resuming it) is in `resume`; retrying is the caller's business.

use std::path::Path;

use cks_pinning::limits::LimitKind;
use std::time::Duration;

use super::error::FetchError;
use crate::pace::Pace;

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
        .map_err(|e| FetchError::io("writing", dir.join(dest_name), crate::atomic::plain(e)))
}

/// Sends a GET for `url` through [`crate::http::send`]: 404 gives [`FetchError::NotFound`],
/// other 4xx except 408 and 429 give [`FetchError::Status`], 5xx, 408 and 429 give
/// [`FetchError::Unavailable`] with the server's `Retry-After`.
pub async fn request(
    client: &super::client::MirrorClient,
    url: &str,
    stall: Duration,
) -> Result<reqwest::Response, FetchError> {
    crate::http::send(client.get(url), url, stall)
        .await
        .map_err(FetchError::from)
}

/// The body of a small text file (a published checksum or signature), at most `limit` bytes.
pub async fn get_text(
    client: &super::client::MirrorClient,
    url: &str,
    pace: Pace,
    limit: u64,
) -> Result<String, FetchError> {
    let response = request(client, url, pace.stall).await?;
    let body = crate::http::read_bounded(response, url, LimitKind::Checksum, limit, pace).await?;
    String::from_utf8(body).map_err(|_| FetchError::ChecksumFile {
        url: url.to_string(),
        reason: "it is not UTF-8 text".to_string(),
    })
}
