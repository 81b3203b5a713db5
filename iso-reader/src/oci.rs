//! The pure pieces of OCI and Docker images that reading an image tarball needs: media types,
//! the annotations containerd names an import by, indexes and manifests parsed and checked,
//! and which platform runs on a node. The registry client of the builder pulls with the same.

mod manifest;
mod platform;

pub use manifest::{
    DOCKER_LIST, DOCKER_MANIFEST, Descriptor, MANIFEST_ACCEPT, Manifest, ManifestError, OCI_INDEX,
    OCI_MANIFEST, Platform, config_platform, parse_manifest,
};
pub use platform::{Arch, describe, runs_on, select};

/// The annotation containerd reads for the image name.
pub const CONTAINERD_NAME: &str = "io.containerd.image.name";
/// The OCI ref name annotation.
pub const OCI_REF_NAME: &str = "org.opencontainers.image.ref.name";
