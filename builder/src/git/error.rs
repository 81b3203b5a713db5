//! What can go wrong listing a remote's refs, and which failures are worth a retry.

use std::time::Duration;

use crate::http::HttpError;
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
    /// The request got no usable answer (the one transport's error, as every client of the
    /// builder reports it); a 404 means the repository URL is wrong.
    #[error("{0}{hint}", hint = advice(.0))]
    Http(#[source] HttpError),
    /// A git:// connection could not be made or broke.
    #[error("talking to {url} failed: {reason}")]
    Transport {
        /// The URL (or address) involved.
        url: String,
        /// What failed.
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
        GitError::Http(HttpError::from_reqwest(url, error))
    }

    /// An I/O error on a git:// connection.
    pub fn io(url: &str, error: &std::io::Error) -> Self {
        GitError::Transport {
            url: url.to_string(),
            reason: error.to_string(),
        }
    }
}

/// The advice a tag listing adds to a transport failure.
fn advice(error: &HttpError) -> &'static str {
    match error {
        HttpError::Status { .. } | HttpError::NotFound { .. } => "; check the repository URL",
        _ => "",
    }
}

impl From<HttpError> for GitError {
    fn from(error: HttpError) -> Self {
        GitError::Http(error)
    }
}

impl Classify for GitError {
    fn verdict(&self) -> Verdict {
        match self {
            GitError::Http(error) => error.verdict(),
            GitError::Transport { .. } | GitError::Stalled { .. } | GitError::Truncated { .. } => {
                Verdict::Transient { retry_after: None }
            }
            _ => Verdict::Permanent,
        }
    }
}
