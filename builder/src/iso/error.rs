//! The errors of packing ISO images.

use std::path::PathBuf;

/// What can go wrong packing a directory into an ISO image (reading one back fails with
/// [`super::IsoError`]).
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    /// `SOURCE_DATE_EPOCH` is set but is not a number of seconds.
    #[error(
        "SOURCE_DATE_EPOCH is {value:?}, expected a whole number of seconds since 1970-01-01 \
         (for example `SOURCE_DATE_EPOCH=$(git log -1 --format=%ct)`); unset it to date the image \
         with the build's start time"
    )]
    SourceDateEpoch {
        /// The value found in the environment.
        value: String,
    },
    /// The volume identifier cannot be stored.
    #[error(
        "volume id {id:?} is not usable: expected 1 to 32 characters of A-Z, 0-9 and _ \
         (ISO 9660 d-characters), such as CDROM"
    )]
    VolumeId {
        /// The identifier asked for.
        id: String,
    },
    /// The input directory cannot be read.
    #[error("cannot read the input directory {dir}: {detail}; give an existing directory to pack")]
    Input {
        /// The directory asked for.
        dir: PathBuf,
        /// What failed.
        detail: String,
    },
    /// The input tree holds something an ISO for CKS nodes must not carry.
    #[error(
        "{path} in {dir} is a device, FIFO or socket; the image holds only files, directories \
         and symlinks, so remove it from the tree"
    )]
    SpecialFile {
        /// The directory being packed.
        dir: PathBuf,
        /// The entry's path inside it.
        path: String,
    },
    /// The output path cannot be used.
    #[error("cannot write the ISO to {out}: {detail}")]
    Output {
        /// The output path asked for.
        out: PathBuf,
        /// What is wrong with it.
        detail: String,
    },
    /// Laying out or writing the image failed.
    #[error("writing the ISO {out} failed: {detail}")]
    Write {
        /// The output path.
        out: PathBuf,
        /// What the writer reported, with the file at fault when there is one.
        detail: String,
    },
}
