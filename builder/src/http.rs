//! The one HTTP transport of the builder: files (`fetch`), git refs (`git`) and registries
//! (`registry`) all send through [`send`] (or, for the registry's authenticated requests, read
//! the answer with [`classify`] and [`retry_after`]), so a request is retried on the same
//! statuses everywhere (5xx, 408, 429; 4xx fails fast) and `Retry-After` is read in both its
//! forms (delay-seconds and HTTP-date) by one parser, [`crate::retry::parse_retry_after`].
//! Every body read into memory goes through [`read_bounded`] (or [`read_prefix`] for error
//! bodies, of which only the start matters), so no answer grows memory past its kind's limit.
//!
//! ```
//! use cks_builder::http::{StatusClass, classify};
//! assert_eq!(classify(503), StatusClass::Retry);
//! assert_eq!(classify(408), StatusClass::Retry);
//! assert_eq!(classify(403), StatusClass::Fail);
//! assert_eq!(classify(404), StatusClass::NotFound);
//! ```

use std::time::{Duration, SystemTime};

use cks_pinning::limits::{LimitKind, show_size};
use reqwest::header::{HeaderMap, RETRY_AFTER};

use crate::pace::{Guard, MinRate, Pace, Slow};
use crate::retry::{Classify, Verdict, parse_retry_after};

/// What an HTTP status means for the request that got it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusClass {
    /// 2xx.
    Success,
    /// 404: the thing is not there (a caller may try another URL).
    NotFound,
    /// 5xx, 408 and 429: may pass, retry (after `Retry-After` when sent).
    Retry,
    /// Any other status: repeating cannot help.
    Fail,
}

/// The class of `status`, the one rule every client of the builder follows.
pub fn classify(status: u16) -> StatusClass {
    match status {
        200..=299 => StatusClass::Success,
        404 => StatusClass::NotFound,
        408 | 429 | 500..=599 => StatusClass::Retry,
        _ => StatusClass::Fail,
    }
}

/// The server's `Retry-After`, in either form, measured from now.
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    headers
        .get(RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| parse_retry_after(v, SystemTime::now()))
}

/// A request that did not get a usable answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpError {
    /// A status that ends the request (a 4xx other than 404, 408 and 429).
    #[error("{url} answered HTTP {status}")]
    Status {
        /// The URL requested.
        url: String,
        /// The HTTP status.
        status: u16,
    },
    /// 404.
    #[error("{url} answered HTTP 404")]
    NotFound {
        /// The URL requested.
        url: String,
    },
    /// A status worth retrying (5xx, 408, 429).
    #[error("{url} answered HTTP {status}")]
    Unavailable {
        /// The URL requested.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The server's `Retry-After`, if it sent one.
        retry_after: Option<Duration>,
    },
    /// The connection could not be made, or broke.
    #[error("transfer from {url} failed: {reason}")]
    Transport {
        /// The URL requested.
        url: String,
        /// What the HTTP client reported, with its causes.
        reason: String,
    },
    /// A redirect led where the URL may not ([`RedirectRefused`]).
    #[error("{url}: {reason}")]
    Redirect {
        /// The URL requested.
        url: String,
        /// Where it led, and why that is refused.
        reason: String,
    },
    /// The server's certificate was refused.
    #[error("TLS with {url} failed: {reason}; for a private CA pass its PEM with --ca-file")]
    Tls {
        /// The URL requested.
        url: String,
        /// What the TLS layer reported.
        reason: String,
    },
    /// No answer arrived within the stall timeout.
    #[error("{url} sent nothing for {} s", timeout.as_secs_f64())]
    Stalled {
        /// The URL requested.
        url: String,
        /// The timeout.
        timeout: Duration,
    },
    /// The body came slower than the `--min-rate` rule (a drip).
    #[error("{}", crate::pace::below_rate_text(url, *got, *rule))]
    TooSlow {
        /// The URL requested.
        url: String,
        /// Bytes received in the window that fell short.
        got: u64,
        /// The rule.
        rule: MinRate,
    },
    /// The answer is larger than its kind's limit (said by `Content-Length` or found reading).
    #[error(
        "{url} sent more than the {kind} limit of {}; {}",
        show_size(*limit),
        kind.advice()
    )]
    TooLarge {
        /// The URL requested.
        url: String,
        /// The kind of input, whose limit applies.
        kind: LimitKind,
        /// The limit in bytes.
        limit: u64,
    },
}

/// A redirect the client's policy refused (`crate::fetch::redirect::policy`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "it redirected to {target}, an internal address (loopback, link-local or private), which a URL of a public address may not lead to"
)]
pub struct RedirectRefused {
    /// Where the redirect led.
    pub target: String,
}

impl HttpError {
    /// A reqwest error on `url`, with its causes; a refused certificate is [`HttpError::Tls`].
    pub fn from_reqwest(url: &str, error: &reqwest::Error) -> Self {
        let mut causes = Vec::new();
        let mut source = std::error::Error::source(error);
        while let Some(cause) = source {
            if let Some(refused) = cause.downcast_ref::<RedirectRefused>() {
                return HttpError::Redirect {
                    url: url.to_string(),
                    reason: refused.to_string(),
                };
            }
            causes.push(cause.to_string());
            source = cause.source();
        }
        let reason = reason_of(error, &causes);
        if reason.contains("certificate") {
            HttpError::Tls {
                url: url.to_string(),
                reason,
            }
        } else {
            HttpError::Transport {
                url: url.to_string(),
                reason,
            }
        }
    }
}

/// What `error` and its `causes` say, each once: without reqwest's "error sending request for
/// url (URL)" (the caller names the URL) and hyper's "client error (Connect)" when a cause says
/// more, and without a cause its parent already quotes.
fn reason_of(error: &reqwest::Error, causes: &[String]) -> String {
    let mut top = error.to_string();
    if let Some(url) = error.url() {
        top = top.replace(&format!(" for url ({url})"), "");
    }
    let wrapper =
        |text: &str| text == "error sending request" || text.starts_with("client error (");
    let mut parts: Vec<&str> = Vec::new();
    for text in std::iter::once(top.as_str()).chain(causes.iter().map(String::as_str)) {
        if parts.last().is_some_and(|last| last.contains(text)) {
            continue;
        }
        parts.push(text);
    }
    let said: Vec<&str> = parts.iter().copied().filter(|t| !wrapper(t)).collect();
    if said.is_empty() {
        parts.join(": ")
    } else {
        said.join(": ")
    }
}

impl Classify for HttpError {
    fn verdict(&self) -> Verdict {
        match self {
            HttpError::Unavailable { retry_after, .. } => Verdict::Transient {
                retry_after: *retry_after,
            },
            HttpError::Transport { .. } | HttpError::Stalled { .. } | HttpError::TooSlow { .. } => {
                Verdict::Transient { retry_after: None }
            }
            HttpError::Status { .. }
            | HttpError::NotFound { .. }
            | HttpError::Tls { .. }
            | HttpError::Redirect { .. }
            | HttpError::TooLarge { .. } => Verdict::Permanent,
        }
    }
}

/// Sends `request` (for `url`), waiting at most `stall` for the answer's headers, and returns a
/// 2xx answer; any other status is an [`HttpError`] classified by [`classify`]. The request is
/// counted in the build's [`crate::requests::RequestLog`].
pub async fn send(
    request: reqwest::RequestBuilder,
    url: &str,
    stall: Duration,
) -> Result<reqwest::Response, HttpError> {
    crate::requests::record(url);
    let response = match tokio::time::timeout(stall, request.send()).await {
        Err(_) => {
            return Err(HttpError::Stalled {
                url: url.to_string(),
                timeout: stall,
            });
        }
        Ok(Err(e)) => return Err(HttpError::from_reqwest(url, &e)),
        Ok(Ok(response)) => response,
    };
    let status = response.status().as_u16();
    let url = url.to_string();
    match classify(status) {
        StatusClass::Success => Ok(response),
        StatusClass::NotFound => Err(HttpError::NotFound { url }),
        StatusClass::Retry => Err(HttpError::Unavailable {
            url,
            status,
            retry_after: retry_after(response.headers()),
        }),
        StatusClass::Fail => Err(HttpError::Status { url, status }),
    }
}

/// Refuses `response` when its `Content-Length` already says it is larger than `limit`.
pub fn check_length(
    response: &reqwest::Response,
    url: &str,
    kind: LimitKind,
    limit: u64,
) -> Result<(), HttpError> {
    match response.content_length() {
        Some(length) if length > limit => Err(HttpError::TooLarge {
            url: url.to_string(),
            kind,
            limit,
        }),
        _ => Ok(()),
    }
}

impl HttpError {
    /// The error of a transfer from `url` that [`Guard`] ended.
    pub fn slow(url: &str, slow: Slow) -> Self {
        match slow {
            Slow::Stalled(timeout) => HttpError::Stalled {
                url: url.to_string(),
                timeout,
            },
            Slow::BelowRate { got, rule } => HttpError::TooSlow {
                url: url.to_string(),
                got,
                rule,
            },
        }
    }
}

/// The body of an answer read piece by piece, at most `limit` bytes of input kind `kind`, each
/// piece awaited under a [`Pace`] (the stall timeout and `--min-rate`). A body shorter than its
/// `Content-Length` is a transport error (retried by the callers).
pub struct Body {
    response: reqwest::Response,
    url: String,
    kind: LimitKind,
    limit: u64,
    guard: Guard,
    read: u64,
    expected: Option<u64>,
}

impl Body {
    /// The body of `response` (from `url`); a `Content-Length` above the limit fails before a
    /// byte is read.
    pub fn new(
        response: reqwest::Response,
        url: &str,
        kind: LimitKind,
        limit: u64,
        pace: impl Into<Pace>,
    ) -> Result<Self, HttpError> {
        check_length(&response, url, kind, limit)?;
        Ok(Body {
            expected: response.content_length(),
            response,
            url: url.to_string(),
            kind,
            limit,
            guard: Guard::new(pace),
            read: 0,
        })
    }

    /// The `Content-Length` of the answer, if it sent one.
    pub fn expected(&self) -> Option<u64> {
        self.expected
    }

    /// The next piece of the body, `None` at its end.
    pub async fn chunk(&mut self) -> Result<Option<bytes::Bytes>, HttpError> {
        let url = &self.url;
        let chunk = match self.guard.read(self.response.chunk()).await {
            Err(slow) => return Err(HttpError::slow(url, slow)),
            Ok(Err(e)) => return Err(HttpError::from_reqwest(url, &e)),
            Ok(Ok(None)) => {
                return match self.expected {
                    Some(n) if n != self.read => Err(HttpError::Transport {
                        url: url.clone(),
                        reason: format!("the body ended after {} of {n} bytes", self.read),
                    }),
                    _ => Ok(None),
                };
            }
            Ok(Ok(Some(chunk))) => chunk,
        };
        if self.read + chunk.len() as u64 > self.limit {
            return Err(HttpError::TooLarge {
                url: url.clone(),
                kind: self.kind,
                limit: self.limit,
            });
        }
        self.read += chunk.len() as u64;
        self.guard
            .count(chunk.len())
            .map_err(|slow| HttpError::slow(url, slow))?;
        Ok(Some(chunk))
    }
}

/// The whole body of `response` (from `url`), at most `limit` bytes of input kind `kind`: a
/// `Content-Length` above the limit fails before a byte is read, a body that runs past it is cut
/// off there, and a body that stalls or falls below the minimum rate of `pace` fails. A body
/// shorter than its `Content-Length` is a transport error (retried by the callers).
pub async fn read_bounded(
    response: reqwest::Response,
    url: &str,
    kind: LimitKind,
    limit: u64,
    pace: impl Into<Pace>,
) -> Result<Vec<u8>, HttpError> {
    let mut body = Body::new(response, url, kind, limit, pace)?;
    let mut bytes = Vec::with_capacity(body.expected().unwrap_or(0).min(limit) as usize);
    while let Some(chunk) = body.chunk().await? {
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// At most the first `max` bytes of the body of `response` (an error answer, of which only the
/// start is shown); the rest is never read. Empty when the body breaks, stalls or drips.
pub async fn read_prefix(
    mut response: reqwest::Response,
    max: usize,
    pace: impl Into<Pace>,
) -> Vec<u8> {
    let mut guard = Guard::new(pace);
    let mut body = Vec::new();
    while body.len() < max {
        match guard.read(response.chunk()).await {
            Ok(Ok(Some(chunk))) => {
                let take = chunk.len().min(max - body.len());
                body.extend_from_slice(&chunk[..take]);
                if guard.count(chunk.len()).is_err() {
                    return Vec::new();
                }
            }
            Ok(Ok(None)) => break,
            Err(_) | Ok(Err(_)) => return Vec::new(),
        }
    }
    body
}

/// How much of an error answer's body is read: enough for a registry's JSON error or an HTML
/// page's first lines.
pub const ERROR_BODY_PREFIX: usize = 64 * 1024;

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn retry_after_takes_seconds_and_http_dates() {
        let mut headers = HeaderMap::new();
        headers.insert(RETRY_AFTER, HeaderValue::from_static("7"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(7)));
        // A date in the past asks for no wait at all (not the backoff a failed parse gives).
        headers.insert(
            RETRY_AFTER,
            HeaderValue::from_static("Sun, 06 Nov 1994 08:49:37 GMT"),
        );
        assert_eq!(retry_after(&headers), Some(Duration::ZERO));
        headers.insert(RETRY_AFTER, HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&headers), None);
    }

    #[test]
    fn every_status_has_one_class() {
        for (status, class) in [
            (200, StatusClass::Success),
            (204, StatusClass::Success),
            (404, StatusClass::NotFound),
            (408, StatusClass::Retry),
            (429, StatusClass::Retry),
            (500, StatusClass::Retry),
            (503, StatusClass::Retry),
            (400, StatusClass::Fail),
            (401, StatusClass::Fail),
            (403, StatusClass::Fail),
        ] {
            assert_eq!(classify(status), class, "{status}");
        }
    }
}
