//! What can go wrong fetching a file, and which failures are worth a retry.

use std::path::PathBuf;
use std::time::Duration;

use crate::http::HttpError;
use crate::retry::{Classify, Verdict};

/// One failure while fetching a file (or its published checksum).
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The request got no usable answer: a status that ends it, one worth a retry, a broken
    /// connection, a refused certificate, no answer within the stall timeout (the one
    /// transport's error, as every client of the builder reports it).
    #[error("{0}{hint}", hint = advice(.0))]
    Http(#[source] HttpError),
    /// Every candidate URL answered 404.
    #[error("not found (HTTP 404) at {}{}", tried.join(", "), if *.release { "; check the version and the architecture" } else { "" })]
    NotFound {
        /// The URLs tried, in order.
        tried: Vec<String>,
        /// Whether the file is a release artifact of one version and arch (it has a published
        /// checksum), whose 404 most often means a version or arch that does not exist.
        release: bool,
    },
    /// No byte of the body arrived for the read-stall timeout.
    #[error("{url} sent nothing for {} s after {received} bytes", timeout.as_secs_f64())]
    Stalled {
        /// The URL requested.
        url: String,
        /// The read-stall timeout.
        timeout: Duration,
        /// Bytes received before the stall.
        received: u64,
    },
    /// The body ended before `Content-Length` bytes arrived.
    #[error("{url} sent {received} of the {expected} bytes it announced")]
    Truncated {
        /// The URL requested.
        url: String,
        /// The announced `Content-Length`.
        expected: u64,
        /// Bytes received.
        received: u64,
    },
    /// The file's sha256 is not the published (or pinned) one.
    #[error("checksum mismatch for {file} from {url}: expected sha256 {expected}, got {actual}")]
    ChecksumMismatch {
        /// The file's name in the plan.
        file: String,
        /// The URL it came from.
        url: String,
        /// The published or pinned digest.
        expected: String,
        /// The digest of the bytes received.
        actual: String,
    },
    /// A published checksum file could not be used.
    #[error("checksum file {url} is not usable: {reason}")]
    ChecksumFile {
        /// The checksum file's URL.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A pinned digest in the plan is not 64 hex digits.
    #[error("pinned sha256 `{digest}` of {file} is not 64 hex digits")]
    BadDigest {
        /// The file's name in the plan.
        file: String,
        /// The digest given.
        digest: String,
    },
    /// A source is neither an http(s) URL nor an existing local file.
    #[error("source `{source_text}` is neither an http(s):// URL nor an existing local file")]
    BadSource {
        /// The source as given.
        source_text: String,
    },
    /// The plan lists no URL for a file.
    #[error("no URL given for {file}")]
    NoUrl {
        /// The file's name in the plan.
        file: String,
    },
    /// A file or directory could not be read or written.
    #[error("{action} {}: {source}", path.display())]
    Io {
        /// What was being done ("writing", "renaming to", ...).
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// An edit could not be applied.
    #[error("editing {file}: {reason}")]
    Edit {
        /// The file's name in the plan.
        file: String,
        /// What went wrong.
        reason: cks_pinning::sources::EditError,
    },
    /// A CA file could not be read or holds no certificate.
    #[error("CA file {}: {reason}; give a PEM file with at least one certificate", path.display())]
    CaFile {
        /// The path given.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The HTTP client could not be built.
    #[error("setting up the HTTP client: {reason}")]
    Client {
        /// What reqwest reported.
        reason: String,
    },
}

impl FetchError {
    /// An I/O error on `path`.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        let path = path.into();
        FetchError::Io {
            action,
            source: crate::space::explain(source, &path, None),
            path,
        }
    }

    /// An I/O error on `path`, a file that needs `needed` bytes when known: ENOSPC and EFBIG
    /// say it and what stopped them ([`crate::space::explain`]).
    pub fn io_needing(
        action: &'static str,
        path: impl Into<PathBuf>,
        needed: Option<u64>,
        source: std::io::Error,
    ) -> Self {
        let path = path.into();
        FetchError::Io {
            action,
            source: crate::space::explain(source, &path, needed),
            path,
        }
    }

    /// A reqwest transport error, with its chain of causes.
    pub fn transport(url: &str, error: &reqwest::Error) -> Self {
        FetchError::Http(HttpError::from_reqwest(url, error))
    }
}

/// The advice a file download adds to a transport failure.
fn advice(error: &HttpError) -> &'static str {
    match error {
        HttpError::Status { .. } => "; check the URL and the version in it",
        _ => "",
    }
}

/// The transport's failures: a 404 is the one URL tried (the downloader gathers the fallbacks),
/// anything else is embedded as it is.
impl From<HttpError> for FetchError {
    fn from(error: HttpError) -> Self {
        match error {
            HttpError::NotFound { url } => FetchError::NotFound {
                tried: vec![url],
                release: false,
            },
            other => FetchError::Http(other),
        }
    }
}

impl Classify for FetchError {
    fn verdict(&self) -> Verdict {
        match self {
            FetchError::Http(error) => error.verdict(),
            FetchError::Stalled { .. } | FetchError::Truncated { .. } => {
                Verdict::Transient { retry_after: None }
            }
            _ => Verdict::Permanent,
        }
    }
}

/// ` from URL`, unless the failure names that URL already.
fn from(url: &str, error: &FetchError) -> String {
    if url.is_empty() || error.to_string().contains(url) {
        String::new()
    } else {
        format!(" from {url}")
    }
}

/// ` after N attempts` when there was more than one.
fn after(attempts: u32) -> String {
    if attempts > 1 {
        format!(" after {attempts} attempts")
    } else {
        String::new()
    }
}

/// A file of the plan that could not be fetched: which one, from where, after how many attempts
/// and why.
#[derive(Debug, thiserror::Error)]
#[error("fetching {file}{} failed{}: {error}", from(.url, .error), after(*.attempts))]
pub struct FileError {
    /// The file's name in the plan.
    pub file: String,
    /// The last URL tried (as in the plan, before any mirror rewrite).
    pub url: String,
    /// Attempts made on that URL.
    pub attempts: u32,
    /// The last failure.
    #[source]
    pub error: FetchError,
}
