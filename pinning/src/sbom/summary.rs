//! What an SBOM says in brief, as `cks-iso show` prints it: each component (a file of the ISO)
//! with its version, and each image reference with its digest. Pure: works on the text read.

use serde::Serialize;
use serde_json::Value;

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
// Stays a String: ISO inspection records this text as the detail of an unreadable SBOM.
pub fn summarize(text: &str) -> Result<Summary, String> {
    let document: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let packages = document["packages"]
        .as_array()
        .ok_or_else(|| "no `packages` list".to_string())?;
    let mut summary = Summary {
        creators: document["creationInfo"]["creators"]
            .as_array()
            .map(|c| {
                c.iter()
                    .filter_map(|c| c.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default(),
        ..Summary::default()
    };
    for package in packages {
        let name = package["name"].as_str().unwrap_or_default().to_string();
        let locator = package["externalRefs"].as_array().and_then(|refs| {
            refs.iter().find_map(|r| {
                (r["referenceType"] == "oci-reference")
                    .then(|| r["referenceLocator"].as_str())
                    .flatten()
            })
        });
        if let Some(locator) = locator {
            let (reference, digest) = locator.split_once('@').unwrap_or((locator, ""));
            summary.images.push(ImageSummary {
                reference: reference.to_string(),
                digest: digest.to_string(),
            });
        } else if package["primaryPackagePurpose"] == "FILE" {
            summary.components.push(Component {
                name,
                version: package["versionInfo"].as_str().map(String::from),
            });
        }
    }
    Ok(summary)
}
