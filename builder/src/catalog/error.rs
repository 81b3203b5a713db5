//! Why the catalog could not be written: each names the file.

use std::path::PathBuf;

use crate::signing::SigningError;

/// What stopped `cks-iso catalog`.
#[derive(Debug, thiserror::Error)]
pub enum CatalogWriteError {
    /// A file or the folder cannot be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// An ISO cannot be read, or has no usable `versions.txt`.
    #[error("{iso}: {detail}; remove it from the folder or build it again with `cks-iso build`")]
    Iso {
        /// The ISO.
        iso: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// `--base-url` is not an http(s) URL.
    #[error(
        "--base-url {url}: expected an http:// or https:// URL of the folder the ISOs are published in"
    )]
    BaseUrl {
        /// The URL given.
        url: String,
    },
    /// Signing failed.
    #[error("{0}")]
    Signing(#[from] SigningError),
}
