//! The one HTTP transport of the builder: files (`fetch`), git refs (`git`) and registries
//! (`registry`) all send through [`send`] (or, for the registry's authenticated requests, read
//! the answer with [`classify`] and [`retry_after`]), so a request is retried on the same
//! statuses everywhere (5xx, 408, 429; 4xx fails fast) and `Retry-After` is read in both its
//! forms (delay-seconds and HTTP-date) by one parser, [`crate::retry::parse_retry_after`].
//!
//! ```
//! use cks_builder::http::{StatusClass, classify};
//! assert_eq!(classify(503), StatusClass::Retry);
//! assert_eq!(classify(408), StatusClass::Retry);
//! assert_eq!(classify(403), StatusClass::Fail);
//! assert_eq!(classify(404), StatusClass::NotFound);
//! ```

use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, RETRY_AFTER};

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
}

impl HttpError {
    /// A reqwest error on `url`, with its causes; a refused certificate is [`HttpError::Tls`].
    pub fn from_reqwest(url: &str, error: &reqwest::Error) -> Self {
        let mut reason = error.to_string();
        let mut source = std::error::Error::source(error);
        while let Some(cause) = source {
            reason.push_str(": ");
            reason.push_str(&cause.to_string());
            source = cause.source();
        }
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

impl Classify for HttpError {
    fn verdict(&self) -> Verdict {
        match self {
            HttpError::Unavailable { retry_after, .. } => Verdict::Transient {
                retry_after: *retry_after,
            },
            HttpError::Transport { .. } | HttpError::Stalled { .. } => {
                Verdict::Transient { retry_after: None }
            }
            HttpError::Status { .. } | HttpError::NotFound { .. } | HttpError::Tls { .. } => {
                Verdict::Permanent
            }
        }
    }
}

/// Sends `request` (for `url`), waiting at most `stall` for the answer's headers, and returns a
/// 2xx answer; any other status is an [`HttpError`] classified by [`classify`].
pub async fn send(
    request: reqwest::RequestBuilder,
    url: &str,
    stall: Duration,
) -> Result<reqwest::Response, HttpError> {
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
