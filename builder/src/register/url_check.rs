//! Checking that `--url` serves exactly the ISO before CloudStack is told its checksum: the
//! size from a HEAD (a GET's headers when HEAD is refused), then, unless skipped, the sha256 of
//! the whole body as a GET streams it.
//!
//! This is one verifying read, not a download: no retries, nothing written to disk. Requests go
//! through the builder's one transport ([`crate::http::send`]), so a status is classified and
//! reported as for every other download.

use std::time::Duration;

use futures_util::StreamExt;
use reqwest::header::{CONTENT_LENGTH, HeaderMap};

use super::error::RegisterError;
use super::iso_facts::IsoFacts;
use crate::digest::Sha256Count;
use crate::http::{HttpError, send};

/// How long the server may take to answer a request's headers.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);

/// The `Content-Length` header (reqwest's `content_length()` is the body's size, 0 for HEAD).
fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
}

/// Checks `url` against `facts`; hashes the body too when `full` is set. Blocks (it runs its
/// own small runtime), as the CloudStack calls around it do.
pub fn check(url: &str, facts: &IsoFacts, full: bool) -> Result<(), RegisterError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| RegisterError::UrlUnreachable {
            url: url.to_string(),
            detail: format!("starting the HTTP runtime: {e}"),
        })?;
    runtime.block_on(check_async(url, facts, full))
}

async fn check_async(url: &str, facts: &IsoFacts, full: bool) -> Result<(), RegisterError> {
    let transport = |source: HttpError| RegisterError::UrlHttp {
        url: url.to_string(),
        source,
    };
    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| transport(HttpError::from_reqwest(url, &e)))?;
    let size = declared_size(&client, url).await.map_err(transport)?;
    if let Some(size) = size {
        check_size(url, facts, size)?;
        if !full {
            return Ok(());
        }
    }
    let body = send(client.get(url), url, ANSWER_TIMEOUT)
        .await
        .map_err(transport)?;
    if let Some(size) = declared_length(body.headers()) {
        check_size(url, facts, size)?;
    }
    if !full {
        return Ok(());
    }
    let digest = hash_body(url, body, facts).await?;
    check_size(url, facts, digest.bytes)?;
    if digest.hex() != facts.sha256 {
        return Err(mismatch(
            url,
            facts,
            format!("sha256 {}", digest.hex()),
            format!("sha256 {}", facts.sha256),
        ));
    }
    Ok(())
}

/// The size a HEAD announces; `None` when the server refuses HEAD (405, 501) or sends no length.
async fn declared_size(client: &reqwest::Client, url: &str) -> Result<Option<u64>, HttpError> {
    match send(client.head(url), url, ANSWER_TIMEOUT).await {
        Ok(head) => Ok(declared_length(head.headers())),
        Err(HttpError::Status { status: 405, .. }) => Ok(None),
        Err(HttpError::Unavailable { status: 501, .. }) => Ok(None),
        Err(error) => Err(error),
    }
}

/// The sha256 and size of the body, streamed; a body that runs past the ISO's size is a
/// mismatch as soon as it does (nothing past `facts.size` bytes is read), one that stalls for
/// [`ANSWER_TIMEOUT`] fails.
async fn hash_body(
    url: &str,
    body: reqwest::Response,
    facts: &IsoFacts,
) -> Result<crate::digest::Digested, RegisterError> {
    let mut hash = Sha256Count::new();
    let mut read = 0u64;
    let mut stream = body.bytes_stream();
    loop {
        let next = tokio::time::timeout(ANSWER_TIMEOUT, stream.next())
            .await
            .map_err(|_| RegisterError::UrlUnreachable {
                url: url.to_string(),
                detail: format!(
                    "the body stalled for {} s after {read} bytes",
                    ANSWER_TIMEOUT.as_secs()
                ),
            })?;
        let Some(chunk) = next else { break };
        let chunk = chunk.map_err(|e| RegisterError::UrlUnreachable {
            url: url.to_string(),
            detail: format!("reading the body: {e}"),
        })?;
        read += chunk.len() as u64;
        if read > facts.size {
            return Err(mismatch(
                url,
                facts,
                format!("more than {} bytes", facts.size),
                format!("{} bytes", facts.size),
            ));
        }
        hash.update(&chunk);
    }
    Ok(hash.finish())
}

fn check_size(url: &str, facts: &IsoFacts, size: u64) -> Result<(), RegisterError> {
    if size == facts.size {
        Ok(())
    } else {
        Err(mismatch(
            url,
            facts,
            format!("{size} bytes"),
            format!("{} bytes", facts.size),
        ))
    }
}

fn mismatch(url: &str, facts: &IsoFacts, served: String, expected: String) -> RegisterError {
    RegisterError::UrlMismatch {
        url: url.to_string(),
        iso: facts.iso.clone(),
        served,
        expected,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cks_fixtures::http::{Fault, FileServer};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_endless_body_is_read_no_further_than_the_iso_size() {
        let dir = tempfile::tempdir().expect("dir");
        let server = FileServer::start(dir.path()).expect("file server");
        server.always(
            "/cks.iso",
            Fault::Flood {
                status: 200,
                length: None,
                fill: &[0u8; 4096],
            },
        );
        let facts = IsoFacts {
            iso: "cks.iso".into(),
            semantic_version: "1.33.13".into(),
            arch: "x86_64".into(),
            size: 1 << 20,
            sha256: "0".repeat(64),
            sidecar_checked: false,
            fits: cks_pinning::node_contract::Fits(Vec::new()),
        };
        let url = server.url("/cks.iso");
        let err = check_async(&url, &facts, true)
            .await
            .expect_err("an endless body is not the ISO");
        let text = err.to_string();
        assert!(
            text.contains(&url) && text.contains("more than 1048576 bytes"),
            "{text}"
        );
        // What the server pushed into the socket buffers before the client hung up, no more.
        assert!(
            server.body_bytes_sent() < 64 << 20,
            "{} bytes sent",
            server.body_bytes_sent()
        );
    }
}
