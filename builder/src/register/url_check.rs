//! Checking that `--url` serves exactly the ISO before CloudStack is told its checksum: the
//! size from a HEAD (a GET's headers when HEAD is refused), then, unless skipped, the sha256 of
//! the whole body as a GET streams it.
//!
//! This is one verifying read, not a download: no retries, nothing written to disk.

use std::io::Read;
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::{IsoFacts, RegisterError};

/// The `Content-Length` header (reqwest's `content_length()` is the body's size, 0 for HEAD).
fn declared_length(headers: &reqwest::header::HeaderMap) -> Option<u64> {
    headers
        .get(reqwest::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
}

/// Checks `url` against `facts`; hashes the body too when `full` is set.
pub fn check(url: &str, facts: &IsoFacts, full: bool) -> Result<(), RegisterError> {
    let unreachable = |detail: String| RegisterError::UrlUnreachable {
        url: url.to_string(),
        detail,
    };
    let mismatch = |served: String, expected: String| RegisterError::UrlMismatch {
        url: url.to_string(),
        iso: facts.iso.clone(),
        served,
        expected,
    };
    let http = reqwest::blocking::Client::builder()
        .connect_timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| unreachable(format!("building the HTTP client: {e}")))?;
    let head = http
        .head(url)
        .send()
        .map_err(|e| unreachable(e.without_url().to_string()))?;
    let size = if head.status().is_success() {
        declared_length(head.headers())
    } else if matches!(head.status().as_u16(), 405 | 501) {
        None
    } else {
        return Err(unreachable(format!("HEAD answered HTTP {}", head.status())));
    };
    if let Some(size) = size
        && size != facts.size
    {
        return Err(mismatch(
            format!("{size} bytes"),
            format!("{} bytes", facts.size),
        ));
    }
    if !full && size.is_some() {
        return Ok(());
    }
    let mut body = http
        .get(url)
        .send()
        .map_err(|e| unreachable(e.without_url().to_string()))?;
    if !body.status().is_success() {
        return Err(unreachable(format!("GET answered HTTP {}", body.status())));
    }
    if let Some(size) = declared_length(body.headers())
        && size != facts.size
    {
        return Err(mismatch(
            format!("{size} bytes"),
            format!("{} bytes", facts.size),
        ));
    }
    if !full {
        return Ok(());
    }
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut read = 0u64;
    loop {
        let n = body
            .read(&mut buf)
            .map_err(|e| unreachable(format!("reading the body: {e}")))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        read += n as u64;
    }
    if read != facts.size {
        return Err(mismatch(
            format!("{read} bytes"),
            format!("{} bytes", facts.size),
        ));
    }
    let sha256 = hex::encode(hasher.finalize());
    if sha256 != facts.sha256 {
        return Err(mismatch(
            format!("sha256 {sha256}"),
            format!("sha256 {}", facts.sha256),
        ));
    }
    Ok(())
}
