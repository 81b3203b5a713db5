//! Choosing the cluster-autoscaler release for a Kubernetes version from a remote's tags.

use std::fmt;

use semver::Version;
use thiserror::Error;

use super::ls_remote::LsRemoteError;
use super::ls_remote::RemoteTags;
use crate::image::{ImageRef, ImageRefError};
use crate::version::KubeVersion;

/// The repository the autoscaler's release images come from.
pub const IMAGE_REPOSITORY: &str = "registry.k8s.io/autoscaling/cluster-autoscaler";

/// The chosen release: its tag, version and commit, and any warnings about the choice.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AutoscalerRelease {
    /// The tag, e.g. `cluster-autoscaler-1.33.6`.
    pub tag: String,
    /// The release version without `v`, e.g. `1.33.6`.
    pub version: String,
    /// The commit the tag points to (the peeled sha for an annotated tag).
    pub commit: String,
    /// Things the caller should tell the user; the choice stands.
    pub warnings: Vec<AutoscalerWarning>,
}

impl AutoscalerRelease {
    /// The release's image, `registry.k8s.io/autoscaling/cluster-autoscaler:v<version>`
    /// (an error only for a version too long to be a tag).
    pub fn image(&self) -> Result<ImageRef, ImageRefError> {
        ImageRef::parse(&format!("{IMAGE_REPOSITORY}:v{}", self.version))
    }
}

/// A doubt about the chosen release, returned for the caller to show.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum AutoscalerWarning {
    /// The override names a release for another Kubernetes minor.
    MinorMismatch {
        /// The release chosen by the override.
        autoscaler: String,
        /// The Kubernetes version being built.
        kubernetes: String,
    },
    /// The override names a prerelease.
    Prerelease {
        /// The release chosen by the override.
        autoscaler: String,
    },
}

impl fmt::Display for AutoscalerWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AutoscalerWarning::MinorMismatch {
                autoscaler,
                kubernetes,
            } => write!(
                f,
                "AUTOSCALER_VERSION {autoscaler} is a release for another Kubernetes minor than {kubernetes}; each cluster-autoscaler release supports only its own minor"
            ),
            AutoscalerWarning::Prerelease { autoscaler } => write!(
                f,
                "AUTOSCALER_VERSION {autoscaler} is a prerelease, not a release"
            ),
        }
    }
}

/// Why no autoscaler release could be chosen.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AutoscalerError {
    /// The tag listing is not `git ls-remote` output.
    #[error(transparent)]
    Listing(#[from] LsRemoteError),
    /// The override is not a version.
    #[error(
        "AUTOSCALER_VERSION {input:?} is not a cluster-autoscaler version; expected `<major>.<minor>.<patch>` such as `1.33.4` or `v1.33.4`"
    )]
    Override {
        /// The override given.
        input: String,
    },
    /// The override names a release that is not among the tags.
    #[error(
        "AUTOSCALER_VERSION {requested} names tag cluster-autoscaler-{requested}, which the repository does not have; {}",
        list_releases(.minor, .existing)
    )]
    OverrideNotFound {
        /// The requested version.
        requested: String,
        /// Its `major.minor`.
        minor: String,
        /// The releases that exist for that minor, oldest first.
        existing: Vec<String>,
    },
    /// No release exists for the Kubernetes version's minor.
    #[error(
        "no cluster-autoscaler release for Kubernetes {minor} among {tag_count} tags (newest release: {}); set AUTOSCALER_VERSION to pick one",
        newest.as_deref().unwrap_or("none")
    )]
    NoRelease {
        /// The Kubernetes `major.minor`.
        minor: String,
        /// How many tags the listing held.
        tag_count: usize,
        /// The newest release of any minor, if there is one.
        newest: Option<String>,
    },
}

fn list_releases(minor: &str, existing: &[String]) -> String {
    if existing.is_empty() {
        format!("there is no release for {minor}; set AUTOSCALER_VERSION to an existing release")
    } else {
        format!(
            "the releases for {minor} are {}; set AUTOSCALER_VERSION to one of them",
            existing.join(", ")
        )
    }
}

/// The version of a `cluster-autoscaler-<semver>` tag, if it is one (charts and other projects'
/// tags are not).
pub fn tag_version(tag: &str) -> Option<Version> {
    let rest = tag.strip_prefix(TAG_NAME_PREFIX)?;
    let version = Version::parse(rest).ok()?;
    version.build.is_empty().then_some(version)
}

const TAG_NAME_PREFIX: &str = "cluster-autoscaler-";

/// The releases (no prereleases) among `tags`, oldest first by semver.
pub fn releases(tags: &RemoteTags) -> Vec<Version> {
    let mut versions: Vec<Version> = tags
        .iter()
        .filter_map(|tag| tag_version(tag.name))
        .filter(|version| version.pre.is_empty())
        .collect();
    versions.sort();
    versions
}

/// Chooses the autoscaler release for `kubernetes`: the override when given (`1.33.4`,
/// `v1.33.4` or `cluster-autoscaler-1.33.4`), else the newest release of the same minor.
pub fn resolve(
    tags: &RemoteTags,
    kubernetes: &KubeVersion,
    override_version: Option<&str>,
) -> Result<AutoscalerRelease, AutoscalerError> {
    let all = releases(tags);
    let same_minor = |v: &Version, major: u64, minor: u64| v.major == major && v.minor == minor;
    match override_version {
        Some(input) => {
            let text = input.trim();
            let text = text.strip_prefix(TAG_NAME_PREFIX).unwrap_or(text);
            let text = text.strip_prefix('v').unwrap_or(text);
            let requested = Version::parse(text)
                .ok()
                .filter(|v| v.build.is_empty())
                .ok_or_else(|| AutoscalerError::Override {
                    input: input.to_string(),
                })?;
            let tag_name = format!("{TAG_NAME_PREFIX}{requested}");
            let Some(tag) = tags.get(&tag_name) else {
                return Err(AutoscalerError::OverrideNotFound {
                    requested: requested.to_string(),
                    minor: format!("{}.{}", requested.major, requested.minor),
                    existing: all
                        .iter()
                        .filter(|v| same_minor(v, requested.major, requested.minor))
                        .map(Version::to_string)
                        .collect(),
                });
            };
            let mut warnings = Vec::new();
            if !same_minor(&requested, kubernetes.major, kubernetes.minor) {
                warnings.push(AutoscalerWarning::MinorMismatch {
                    autoscaler: requested.to_string(),
                    kubernetes: kubernetes.to_string(),
                });
            }
            if !requested.pre.is_empty() {
                warnings.push(AutoscalerWarning::Prerelease {
                    autoscaler: requested.to_string(),
                });
            }
            Ok(AutoscalerRelease {
                tag: tag_name,
                version: requested.to_string(),
                commit: tag.commit().to_string(),
                warnings,
            })
        }
        None => {
            let newest = all
                .iter()
                .rev()
                .find(|v| same_minor(v, kubernetes.major, kubernetes.minor))
                .ok_or_else(|| AutoscalerError::NoRelease {
                    minor: kubernetes.minor_line(),
                    tag_count: tags.len(),
                    newest: all.last().map(Version::to_string),
                })?;
            let tag_name = format!("{TAG_NAME_PREFIX}{newest}");
            // Every release version came from a listed tag, and semver prints it back unchanged.
            let commit = match tags.get(&tag_name) {
                Some(tag) => tag.commit().to_string(),
                None => {
                    return Err(AutoscalerError::NoRelease {
                        minor: kubernetes.minor_line(),
                        tag_count: tags.len(),
                        newest: Some(newest.to_string()),
                    });
                }
            };
            Ok(AutoscalerRelease {
                tag: tag_name,
                version: newest.to_string(),
                commit,
                warnings: Vec::new(),
            })
        }
    }
}

/// [`resolve`] on `git ls-remote` text, for callers that hold the listing as text.
pub fn resolve_listing(
    listing: &str,
    kubernetes: &KubeVersion,
    override_version: Option<&str>,
) -> Result<AutoscalerRelease, AutoscalerError> {
    resolve(&RemoteTags::parse(listing)?, kubernetes, override_version)
}
