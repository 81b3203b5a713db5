//! What an SBOM says in brief, as `cks-iso show` prints it: each component (a file of the ISO)
//! with its version, and each image reference with its digest. Pure: works on the text read.

use serde::Serialize;

use super::reader::SpdxDocument;

/// Why an SBOM cannot be summarized.
#[derive(Debug, thiserror::Error)]
pub enum SummaryError {
    /// The text is not JSON of an SPDX document's shape.
    #[error("not JSON: {0}")]
    NotJson(#[from] serde_json::Error),
    /// The document has no `packages` list.
    #[error("no `packages` list")]
    NoPackages,
}

/// A file of the ISO as the SBOM names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Component {
    /// The package name (`kubeadm`, `cni-plugins-amd64.tgz`).
    pub name: String,
    /// Its version, when the SBOM records one.
    pub version: Option<String>,
}

/// An image as the SBOM names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImageSummary {
    /// The reference with its tag, `registry.k8s.io/pause:3.10`.
    pub reference: String,
    /// The digest, `sha256:...`.
    pub digest: String,
}

/// The SBOM in brief.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// The creators (`Tool: cks-iso-0.1.0 (commit ...)`).
    pub creators: Vec<String>,
    /// The files, in the SBOM's order.
    pub components: Vec<Component>,
    /// The images, in the SBOM's order.
    pub images: Vec<ImageSummary>,
}

/// The summary of an SPDX JSON document: packages of purpose `FILE` are components, packages
/// with an `oci-reference` are images; an error when the text is not JSON with `packages`.
///
/// ```
/// let text = r#"{"packages": [
///   {"name": "kubeadm", "versionInfo": "1.33.13", "primaryPackagePurpose": "FILE"},
///   {"name": "registry.k8s.io/pause", "primaryPackagePurpose": "CONTAINER", "externalRefs": [
///     {"referenceType": "oci-reference", "referenceLocator": "registry.k8s.io/pause:3.10@sha256:ab"}]}
/// ]}"#;
/// let summary = cks_pinning::sbom::summarize(text).expect("an SBOM");
/// assert_eq!(summary.components[0].version.as_deref(), Some("1.33.13"));
/// assert_eq!(summary.images[0].reference, "registry.k8s.io/pause:3.10");
/// assert_eq!(summary.images[0].digest, "sha256:ab");
/// ```
pub fn summarize(text: &str) -> Result<Summary, SummaryError> {
    let document: SpdxDocument = serde_json::from_str(text)?;
    let packages = document.packages.ok_or(SummaryError::NoPackages)?;
    let mut summary = Summary {
        creators: document
            .creation_info
            .and_then(|info| info.creators)
            .unwrap_or_default(),
        ..Summary::default()
    };
    for package in &packages {
        if let Some(locator) = package.oci_reference() {
            let (reference, digest) = locator.split_once('@').unwrap_or((locator, ""));
            summary.images.push(ImageSummary {
                reference: reference.to_string(),
                digest: digest.to_string(),
            });
        } else if package.primary_package_purpose.as_deref() == Some("FILE") {
            summary.components.push(Component {
                name: package.name.clone().unwrap_or_default(),
                version: package.version_info.clone(),
            });
        }
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The summary reads the creators, the files (purpose `FILE`) and the images (an
    /// `oci-reference`), and passes over the rest (the ISO's own package, an archive).
    #[test]
    fn files_and_images_are_summarized_and_the_rest_passed_over() {
        let text = r#"{"spdxVersion": "SPDX-2.3",
          "creationInfo": {"creators": ["Tool: cks-iso-0.1.0 (commit abc)"], "created": "x"},
          "packages": [
            {"SPDXID": "SPDXRef-ISO", "name": "cks", "primaryPackagePurpose": "ARCHIVE"},
            {"name": "kubeadm", "versionInfo": "1.33.13", "primaryPackagePurpose": "FILE"},
            {"name": "notes.txt", "primaryPackagePurpose": "FILE"},
            {"name": "registry.k8s.io/pause", "primaryPackagePurpose": "CONTAINER",
             "externalRefs": [{"referenceType": "purl", "referenceLocator": "pkg:oci/pause"},
                              {"referenceType": "oci-reference",
                               "referenceLocator": "registry.k8s.io/pause:3.10@sha256:ab"}]}
          ]}"#;
        let summary = summarize(text).expect("an SBOM");
        assert_eq!(summary.creators, ["Tool: cks-iso-0.1.0 (commit abc)"]);
        assert_eq!(
            summary.components,
            [
                Component {
                    name: "kubeadm".into(),
                    version: Some("1.33.13".into())
                },
                Component {
                    name: "notes.txt".into(),
                    version: None
                }
            ]
        );
        assert_eq!(
            summary.images,
            [ImageSummary {
                reference: "registry.k8s.io/pause:3.10".into(),
                digest: "sha256:ab".into()
            }]
        );
    }

    /// Text that is not JSON, and a document without packages, are refused, each naming why.
    #[test]
    fn what_is_no_sbom_is_refused_naming_why() {
        let not_json = summarize("{").expect_err("not JSON");
        assert!(not_json.to_string().starts_with("not JSON: "), "{not_json}");
        for text in [r#"{"spdxVersion": "SPDX-2.3"}"#, r#"{"packages": null}"#] {
            let error = summarize(text).expect_err("no packages");
            assert_eq!(error.to_string(), "no `packages` list");
        }
        let empty = summarize(r#"{"packages": []}"#).expect("no packages is a summary");
        assert_eq!(empty, Summary::default());
    }
}
