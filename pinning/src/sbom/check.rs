//! Checks an SBOM against `versions.txt`: the two must describe the same files (each image's
//! tarball too, by its SHA-256) and images.

use std::collections::BTreeMap;

use super::reader::{SpdxDocument, SpdxPackage};
use crate::versions_txt::VersionsTxt;

/// A way the SBOM and `versions.txt` disagree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SbomMismatch {
    /// The SBOM is not an SPDX 2.3 JSON document.
    NotSpdx(String),
    /// A file of versions.txt has no package in the SBOM.
    MissingFile(String),
    /// A file's SHA-256 differs.
    FileDigest {
        /// The path in the ISO.
        path: String,
        /// In versions.txt.
        versions_txt: String,
        /// In the SBOM.
        sbom: String,
    },
    /// An image of versions.txt has no package in the SBOM.
    MissingImage(String),
    /// A package of the SBOM names a file or image versions.txt does not hold.
    Extra(String),
    /// The ISO package's version is not versions.txt's Kubernetes version.
    Version {
        /// In versions.txt.
        versions_txt: String,
        /// In the SBOM.
        sbom: String,
    },
}

impl std::fmt::Display for SbomMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SbomMismatch::NotSpdx(why) => write!(f, "not an SPDX 2.3 JSON document: {why}"),
            SbomMismatch::MissingFile(path) => write!(f, "file {path} is not in the SBOM"),
            SbomMismatch::FileDigest {
                path,
                versions_txt,
                sbom,
            } => write!(
                f,
                "file {path}: versions.txt says sha256:{versions_txt}, the SBOM sha256:{sbom}"
            ),
            SbomMismatch::MissingImage(image) => write!(f, "image {image} is not in the SBOM"),
            SbomMismatch::Extra(what) => {
                write!(f, "the SBOM lists {what}, which versions.txt does not hold")
            }
            SbomMismatch::Version { versions_txt, sbom } => write!(
                f,
                "versions.txt says Kubernetes {versions_txt}, the SBOM's ISO package {sbom}"
            ),
        }
    }
}

/// Every disagreement between the SBOM text and `versions`; empty when they agree.
pub fn check(sbom: &str, versions: &VersionsTxt) -> Vec<SbomMismatch> {
    let document: SpdxDocument = match serde_json::from_str(sbom) {
        Ok(document) => document,
        Err(e) => return vec![SbomMismatch::NotSpdx(e.to_string())],
    };
    if document.spdx_version.as_deref() != Some("SPDX-2.3") {
        // As JSON: the version quoted, or `null` when there is none.
        let found = document.spdx_version.map_or_else(
            || "null".to_string(),
            |v| serde_json::Value::String(v).to_string(),
        );
        return vec![SbomMismatch::NotSpdx(format!(
            "spdxVersion is {found}, expected \"SPDX-2.3\""
        ))];
    }
    let Some(packages) = document.packages else {
        return vec![SbomMismatch::NotSpdx("no `packages` list".to_string())];
    };
    let mut out = Vec::new();
    let iso = packages.iter().find(|p| p.is_iso());
    let iso_version = iso.and_then(|p| p.version_info.as_deref()).unwrap_or("");
    if iso_version != versions.kubernetes {
        out.push(SbomMismatch::Version {
            versions_txt: versions.kubernetes.clone(),
            sbom: iso_version.to_string(),
        });
    }
    let mut images: BTreeMap<&str, &SpdxPackage> = BTreeMap::new();
    let mut files: BTreeMap<&str, &SpdxPackage> = BTreeMap::new();
    for package in packages.iter().filter(|p| !p.is_iso()) {
        if let Some(reference) = package.oci_reference() {
            images.insert(reference, package);
        } else if let Some(path) = package.package_file_name.as_deref() {
            files.insert(path, package);
        } else {
            out.push(SbomMismatch::Extra(format!(
                "package {}",
                package.spdx_id.as_deref().unwrap_or("without an SPDXID")
            )));
        }
    }
    // Every file, an image's `docker/*.tar` included, has a package of its own with its SHA-256.
    for file in &versions.files {
        match files.remove(file.path.as_str()) {
            None => out.push(SbomMismatch::MissingFile(file.path.clone())),
            Some(package) => {
                let sbom = package.sha256().unwrap_or("");
                if sbom != file.sha256 {
                    out.push(SbomMismatch::FileDigest {
                        path: file.path.clone(),
                        versions_txt: file.sha256.clone(),
                        sbom: sbom.to_string(),
                    });
                }
            }
        }
    }
    for path in files.keys() {
        out.push(SbomMismatch::Extra(format!("file {path}")));
    }
    for image in &versions.images {
        let text = image.to_string();
        let digest = image.digest().and_then(|d| d.strip_prefix("sha256:"));
        match images.remove(text.as_str()) {
            Some(package) if package.sha256() == digest => {}
            _ => out.push(SbomMismatch::MissingImage(text)),
        }
    }
    for reference in images.keys() {
        out.push(SbomMismatch::Extra(format!("image {reference}")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn not_spdx(text: &str) -> Vec<SbomMismatch> {
        check(text, &VersionsTxt::default())
    }

    #[test]
    fn a_document_that_is_not_ours_is_named_by_what_it_lacks() {
        let expected = |why: &str| vec![SbomMismatch::NotSpdx(why.to_string())];
        assert_eq!(
            not_spdx("{}"),
            expected("spdxVersion is null, expected \"SPDX-2.3\"")
        );
        assert_eq!(
            not_spdx(r#"{"spdxVersion": "SPDX-2.2", "packages": []}"#),
            expected("spdxVersion is \"SPDX-2.2\", expected \"SPDX-2.3\"")
        );
        assert_eq!(
            not_spdx(r#"{"spdxVersion": "SPDX-2.3", "name": "x"}"#),
            expected("no `packages` list")
        );
        assert!(matches!(
            &not_spdx("not json")[..],
            [SbomMismatch::NotSpdx(_)]
        ));
    }
}
