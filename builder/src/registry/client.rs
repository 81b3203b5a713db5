//! The HTTP side of the distribution protocol on reqwest: manifests by tag or digest, blobs
//! streamed to disk through a hasher, bearer tokens and basic auth, retries.
//!
//! This is a small client of our own rather than `oci-client` 0.18, which does most of this
//! well, for four reasons the puller depends on: its errors drop the HTTP status and headers, so a
//! 429's `Retry-After` cannot be honoured by our [`RetryPolicy`]; its `pull_blob` checks the
//! digest only after the last byte and never the size, while we stop a transfer as soon as it
//! exceeds the descriptor's size; we count every byte fetched for the build report; and we want a
//! 401 to say whether credentials were missing or refused, without a URL or token in the message.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::http::HttpError;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, WWW_AUTHENTICATE};
use reqwest::{Response, StatusCode};
use tokio::sync::Mutex;

use super::auth::{Challenge, CredentialStore, basic_value, parse_challenge};
use super::endpoint::{Endpoint, Endpoints};
use super::error::RegistryError;
use super::manifest_memo::ManifestMemo;
use crate::artifact::{FetchedManifest, RemoteName};
use crate::pace::{MinRate, Pace, Slow};
use crate::retry::RetryPolicy;
use cks_iso_reader::oci::MANIFEST_ACCEPT;
use cks_pinning::digest::Digest;
use cks_pinning::limits::{LimitKind, Limits};

/// A registry client shared by all pulls of a build.
#[derive(Debug)]
pub struct RegistryClient {
    pub(super) http: reqwest::Client,
    pub(super) endpoints: Endpoints,
    pub(super) credentials: CredentialStore,
    pub(super) retry: RetryPolicy,
    /// `Authorization` values by (contacted host, repository).
    pub(super) auth_cache: Mutex<HashMap<(String, String), String>>,
    pub(super) fetched: AtomicU64,
    /// How much is read of manifests, configs and error answers, and how many layers an image
    /// may have.
    pub(super) limits: Limits,
    /// The stall timeout and `--min-rate` every body is read under.
    pub(super) pace: Pace,
    /// The manifests this build's pull has read already ([`super::manifest_memo`]); none for
    /// a client that must see a tag move (the cache registry's claims and records).
    pub(super) memo: Option<ManifestMemo>,
}

/// The longest wait for an answer's headers, and for the next bytes of its body.
const STALL: Duration = Duration::from_secs(120);

enum Attempt {
    Done(Response),
    Retry(Option<Duration>, RegistryError),
}

impl RegistryClient {
    /// A client with the given endpoints, credentials and retry policy, trusting the system
    /// roots only.
    pub fn new(
        endpoints: Endpoints,
        credentials: CredentialStore,
        retry: RetryPolicy,
    ) -> Result<Self, RegistryError> {
        Self::with_ca_files(endpoints, credentials, retry, &[])
    }

    /// A client that also trusts the certificates in `ca_files` (`--ca-file`): the same TLS
    /// setup as the downloader's ([`crate::fetch::ClientOptions`]), with the registry's timeouts.
    pub fn with_ca_files(
        endpoints: Endpoints,
        credentials: CredentialStore,
        retry: RetryPolicy,
        ca_files: &[std::path::PathBuf],
    ) -> Result<Self, RegistryError> {
        let options = crate::fetch::ClientOptions {
            connect_timeout: Duration::from_secs(30),
            ca_files: ca_files.to_vec(),
            ..crate::fetch::ClientOptions::default()
        };
        let http = options
            .builder()
            .map_err(|source| RegistryError::CaFile { source })?
            .read_timeout(Duration::from_secs(120))
            .build()
            .map_err(|source| RegistryError::Http {
                image: String::new(),
                source: HttpError::from_reqwest("the registry client", &source),
            })?;
        Ok(RegistryClient {
            http,
            endpoints,
            credentials,
            retry,
            auth_cache: Mutex::new(HashMap::new()),
            fetched: AtomicU64::new(0),
            limits: Limits::default(),
            pace: Pace::from(STALL),
            memo: None,
        })
    }

    /// The client sharing `memo`: a manifest read once in the build is not asked for again.
    pub fn with_memo(mut self, memo: ManifestMemo) -> Self {
        self.memo = Some(memo);
        self
    }

    /// The client with `limits` (`--limit`) instead of the defaults.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The client with `min_rate` (`--min-rate`) instead of the default.
    pub fn with_min_rate(mut self, min_rate: MinRate) -> Self {
        self.pace.min_rate = min_rate;
        self
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Bytes received from registries so far (manifests and blobs, including failed attempts).
    pub fn bytes_fetched(&self) -> u64 {
        self.fetched.load(Ordering::Relaxed)
    }

    /// Fetches the manifest `reference` (a tag or digest) of `name` and checks its digest (the
    /// one this build read already, when it did).
    pub async fn manifest(
        &self,
        name: &RemoteName,
        reference: &str,
    ) -> Result<FetchedManifest, RegistryError> {
        let Some(memo) = &self.memo else {
            return self.fetch_manifest(name, reference).await;
        };
        if let Some(kept) = memo.get(name, reference) {
            return Ok(kept);
        }
        let fetched = self.fetch_manifest(name, reference).await?;
        memo.put(name, reference, &fetched);
        Ok(fetched)
    }

    async fn fetch_manifest(
        &self,
        name: &RemoteName,
        reference: &str,
    ) -> Result<FetchedManifest, RegistryError> {
        let endpoint = self.endpoints.resolve(&name.registry)?;
        let url = endpoint.url(&name.repository, "manifests", reference);
        let response = self
            .get(name, &endpoint, &url, Some(MANIFEST_ACCEPT))
            .await?;
        let header_digest = header(response.headers(), "docker-content-digest");
        let content_type = header(response.headers(), CONTENT_TYPE.as_str());
        let limit = self.limits.get(LimitKind::Oci);
        let bytes = crate::http::read_bounded(response, &url, LimitKind::Oci, limit, self.pace)
            .await
            .map_err(|source| RegistryError::Http {
                image: name.full.clone(),
                source,
            })?;
        self.fetched
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        let digest = Digest::sha256_of(&bytes);
        // The header is parsed once here; one of another algorithm is not checked.
        let header_digest = header_digest
            .filter(|d| d.starts_with("sha256:"))
            .map(|value| {
                Digest::parse(&value).map_err(|e| RegistryError::BadDigestHeader {
                    image: name.full.clone(),
                    value: value.clone(),
                    reason: e.to_string(),
                })
            })
            .transpose()?;
        let expected = if reference.starts_with("sha256:") {
            Some(reference.to_string())
        } else {
            header_digest.map(|d| d.to_string())
        };
        if let Some(expected) = expected
            && digest != expected
        {
            return Err(RegistryError::ManifestDigest {
                image: name.full.clone(),
                expected,
                actual: digest.to_string(),
            });
        }
        Ok(FetchedManifest {
            bytes,
            digest,
            content_type,
        })
    }

    /// GET with authentication (answering one 401 challenge) and retries for transport errors,
    /// 429 and 5xx (honouring `Retry-After`).
    pub(super) async fn get(
        &self,
        name: &RemoteName,
        endpoint: &Endpoint,
        url: &str,
        accept: Option<&str>,
    ) -> Result<Response, RegistryError> {
        self.get_from(name, endpoint, url, accept, 0).await
    }

    /// [`Self::get`] asking for the bytes from `from` on (`Range`) when `from` is not 0.
    pub(super) async fn get_from(
        &self,
        name: &RemoteName,
        endpoint: &Endpoint,
        url: &str,
        accept: Option<&str>,
        from: u64,
    ) -> Result<Response, RegistryError> {
        let mut retry = 0;
        loop {
            match self.attempt(name, endpoint, url, accept, from).await? {
                Attempt::Done(response) => return Ok(response),
                Attempt::Retry(_, error) if retry >= self.retry.retries => return Err(error),
                Attempt::Retry(after, error) => {
                    retry += 1;
                    tracing::debug!(url, retry, %error, "retrying");
                    tokio::time::sleep(self.retry.delay(retry, after)).await;
                }
            }
        }
    }

    async fn attempt(
        &self,
        name: &RemoteName,
        endpoint: &Endpoint,
        url: &str,
        accept: Option<&str>,
        from: u64,
    ) -> Result<Attempt, RegistryError> {
        let key = (endpoint.host.clone(), name.repository.clone());
        let mut answered_challenge = false;
        loop {
            let cached = self.auth_cache.lock().await.get(&key).cloned();
            let mut request = self.http.get(url);
            if let Some(accept) = accept {
                request = request.header(ACCEPT, accept);
            }
            if let Some(value) = &cached {
                request = request.header(AUTHORIZATION, value);
            }
            if from > 0 {
                request = request.header(reqwest::header::RANGE, format!("bytes={from}-"));
            }
            let response = match tokio::time::timeout(self.pace.stall, request.send()).await {
                Err(_) => {
                    let error = RegistryError::Http {
                        image: name.full.clone(),
                        source: HttpError::slow(url, Slow::Stalled(self.pace.stall)),
                    };
                    return Ok(Attempt::Retry(None, error));
                }
                Ok(Ok(response)) => response,
                Ok(Err(source)) => {
                    let error = RegistryError::Http {
                        image: name.full.clone(),
                        source: HttpError::from_reqwest(url, &source),
                    };
                    return Ok(Attempt::Retry(None, error));
                }
            };
            let status = response.status();
            if status == StatusCode::UNAUTHORIZED {
                let credentials = self.credentials_for(endpoint);
                if answered_challenge {
                    return Err(self.unauthorized(name, endpoint, credentials.is_some()));
                }
                let challenge = header(response.headers(), WWW_AUTHENTICATE.as_str())
                    .and_then(|h| parse_challenge(&h));
                let value = match challenge {
                    Some(Challenge::Basic) => match credentials {
                        Some(c) => basic_value(c),
                        None => return Err(self.unauthorized(name, endpoint, false)),
                    },
                    Some(Challenge::Bearer { realm, service, .. }) => {
                        self.token(
                            name,
                            endpoint,
                            &realm,
                            service.as_deref(),
                            credentials,
                            "pull",
                        )
                        .await?
                    }
                    None => return Err(self.unauthorized(name, endpoint, credentials.is_some())),
                };
                self.auth_cache.lock().await.insert(key.clone(), value);
                answered_challenge = true;
                continue;
            }
            if status.is_success() {
                return Ok(Attempt::Done(response));
            }
            let after = crate::http::retry_after(response.headers());
            let class = crate::http::classify(status.as_u16());
            let detail = error_detail(response, self.pace).await;
            if class == crate::http::StatusClass::NotFound {
                return Err(RegistryError::NotFound {
                    image: name.full.clone(),
                    url: url.to_string(),
                    detail,
                });
            }
            let error = RegistryError::Status {
                image: name.full.clone(),
                url: url.to_string(),
                status: status.as_u16(),
                detail,
            };
            if class == crate::http::StatusClass::Retry {
                return Ok(Attempt::Retry(after, error));
            }
            return Err(error);
        }
    }
}

/// The first byte of a `Content-Range: bytes FIRST-LAST/TOTAL` answer.
pub(super) fn range_start(headers: &HeaderMap) -> Option<u64> {
    let value = headers.get(reqwest::header::CONTENT_RANGE)?.to_str().ok()?;
    let range = value.trim().strip_prefix("bytes ")?;
    range.split_once('-')?.0.trim().parse().ok()
}

pub(super) fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// The first registry error message of a failed answer, as `": CODE message"`, read from the
/// body's first 64 KiB only.
pub(super) async fn error_detail(response: Response, pace: Pace) -> String {
    #[derive(serde::Deserialize)]
    struct Errors {
        errors: Vec<ErrorEntry>,
    }
    #[derive(serde::Deserialize)]
    struct ErrorEntry {
        #[serde(default)]
        code: String,
        #[serde(default)]
        message: String,
    }
    let body = crate::http::read_prefix(response, crate::http::ERROR_BODY_PREFIX, pace).await;
    match serde_json::from_slice::<Errors>(&body) {
        Ok(errors) => errors
            .errors
            .first()
            // The server's words, escaped before they can reach a terminal.
            .map(|e| crate::redact::controls(&format!(": {} {}", e.code, e.message)).into_owned())
            .unwrap_or_default(),
        Err(_) => String::new(),
    }
}
