//! Pushes to the cache registry with the distribution protocol: a blob in one `POST` + `PUT`
//! (skipped when the registry already holds it), an artifact manifest by tag. Each request goes
//! through the build's registry client (its credentials, tokens and TLS settings), once: a push
//! that fails is reported, never retried, and never fails the build.

use std::path::Path;

use reqwest::StatusCode;
use reqwest::header::{CONTENT_LENGTH, CONTENT_TYPE, LOCATION};

use std::sync::atomic::Ordering;

use super::artifact;
use super::repository::CacheRegistry;
use super::warning::CacheWarning;

/// Why a push did not happen.
#[derive(Debug)]
pub(super) enum PushFailure {
    /// The registry did not answer, or answered 5xx.
    Unreachable(String),
    /// It answered with a refusal (read-only, no push rights, a rejected manifest).
    Refused(String),
}

/// The source of a blob's bytes.
pub(super) enum Body<'a> {
    /// A file on disk, streamed.
    File(&'a Path),
    /// A small value (a manifest).
    Bytes(&'a [u8]),
}

impl CacheRegistry {
    /// Records a push that failed: the registry going down, or refusing (no more pushes).
    pub(super) fn push_failed(&self, failure: PushFailure) {
        match failure {
            PushFailure::Unreachable(reason) => self.went_down(reason),
            PushFailure::Refused(reason) => {
                if !self.push_refused.swap(true, Ordering::Relaxed) {
                    self.warn(CacheWarning::PushRefused {
                        registry: self.url.clone(),
                        reason,
                    });
                }
            }
        }
    }

    /// Pushes one entry: its content blob, the empty config and the artifact manifest under
    /// `tag`; `None` content means the blob was pushed already.
    pub(super) async fn push_entry(
        &self,
        tag: &str,
        entry: &artifact::Entry,
        content: Option<Body<'_>>,
    ) -> Result<(), PushFailure> {
        let digest = &entry.content.digest;
        if let Some(body) = content {
            self.push_blob(digest, entry.content.size, body, self.was_damaged(digest))
                .await?;
        }
        self.empty_pushed
            .get_or_try_init(|| async {
                self.push_blob(
                    artifact::EMPTY_DIGEST,
                    artifact::EMPTY_CONTENT.len() as u64,
                    Body::Bytes(artifact::EMPTY_CONTENT),
                    false,
                )
                .await
            })
            .await?;
        self.push_manifest(tag, &entry.to_manifest()).await
    }

    fn endpoint_url(&self, kind: &str, reference: &str) -> String {
        format!(
            "{}://{}/v2/{}/{kind}/{reference}",
            self.scheme, self.name.registry, self.name.repository
        )
    }

    async fn send(
        &self,
        build: impl Fn(&reqwest::Client) -> reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, PushFailure> {
        let response = self
            .client
            .send_push(&self.name, build)
            .await
            .map_err(|e| match e {
                crate::registry::RegistryError::Http { source, .. } => {
                    PushFailure::Unreachable(source.to_string())
                }
                other => PushFailure::Refused(other.to_string()),
            })?;
        let status = response.status();
        if status.is_server_error() {
            return Err(PushFailure::Unreachable(format!("HTTP {status}")));
        }
        Ok(response)
    }

    /// Uploads blob `digest` of `size` bytes unless the registry already links it; `replace`
    /// first unlinks a copy found damaged.
    pub(super) async fn push_blob(
        &self,
        digest: &str,
        size: u64,
        body: Body<'_>,
        replace: bool,
    ) -> Result<(), PushFailure> {
        let blob_url = self.endpoint_url("blobs", digest);
        if replace {
            // A registry without deletes keeps the copy; the upload below is then a no-op.
            let _ = self.send(|http| http.delete(&blob_url)).await?;
        } else {
            let head = self.send(|http| http.head(&blob_url)).await?;
            if head.status().is_success() {
                return Ok(());
            }
        }
        let start = self
            .send(|http| {
                http.post(self.endpoint_url("blobs", "uploads/"))
                    .header(CONTENT_LENGTH, 0)
            })
            .await?;
        if start.status() != StatusCode::ACCEPTED {
            return Err(refusal("starting a blob upload", start).await);
        }
        let location = start
            .headers()
            .get(LOCATION)
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| PushFailure::Refused("the upload answer has no Location".into()))?;
        let mut upload = match reqwest::Url::parse(location) {
            Ok(url) => url,
            Err(_) => reqwest::Url::parse(&format!(
                "{}://{}{location}",
                self.scheme, self.name.registry
            ))
            .map_err(|e| PushFailure::Refused(format!("the upload Location is not a URL: {e}")))?,
        };
        upload.query_pairs_mut().append_pair("digest", digest);
        let file =
            match &body {
                Body::File(path) => Some(std::fs::File::open(path).map_err(|e| {
                    PushFailure::Refused(format!("reading {}: {e}", path.display()))
                })?),
                Body::Bytes(_) => None,
            };
        let request_body = match (&body, file) {
            (Body::Bytes(bytes), _) => reqwest::Body::from(bytes.to_vec()),
            (Body::File(_), Some(file)) => {
                reqwest::Body::wrap_stream(file_chunks(tokio::fs::File::from_std(file)))
            }
            (Body::File(_), None) => return Err(PushFailure::Refused("no file to read".into())),
        };
        // The body can be sent once: the upload's POST above already answered any challenge.
        let body_cell = std::sync::Mutex::new(Some(request_body));
        let done = self
            .send(|http| {
                let mut request = http
                    .put(upload.clone())
                    .header(CONTENT_TYPE, "application/octet-stream")
                    .header(CONTENT_LENGTH, size);
                if let Some(body) = body_cell.lock().ok().and_then(|mut b| b.take()) {
                    request = request.body(body);
                }
                request
            })
            .await?;
        if done.status() != StatusCode::CREATED {
            return Err(refusal("completing a blob upload", done).await);
        }
        Ok(())
    }

    /// Puts the artifact manifest `bytes` under `tag`.
    pub(super) async fn push_manifest(&self, tag: &str, bytes: &[u8]) -> Result<(), PushFailure> {
        let url = self.endpoint_url("manifests", tag);
        let answer = self
            .send(|http| {
                http.put(&url)
                    .header(CONTENT_TYPE, super::artifact::MANIFEST_TYPE)
                    .body(bytes.to_vec())
            })
            .await?;
        if !answer.status().is_success() {
            return Err(refusal("putting a manifest", answer).await);
        }
        Ok(())
    }
}

/// A refusal naming the step, the status and the registry's first error message.
async fn refusal(step: &str, response: reqwest::Response) -> PushFailure {
    let status = response.status();
    let stall = std::time::Duration::from_secs(120);
    let body = crate::http::read_prefix(response, crate::http::ERROR_BODY_PREFIX, stall).await;
    let body = String::from_utf8_lossy(&body);
    let message = serde_json::from_str::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| {
            let first = v.get("errors")?.get(0)?.clone();
            Some(format!(
                "{} {}",
                first.get("code")?.as_str()?,
                first.get("message").and_then(|m| m.as_str()).unwrap_or("")
            ))
        })
        .unwrap_or_default();
    PushFailure::Refused(
        format!("{step}: HTTP {status} {message}")
            .trim()
            .to_string(),
    )
}

/// The content of `file` as a stream of chunks of up to 64 KiB.
fn file_chunks(
    file: tokio::fs::File,
) -> impl futures_util::Stream<Item = std::io::Result<Vec<u8>>> + Send + 'static {
    futures_util::stream::try_unfold(file, |mut file| async move {
        use tokio::io::AsyncReadExt;
        let mut buf = vec![0u8; 64 * 1024];
        let n = file.read(&mut buf).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.truncate(n);
        Ok(Some((buf, file)))
    })
}
