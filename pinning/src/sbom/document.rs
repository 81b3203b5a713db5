//! The SPDX 2.3 JSON document: one package for the ISO, one per bundled file (an image's
//! `docker/*.tar` too, so every file of the ISO has its SHA-256 here) and per image, each
//! image's layers as files, and the relationships between them.

use std::collections::BTreeMap;

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::{Sbom, SbomError, purl, time::rfc3339};
use crate::image::ImageRef;
use crate::versions_txt::SignatureEntry;

const NOASSERTION: &str = "NOASSERTION";

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Document {
    spdx_version: &'static str,
    data_license: &'static str,
    #[serde(rename = "SPDXID")]
    spdx_id: &'static str,
    name: String,
    document_namespace: String,
    creation_info: CreationInfo,
    packages: Vec<Package>,
    files: Vec<File>,
    relationships: Vec<Relationship>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CreationInfo {
    created: String,
    creators: Vec<String>,
    comment: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Package {
    #[serde(rename = "SPDXID")]
    spdx_id: String,
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    version_info: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    package_file_name: Option<String>,
    download_location: String,
    files_analyzed: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    checksums: Vec<Checksum>,
    license_concluded: &'static str,
    license_declared: &'static str,
    copyright_text: &'static str,
    primary_package_purpose: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    external_refs: Vec<ExternalRef>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    annotations: Vec<Annotation>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct File {
    #[serde(rename = "SPDXID")]
    spdx_id: String,
    file_name: String,
    checksums: Vec<Checksum>,
    license_concluded: &'static str,
    copyright_text: &'static str,
    comment: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Checksum {
    algorithm: &'static str,
    checksum_value: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ExternalRef {
    reference_category: &'static str,
    reference_type: &'static str,
    reference_locator: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Annotation {
    annotation_date: String,
    annotation_type: &'static str,
    annotator: String,
    comment: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Relationship {
    spdx_element_id: String,
    relationship_type: &'static str,
    related_spdx_element: String,
}

/// An SPDX identifier: `SPDXRef-` and letters, digits, `.` and `-` only.
fn spdx_id(kind: &str, text: &str) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("SPDXRef-{kind}-{cleaned}")
}

fn checksum(algorithm: &'static str, value: &str) -> Checksum {
    Checksum {
        algorithm,
        checksum_value: value.to_string(),
    }
}

fn purl_ref(locator: String) -> ExternalRef {
    ExternalRef {
        reference_category: "PACKAGE-MANAGER",
        reference_type: "purl",
        reference_locator: locator,
    }
}

fn contains(parent: &str, child: &str) -> Relationship {
    Relationship {
        spdx_element_id: parent.to_string(),
        relationship_type: "CONTAINS",
        related_spdx_element: child.to_string(),
    }
}

fn is_hex(text: &str, len: usize) -> bool {
    text.len() == len
        && text
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

/// The version of the component a URL belongs to: the record's version that appears in it.
fn version_in(sbom: &Sbom<'_>, url: &str) -> Option<String> {
    let v = sbom.versions;
    let mut candidates: Vec<&str> = vec![
        &v.kubernetes,
        &v.cni_plugins,
        &v.crictl,
        &v.ccm,
        &v.csi_driver,
        &v.autoscaler,
    ];
    if let Some(etcd) = &v.etcd {
        candidates.push(etcd);
    }
    if let Some(headlamp) = &v.headlamp {
        candidates.push(headlamp);
    }
    candidates
        .into_iter()
        .filter(|c| !c.is_empty() && url.contains(*c))
        .max_by_key(|c| c.len())
        .map(str::to_string)
}

/// The registry URL a pinned image's manifest is fetched from.
fn manifest_url(image: &ImageRef, digest: &str) -> String {
    let host = match image.registry() {
        "docker.io" => "registry-1.docker.io",
        other => other,
    };
    format!(
        "https://{host}/v2/{}/manifests/{digest}",
        image.repository()
    )
}

/// The annotation of a verified signature: one line naming the identity and issuer.
fn signature_comment(entry: &SignatureEntry) -> String {
    let log = if entry.log {
        "transparency-log entry checked"
    } else {
        "no transparency-log entry (signing time not proved)"
    };
    format!(
        "cosign keyless signature verified: identity {}, issuer {}, {log}",
        entry.identity, entry.issuer
    )
}

/// Builds the document.
pub fn build(sbom: &Sbom<'_>) -> Result<Document, SbomError> {
    let v = sbom.versions;
    let built = v.built.ok_or(SbomError::NoBuildTime)?;
    let created = rfc3339(built);
    let tool = match &sbom.tool.commit {
        Some(commit) => format!("{}-{} (commit {commit})", sbom.tool.name, sbom.tool.version),
        None => format!("{}-{}", sbom.tool.name, sbom.tool.version),
    };
    let annotator = format!("Tool: {tool}");
    let notes = |subject: &str| -> Vec<Annotation> {
        v.signatures
            .iter()
            .filter(|n| n.subject == subject)
            .map(|n| Annotation {
                annotation_date: created.clone(),
                annotation_type: "REVIEW",
                annotator: annotator.clone(),
                comment: signature_comment(n),
            })
            .collect()
    };

    let iso_id = "SPDXRef-ISO".to_string();
    let mut packages = vec![Package {
        spdx_id: iso_id.clone(),
        name: sbom.iso_name.clone(),
        version_info: Some(v.kubernetes.clone()),
        package_file_name: Some(sbom.iso_name.clone()),
        download_location: NOASSERTION.to_string(),
        files_analyzed: false,
        checksums: Vec::new(),
        license_concluded: NOASSERTION,
        license_declared: NOASSERTION,
        copyright_text: NOASSERTION,
        primary_package_purpose: "ARCHIVE",
        external_refs: Vec::new(),
        annotations: Vec::new(),
    }];
    let mut files = Vec::new();
    let mut relationships = vec![Relationship {
        spdx_element_id: "SPDXRef-DOCUMENT".to_string(),
        relationship_type: "DESCRIBES",
        related_spdx_element: iso_id.clone(),
    }];

    let urls: BTreeMap<&str, &str> = sbom
        .sources
        .iter()
        .map(|s| (s.path.as_str(), s.url.as_str()))
        .collect();
    let tarballs: BTreeMap<&str, &super::ImageDetail> = sbom
        .images
        .iter()
        .map(|i| (i.tarball.as_str(), i))
        .collect();
    for detail in &sbom.images {
        if !v.images.contains(&detail.reference) {
            return Err(SbomError::UnknownImage {
                reference: detail.reference.to_string(),
            });
        }
    }

    let mut tarball_ids = BTreeMap::new();
    for file in &v.files {
        let id = spdx_id("File", &file.path);
        let name = file
            .path
            .rsplit('/')
            .next()
            .unwrap_or(&file.path)
            .to_string();
        if tarballs.contains_key(file.path.as_str()) {
            // The image's tarball as written into the ISO; the image package it holds follows.
            packages.push(Package {
                spdx_id: id.clone(),
                name,
                version_info: None,
                package_file_name: Some(file.path.clone()),
                download_location: NOASSERTION.to_string(),
                files_analyzed: false,
                checksums: vec![checksum("SHA256", &file.sha256)],
                license_concluded: NOASSERTION,
                license_declared: NOASSERTION,
                copyright_text: NOASSERTION,
                primary_package_purpose: "ARCHIVE",
                external_refs: Vec::new(),
                annotations: Vec::new(),
            });
            relationships.push(contains(&iso_id, &id));
            tarball_ids.insert(file.path.as_str(), id);
            continue;
        }
        let url = urls.get(file.path.as_str()).copied();
        let version = url.and_then(|u| version_in(sbom, u));
        let purl = match url {
            Some(url) => purl::file(url, &name, version.as_deref(), &file.sha256),
            None => format!(
                "pkg:generic/{}?checksum=sha256%3A{}",
                name.replace(
                    |c: char| !c.is_ascii_alphanumeric() && c != '.' && c != '-',
                    "_"
                ),
                file.sha256
            ),
        };
        packages.push(Package {
            spdx_id: id.clone(),
            name,
            version_info: version,
            package_file_name: Some(file.path.clone()),
            download_location: url.unwrap_or(NOASSERTION).to_string(),
            files_analyzed: false,
            checksums: vec![checksum("SHA256", &file.sha256)],
            license_concluded: NOASSERTION,
            license_declared: NOASSERTION,
            copyright_text: NOASSERTION,
            primary_package_purpose: "FILE",
            external_refs: vec![purl_ref(purl)],
            annotations: notes(&file.path),
        });
        relationships.push(contains(&iso_id, &id));
    }

    for image in &v.images {
        let digest = image.digest().unwrap_or_default().to_string();
        let hex = digest
            .strip_prefix("sha256:")
            .unwrap_or(&digest)
            .to_string();
        let id = spdx_id(
            "Image",
            &format!("{}-{}", image.name(), &hex[..hex.len().min(12)]),
        );
        let detail = sbom.images.iter().find(|d| &d.reference == image);
        let mut refs = vec![purl_ref(purl::image(image, &digest, v.arch.go_name()))];
        refs.push(ExternalRef {
            reference_category: "OTHER",
            reference_type: "oci-reference",
            reference_locator: image.to_string(),
        });
        packages.push(Package {
            spdx_id: id.clone(),
            name: image.name(),
            version_info: Some(image.tag().map(str::to_string).unwrap_or(digest.clone())),
            package_file_name: detail.map(|d| d.tarball.clone()),
            download_location: manifest_url(image, &digest),
            // The image's layers are listed as its files.
            files_analyzed: detail.is_some_and(|d| !d.layers.is_empty()),
            checksums: vec![checksum("SHA256", &hex)],
            license_concluded: NOASSERTION,
            license_declared: NOASSERTION,
            copyright_text: NOASSERTION,
            primary_package_purpose: "CONTAINER",
            external_refs: refs,
            annotations: notes(&image.to_string()),
        });
        relationships.push(contains(&iso_id, &id));
        if let Some(tarball) = detail.and_then(|d| tarball_ids.get(d.tarball.as_str())) {
            relationships.push(contains(tarball, &id));
        }
        for layer in detail.map(|d| d.layers.as_slice()).unwrap_or_default() {
            let layer_hex = Some(layer.digest.hex())
                .filter(|h| layer.digest.is_sha256() && is_hex(h, 64) && is_hex(&layer.sha1, 40))
                .ok_or_else(|| SbomError::Layer {
                    reference: image.to_string(),
                    digest: layer.digest.to_string(),
                })?;
            let file_id = spdx_id("Layer", &format!("{id}-{layer_hex}"));
            files.push(File {
                spdx_id: file_id.clone(),
                file_name: format!("./blobs/sha256/{layer_hex}"),
                checksums: vec![checksum("SHA1", &layer.sha1), checksum("SHA256", layer_hex)],
                license_concluded: NOASSERTION,
                copyright_text: NOASSERTION,
                comment: format!("layer {} of {} ({} bytes)", layer.digest, image, layer.size),
            });
            relationships.push(contains(&id, &file_id));
        }
    }

    let creators = vec![annotator];
    let comment = match &sbom.tool.commit {
        Some(commit) => format!(
            "written by {} {} (commit {commit})",
            sbom.tool.name, sbom.tool.version
        ),
        None => format!("written by {} {}", sbom.tool.name, sbom.tool.version),
    };
    let mut document = Document {
        spdx_version: "SPDX-2.3",
        data_license: "CC0-1.0",
        spdx_id: "SPDXRef-DOCUMENT",
        name: sbom.iso_name.clone(),
        document_namespace: String::new(),
        creation_info: CreationInfo {
            created,
            creators,
            comment,
        },
        packages,
        files,
        relationships,
    };
    // The namespace is unique per content and stable for the same content.
    let body = serde_json::to_vec(&document).map_err(|e| SbomError::Json(e.to_string()))?;
    let digest = hex::encode(Sha256::digest(&body));
    document.document_namespace = format!(
        "https://github.com/cks-iso/cks-iso/spdx/{}-{}",
        sbom.iso_name.replace(
            |c: char| !c.is_ascii_alphanumeric() && c != '.' && c != '-',
            "_"
        ),
        &digest[..32]
    );
    Ok(document)
}
