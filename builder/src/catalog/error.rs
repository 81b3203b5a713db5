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
    /// A `.sha256` sidecar names another digest than its ISO hashes to.
    #[error(
        "{sidecar} says sha256 {listed} but its ISO hashes to {actual}: the ISO or its sidecar was changed after the build; nothing is signed: build it again (`cks-iso release` rebuilds it) or remove both"
    )]
    Sidecar {
        /// The sidecar.
        sidecar: PathBuf,
        /// What it names.
        listed: String,
        /// What the ISO hashes to.
        actual: String,
    },
    /// The folder holds no ISO.
    #[error(
        "{dir} holds no *.iso: a catalog of nothing is not written (nor signed); build the ISOs into it first (`cks-iso release --output-path {dir}`)"
    )]
    Empty {
        /// The folder.
        dir: PathBuf,
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
