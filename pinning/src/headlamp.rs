//! The Headlamp dashboard pin: a release version, the manifest of its tag, and the image of
//! that release (the manifest names `:latest` at every tag, so the build pins the release's own
//! tag instead). Also how the script's sixth argument is read: a Headlamp version (the 4.23
//! script's form) or a dashboard manifest URL or path (the 4.22 script's form).

use thiserror::Error;

use crate::image::{ImageRef, ImageRefError};

/// The repository of the Headlamp image.
pub const IMAGE_REPOSITORY: &str = "ghcr.io/headlamp-k8s/headlamp";
/// The ISO path of the Headlamp manifest, as the 4.23 build script writes it.
pub const ISO_PATH: &str = "headlamp.yaml";

/// A Headlamp release, `0.40.1` (given as `0.40.1` or `v0.40.1`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct HeadlampVersion(semver::Version);

/// Why a Headlamp version is refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HeadlampError {
    /// Not `[v]<major>.<minor>.<patch>[-<pre>]`.
    #[error(
        "Headlamp version {input:?} is not a release; expected `[v]<major>.<minor>.<patch>` such as 0.40.1 or v0.40.1"
    )]
    Malformed {
        /// The text given.
        input: String,
    },
    /// The release tag does not make an image reference.
    #[error("Headlamp version {input:?} does not make an image reference: {source}")]
    Image {
        /// The text given.
        input: String,
        /// Why.
        source: ImageRefError,
    },
}

impl HeadlampVersion {
    /// Parses `0.40.1` or `v0.40.1`.
    ///
    /// ```
    /// use cks_pinning::headlamp::HeadlampVersion;
    /// let v = HeadlampVersion::parse("v0.40.1").expect("a release");
    /// assert_eq!(v.bare(), "0.40.1");
    /// assert_eq!(v.manifest_url(), "https://raw.githubusercontent.com/kubernetes-sigs/headlamp/v0.40.1/kubernetes-headlamp.yaml");
    /// assert_eq!(v.image().expect("valid").to_string(), "ghcr.io/headlamp-k8s/headlamp:v0.40.1");
    /// ```
    pub fn parse(text: &str) -> Result<HeadlampVersion, HeadlampError> {
        let bare = text.strip_prefix('v').unwrap_or(text);
        semver::Version::parse(bare)
            .ok()
            .filter(|v| v.build.is_empty())
            .map(HeadlampVersion)
            .ok_or_else(|| HeadlampError::Malformed {
                input: text.to_string(),
            })
    }

    /// The release without `v`, `0.40.1`.
    pub fn bare(&self) -> String {
        self.0.to_string()
    }

    /// The release tag, `v0.40.1`.
    pub fn tag(&self) -> String {
        format!("v{}", self.0)
    }

    /// The manifest at the release tag, the URL the 4.23 build script fetches.
    pub fn manifest_url(&self) -> String {
        format!(
            "https://raw.githubusercontent.com/kubernetes-sigs/headlamp/{}/kubernetes-headlamp.yaml",
            self.tag()
        )
    }

    /// The release's own image, `ghcr.io/headlamp-k8s/headlamp:v<version>`.
    pub fn image(&self) -> Result<ImageRef, HeadlampError> {
        ImageRef::parse(&format!("{IMAGE_REPOSITORY}:{}", self.tag())).map_err(|source| {
            HeadlampError::Image {
                input: self.bare(),
                source,
            }
        })
    }
}

impl TryFrom<String> for HeadlampVersion {
    type Error = HeadlampError;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        HeadlampVersion::parse(&text)
    }
}

impl From<HeadlampVersion> for String {
    fn from(version: HeadlampVersion) -> String {
        version.bare()
    }
}

impl std::fmt::Display for HeadlampVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// What the script's sixth argument names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DashboardArgument {
    /// A Headlamp release (the 4.23 script's form, `0.40.1`).
    Headlamp(HeadlampVersion),
    /// A dashboard manifest URL or local path (the 4.22 script's form).
    Manifest(String),
}

/// Reads the sixth argument: text that parses as a release version (`0.40.1`, `v0.40.1`) is a
/// Headlamp version; anything else is a dashboard manifest URL or path.
///
/// ```
/// use cks_pinning::headlamp::{DashboardArgument, dashboard_argument};
/// assert!(matches!(dashboard_argument("0.40.1"), DashboardArgument::Headlamp(_)));
/// assert!(matches!(dashboard_argument("./recommended.yaml"), DashboardArgument::Manifest(_)));
/// ```
pub fn dashboard_argument(text: &str) -> DashboardArgument {
    match HeadlampVersion::parse(text) {
        Ok(version) => DashboardArgument::Headlamp(version),
        Err(_) => DashboardArgument::Manifest(text.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_upstream_form_and_the_tag_form() {
        for text in ["0.40.1", "v0.40.1"] {
            let v = HeadlampVersion::parse(text).expect(text);
            assert_eq!(v.tag(), "v0.40.1");
            assert!(v.manifest_url().contains("/headlamp/v0.40.1/"));
        }
    }

    #[test]
    fn refuses_what_is_not_a_release_naming_it() {
        for text in [
            "",
            "latest",
            "0.40",
            "vv0.40.1",
            "0.40.1+build",
            "https://x/y.yaml",
        ] {
            let err = HeadlampVersion::parse(text).expect_err(text);
            assert!(err.to_string().contains(&format!("{text:?}")), "{err}");
        }
    }

    #[test]
    fn urls_and_paths_are_dashboard_manifests() {
        for text in [
            "https://raw.githubusercontent.com/kubernetes/dashboard/v2.7.0/aio/deploy/recommended.yaml",
            "dashboard.yaml",
            "/srv/0.40.1",
        ] {
            assert_eq!(
                dashboard_argument(text),
                DashboardArgument::Manifest(text.to_string())
            );
        }
    }
}
