//! Why an ISO from a cache (or already in place) is not the one this build writes: each way the
//! check of a written ISO can refuse it, as a type callers match on; its text is the one line a
//! warning or a summary shows.

/// What the check of a written ISO found wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IsoRefusal {
    /// The image cannot be read, or its trees do not agree.
    #[error("{0}")]
    Unreadable(String),
    /// Its volume id is another.
    #[error("its volume id is {actual:?}, not {wanted:?}")]
    VolumeId {
        /// The one it has.
        actual: String,
        /// The one this build writes.
        wanted: String,
    },
    /// It holds an entry this build does not make.
    #[error("it holds {0}, which this build does not make")]
    Extra(String),
    /// A planned file has another mode.
    #[error("{path} has mode {actual:o}, not {wanted:o}")]
    Mode {
        /// The file.
        path: String,
        /// Its mode.
        actual: u32,
        /// The planned mode.
        wanted: u32,
    },
    /// A planned file is missing.
    #[error("it lacks {0}")]
    Missing(String),
    /// The caller gave no architecture to check images for.
    #[error("no target architecture to check images for")]
    NoArch,
    /// A planned file's bytes hash to another sha256.
    #[error("{path} hashes to {actual}, not {wanted}")]
    Digest {
        /// The file.
        path: String,
        /// What its bytes hash to.
        actual: String,
        /// What the build knows it must.
        wanted: String,
    },
    /// An image tarball is not the one this build writes for its digest.
    #[error("{path}: {reason}")]
    Tarball {
        /// The tarball.
        path: String,
        /// What its check found.
        reason: String,
    },
    /// A generated file cannot be read.
    #[error("{path}: {reason}")]
    Generated {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// A file was never read (the check stopped before it).
    #[error("{0} was not read")]
    NotRead(String),
    /// Its seal lists other files, digests or images than this build plans.
    #[error("its seal {0}")]
    Seal(String),
    /// A generated file is not the one this build renders.
    #[error("its {0} is not the one this build writes from what it verified")]
    NotRendered(String),
    /// Its bytes are not the ones kept (the sha256, or the chain of checkpoints, differs).
    #[error("{0}")]
    Unproven(String),
    /// What the build would write cannot be known without downloading it.
    #[error("what this run builds cannot be learnt without downloading it")]
    Unknowable,
    /// Its `versions.txt` records no build time (and `SOURCE_DATE_EPOCH` is not set).
    #[error("its versions.txt records no build time")]
    NoBuildTime,
}
