//! The CloudStack cloud controller manager (CCM) pin: its release tag and image.

use thiserror::Error;

use crate::image::{ImageRef, ImageRefError};

/// The default CCM release: the first one that initialises nodes.
pub const DEFAULT_TAG: &str = "v1.2.0";
/// The repository of the CCM image, whatever image a release's manifest names.
pub const IMAGE_REPOSITORY: &str = "apache/cloudstack-kubernetes-provider";

/// The chosen CCM release.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CcmPin {
    /// The release tag with its leading `v`, e.g. `v1.2.0`.
    pub tag: String,
    /// The image to run: `docker.io/apache/cloudstack-kubernetes-provider:<tag>`.
    pub image: ImageRef,
}

/// Why a CCM override is refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CcmError {
    /// The override is not a version such as `1.2.0`, `v1.3.0` or `1.3.0-rc1`.
    #[error(
        "CCM_VERSION {input:?} is not a cloudstack-kubernetes-provider release; expected `[v]<major>.<minor>.<patch>[-<prerelease>]` such as `v1.2.0` or `1.3.0-rc1`"
    )]
    Malformed {
        /// The override given.
        input: String,
    },
    /// The tag does not make a valid image reference.
    #[error("CCM_VERSION {input:?} does not make a valid image reference: {source}")]
    Image {
        /// The override given.
        input: String,
        /// Why the reference is invalid.
        source: ImageRefError,
    },
}

/// Pins the CCM: [`DEFAULT_TAG`] without an override, else the override with a leading `v`
/// (`1.3.0-rc1` means `v1.3.0-rc1`).
///
/// ```
/// let pin = cks_pinning::ccm::pin(Some("1.3.0-rc1")).expect("valid override");
/// assert_eq!(pin.tag, "v1.3.0-rc1");
/// assert_eq!(pin.image.to_string(), "docker.io/apache/cloudstack-kubernetes-provider:v1.3.0-rc1");
/// ```
pub fn pin(override_version: Option<&str>) -> Result<CcmPin, CcmError> {
    let tag = match override_version {
        None => DEFAULT_TAG.to_string(),
        Some(input) => {
            let bare = input.strip_prefix('v').unwrap_or(input);
            semver::Version::parse(bare).map_err(|_| CcmError::Malformed {
                input: input.to_string(),
            })?;
            format!("v{bare}")
        }
    };
    let image = ImageRef::parse(&format!("{IMAGE_REPOSITORY}:{tag}")).map_err(|source| {
        CcmError::Image {
            input: override_version.unwrap_or(DEFAULT_TAG).to_string(),
            source,
        }
    })?;
    Ok(CcmPin { tag, image })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_to_the_first_release_that_initialises_nodes() {
        let pin = pin(None).expect("default");
        assert_eq!(pin.tag, "v1.2.0");
        assert_eq!(
            pin.image.to_string(),
            "docker.io/apache/cloudstack-kubernetes-provider:v1.2.0"
        );
    }

    #[test]
    fn override_gets_a_leading_v() {
        for (input, tag) in [
            ("1.3.0-rc1", "v1.3.0-rc1"),
            ("v1.3.0-rc1", "v1.3.0-rc1"),
            ("1.1.0", "v1.1.0"),
        ] {
            let pinned = pin(Some(input)).expect(input);
            assert_eq!(pinned.tag, tag);
            assert_eq!(pinned.image.tag(), Some(tag));
            assert_eq!(pinned.image.repository(), IMAGE_REPOSITORY);
        }
    }

    #[test]
    fn refuses_malformed_overrides_naming_them() {
        for input in ["", "latest", "vv1.2.0", "1.2", "1.2.0 ", "v1.2.0/x"] {
            let error = pin(Some(input)).expect_err(input);
            assert!(error.to_string().contains(&format!("{input:?}")), "{error}");
        }
    }
}
