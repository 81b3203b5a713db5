//! Why an ISO cannot be inspected at all (problems with its content are findings, not errors).

use std::path::PathBuf;

use cks_pinning::versions_txt::VersionsTxtError;

use crate::iso::IsoError;

/// What keeps `verify` or `diff` from reading an ISO.
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    /// The image cannot be opened or listed.
    #[error("cannot read {iso} as an ISO 9660 image: {source}")]
    Open {
        /// The image.
        iso: PathBuf,
        /// What the reader said.
        source: IsoError,
    },
    /// A file of the image cannot be read out.
    #[error("cannot read {path} from {iso}: {detail}")]
    Unreadable {
        /// The image.
        iso: PathBuf,
        /// The file in the image.
        path: String,
        /// What failed.
        detail: String,
    },
    /// `versions.txt` cannot be parsed.
    #[error("{iso}: {source}")]
    VersionsTxt {
        /// The image.
        iso: PathBuf,
        /// The parse error.
        source: VersionsTxtError,
    },
    /// A scratch file for streaming a tarball out cannot be made.
    #[error(
        "cannot make a scratch file in {dir} to check image tarballs: {source}; set TMPDIR to a writable directory"
    )]
    Scratch {
        /// The directory tried.
        dir: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}
