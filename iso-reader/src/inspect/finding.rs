//! One thing wrong with an ISO: the file it concerns, what kind of problem it is and the details.

use std::fmt;

use serde::Serialize;

/// The kinds of problem `verify` finds, one per rule of the node contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Problem {
    /// The volume identifier is not `CDROM`.
    VolumeId,
    /// `versions.txt` is missing or cannot be parsed.
    VersionsTxt,
    /// A file's sha256 differs from its `file:` line.
    Checksum,
    /// A `file:` line names a file the ISO does not hold.
    ListedButMissing,
    /// A file of the ISO has no `file:` line.
    Unlisted,
    /// A file the node scripts read is missing.
    MissingRequired,
    /// A glob the node scripts use matches more than one file.
    Ambiguous,
    /// Something is present that must only come with something else (or is not wanted).
    Unexpected,
    /// An entry's mode keeps a node from reading or running it.
    Mode,
    /// A `docker/` entry is not an importable image tarball.
    Tarball,
    /// A tarball does not match an `image:` line, or an `image:` line has no tarball.
    Image,
    /// Not exactly one pause image.
    PauseImage,
    /// The autoscaler manifest lost its `<min>:<max>:<cluster-id>` placeholders.
    Placeholders,
    /// A root manifest sets `imagePullPolicy: Always`.
    PullPolicy,
    /// A root manifest is not valid YAML, or names an image that is neither bundled nor skipped.
    Manifest,
    /// A file of the image cannot be read out.
    Unreadable,
    /// A kubelet unit runs an `/opt/bin` command that neither the ISO nor a node provides.
    UnitCommand,
    /// The SBOM is missing or does not describe what `versions.txt` records.
    Sbom,
}

impl Problem {
    /// A short name, as printed: `checksum`, `mode`, `pause-image`, …
    pub fn name(self) -> &'static str {
        match self {
            Problem::VolumeId => "volume-id",
            Problem::VersionsTxt => "versions-txt",
            Problem::Checksum => "checksum",
            Problem::ListedButMissing => "listed-but-missing",
            Problem::Unlisted => "unlisted",
            Problem::MissingRequired => "missing-required",
            Problem::Ambiguous => "ambiguous",
            Problem::Unexpected => "unexpected",
            Problem::Mode => "mode",
            Problem::Tarball => "tarball",
            Problem::Image => "image",
            Problem::PauseImage => "pause-image",
            Problem::Placeholders => "placeholders",
            Problem::PullPolicy => "pull-policy",
            Problem::Manifest => "manifest",
            Problem::Unreadable => "unreadable",
            Problem::UnitCommand => "unit-command",
            Problem::Sbom => "sbom",
        }
    }
}

/// One problem with one file of the ISO.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The path in the ISO it concerns, without a leading `/` (`k8s/kubeadm`); `/` for the
    /// volume itself.
    pub path: String,
    /// The kind of problem.
    pub problem: Problem,
    /// What is wrong and what a node would do with it.
    pub detail: String,
}

impl Finding {
    /// A finding about `path`.
    pub fn new(path: impl Into<String>, problem: Problem, detail: impl Into<String>) -> Self {
        Finding {
            path: path.into(),
            problem,
            detail: detail.into(),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: [{}] {}",
            self.path,
            self.problem.name(),
            self.detail
        )
    }
}
