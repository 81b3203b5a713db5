//! The fields of our SPDX 2.3 JSON document that the checks and the summary read, as typed
//! structs; every other field is allowed and ignored.

use serde::Deserialize;

/// The SPDX document: its version and its packages.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SpdxDocument {
    /// `SPDX-2.3` for the documents we write; absent or `null` reads as `None`.
    #[serde(default)]
    pub spdx_version: Option<String>,
    /// The packages; absent or `null` reads as `None`.
    #[serde(default)]
    pub packages: Option<Vec<SpdxPackage>>,
    /// Who made the document and when.
    #[serde(default)]
    pub creation_info: Option<SpdxCreationInfo>,
}

/// Who made the document.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SpdxCreationInfo {
    /// The creators (`Tool: cks-iso-0.1.0 (commit ...)`).
    #[serde(default)]
    pub creators: Option<Vec<String>>,
}

/// One package: the ISO, a bundled file or an image.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SpdxPackage {
    /// `SPDXRef-ISO` for the ISO's own package.
    #[serde(rename = "SPDXID", default)]
    pub spdx_id: Option<String>,
    /// The package's name (`kubeadm`, `registry.k8s.io/pause`).
    #[serde(default)]
    pub name: Option<String>,
    /// `FILE` for a bundled file, `CONTAINER` for an image.
    #[serde(default)]
    pub primary_package_purpose: Option<String>,
    /// The ISO package's Kubernetes version.
    #[serde(default)]
    pub version_info: Option<String>,
    /// A bundled file's path in the ISO.
    #[serde(default)]
    pub package_file_name: Option<String>,
    /// The package's checksums.
    #[serde(default)]
    pub checksums: Option<Vec<SpdxChecksum>>,
    /// The package's external references: an image's `oci-reference`.
    #[serde(default)]
    pub external_refs: Option<Vec<SpdxExternalRef>>,
}

/// A checksum of a package.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SpdxChecksum {
    /// `SHA256` for the ones we write.
    #[serde(default)]
    pub algorithm: Option<String>,
    /// The lowercase hex digest.
    #[serde(default)]
    pub checksum_value: Option<String>,
}

/// An external reference of a package.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SpdxExternalRef {
    /// `oci-reference` for an image.
    #[serde(default)]
    pub reference_type: Option<String>,
    /// The image reference, `name:tag@sha256:…`.
    #[serde(default)]
    pub reference_locator: Option<String>,
}

impl SpdxPackage {
    /// Whether this is the ISO's own package.
    pub fn is_iso(&self) -> bool {
        self.spdx_id.as_deref() == Some("SPDXRef-ISO")
    }

    /// The package's SHA-256 checksum, when it has one.
    pub fn sha256(&self) -> Option<&str> {
        self.checksums.as_deref()?.iter().find_map(|c| {
            (c.algorithm.as_deref() == Some("SHA256"))
                .then_some(c.checksum_value.as_deref())
                .flatten()
        })
    }

    /// The image reference of an image's package.
    pub fn oci_reference(&self) -> Option<&str> {
        self.external_refs.as_deref()?.iter().find_map(|r| {
            (r.reference_type.as_deref() == Some("oci-reference"))
                .then_some(r.reference_locator.as_deref())
                .flatten()
        })
    }
}
