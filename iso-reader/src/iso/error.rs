//! The errors of reading ISO images.

use std::path::PathBuf;

/// What can go wrong reading an ISO image.
#[derive(Debug, thiserror::Error)]
pub enum IsoError {
    /// An image cannot be opened or read.
    #[error("cannot read the ISO {iso}: {detail}")]
    Read {
        /// The image read.
        iso: PathBuf,
        /// What failed.
        detail: String,
    },
    /// The image's trees do not agree, or it carries what the writer never writes.
    #[error(
        "refusing the ISO {iso}: {problem}; a node could read other bytes than the ones checked, so build it again"
    )]
    Trees {
        /// The image read.
        iso: PathBuf,
        /// What is wrong with its trees.
        problem: super::trees::TreeError,
    },
    /// A path asked of an image is not a file in it.
    #[error("{path} is not a file in the ISO {iso}")]
    NotAFile {
        /// The image read.
        iso: PathBuf,
        /// The path asked for.
        path: String,
    },
}
