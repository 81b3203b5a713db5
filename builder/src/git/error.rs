//! What can go wrong listing a remote's refs, and which failures are worth a retry.

use std::time::Duration;

use crate::retry::{Classify, Verdict};

/// A failure listing the refs of a git remote.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// The URL is of a kind not spoken here.
    #[error(
        "git remote `{url}` is not http(s)://, git:// or an existing local repository; ssh is not supported, use the https URL"
    )]
    UnsupportedUrl {
        /// The URL given.
        url: String,
    },
    /// The server answered an HTTP status that ends the listing (4xx other than 408 and 429).
    #[error("{url} answered HTTP {status}; check the repository URL")]
    Status {
        /// The URL requested.
        url: String,
        /// The HTTP status.
        status: u16,
    },
    /// A status worth retrying (5xx, 408, 429).
    #[error("{url} answered HTTP {status}")]
    Unavailable {
        /// The URL requested.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The server's `Retry-After`, if any.
        retry_after: Option<Duration>,
    },
    /// The connection could not be made or broke.
    #[error("talking to {url} failed: {reason}")]
    Transport {
        /// The URL (or address) involved.
        url: String,
        /// What failed.
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
    /// Nothing arrived for the read-stall timeout.
    #[error("{url} sent nothing for {} s", timeout.as_secs_f64())]
    Stalled {
        /// The URL requested.
        url: String,
        /// The read-stall timeout.
        timeout: Duration,
    },
    /// The answer ended before its closing flush packet.
    #[error("the answer of {url} ended early")]
    Truncated {
        /// The URL requested.
        url: String,
    },
    /// The answer is not the git protocol.
    #[error("{url} did not answer in the git protocol: {reason}")]
    Protocol {
        /// The URL requested.
        url: String,
        /// What was wrong.
        reason: String,
    },
    /// The server reported an error (`ERR` packet), such as a missing repository.
    #[error("{url}: the server said: {message}")]
    Remote {
        /// The URL requested.
        url: String,
        /// The server's message.
        message: String,
    },
    /// The local `git upload-pack` failed.
    #[error("`git upload-pack` on {url} failed ({status}): {stderr}")]
    Program {
        /// The local repository.
        url: String,
        /// Its exit status.
        status: String,
        /// What it printed on stderr.
        stderr: String,
    },
    /// The HTTP client could not be built (an unusable CA file).
    #[error(transparent)]
    Client(#[from] crate::fetch::FetchError),
}

impl GitError {
    /// A reqwest error on `url`, with its causes.
    pub fn reqwest(url: &str, error: &reqwest::Error) -> Self {
        GitError::from(crate::http::HttpError::from_reqwest(url, error))
    }

    /// An I/O error on a git:// connection.
    pub fn io(url: &str, error: &std::io::Error) -> Self {
        GitError::Transport {
            url: url.to_string(),
            reason: error.to_string(),
        }
    }
}

/// The transport's failures, with the advice a tag listing gives (a 404 is a status like any
/// other 4xx: the repository URL is wrong).
impl From<crate::http::HttpError> for GitError {
    fn from(error: crate::http::HttpError) -> Self {
        use crate::http::HttpError;
        match error {
            HttpError::Status { url, status } => GitError::Status { url, status },
            HttpError::NotFound { url } => GitError::Status { url, status: 404 },
            HttpError::Unavailable {
                url,
                status,
                retry_after,
            } => GitError::Unavailable {
                url,
                status,
                retry_after,
            },
            HttpError::Transport { url, reason } => GitError::Transport { url, reason },
            HttpError::Tls { url, reason } => GitError::Tls { url, reason },
            HttpError::Stalled { url, timeout } => GitError::Stalled { url, timeout },
        }
    }
}

impl Classify for GitError {
    fn verdict(&self) -> Verdict {
        match self {
            GitError::Unavailable { retry_after, .. } => Verdict::Transient {
                retry_after: *retry_after,
            },
            GitError::Transport { .. } | GitError::Stalled { .. } | GitError::Truncated { .. } => {
                Verdict::Transient { retry_after: None }
            }
            _ => Verdict::Permanent,
        }
    }
}
