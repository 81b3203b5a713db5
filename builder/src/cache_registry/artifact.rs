//! The OCI artifact an entry found by tag is stored as: an image manifest with an empty config
//! and one layer, the content itself (its digest is its sha256), annotated with what it is.

use serde::{Deserialize, Serialize};

use crate::fetch::ChecksumStatus;

/// The media type of the artifact manifests.
pub const MANIFEST_TYPE: &str = "application/vnd.oci.image.manifest.v1+json";
/// `artifactType` of a downloaded file.
pub const FILE_ARTIFACT: &str = "application/vnd.cks-iso.file.v1";
/// `artifactType` of an image manifest stored for its reference.
pub const MANIFEST_ARTIFACT: &str = "application/vnd.cks-iso.image-manifest.v1";
/// `artifactType` of a finished image tarball.
pub const TARBALL_ARTIFACT: &str = "application/vnd.cks-iso.image-tarball.v1";
/// `artifactType` of a finished ISO.
pub const ISO_ARTIFACT: &str = "application/vnd.cks-iso.iso.v1";
/// The OCI empty descriptor's media type, content and digest.
pub const EMPTY_TYPE: &str = "application/vnd.oci.empty.v1+json";
/// The two bytes of the empty config.
pub const EMPTY_CONTENT: &[u8] = b"{}";
/// `sha256:` of [`EMPTY_CONTENT`].
pub const EMPTY_DIGEST: &str =
    "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a";
/// The annotation holding what the entry is for (a canonical URL, an image reference).
const KEY: &str = "io.cks-iso.key";
/// The annotation holding how a file was checked when fetched (`computed`, or the checksum
/// source: a checksum file's URL or `pinned`).
const CHECKED: &str = "io.cks-iso.checked";
/// The annotation holding what a build needs to know of a finished entry without reading it
/// (JSON: a tarball's digests and platform, an ISO's counts).
const RECORD: &str = "io.cks-iso.record";

/// A content descriptor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Descriptor {
    /// Its media type.
    pub media_type: String,
    /// `sha256:<hex>`.
    pub digest: String,
    /// Its size.
    pub size: u64,
    /// What it is for.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub annotations: std::collections::BTreeMap<String, String>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactManifest {
    schema_version: u32,
    media_type: String,
    artifact_type: String,
    config: Descriptor,
    layers: Vec<Descriptor>,
}

/// One cached entry: what it is for, and its content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The `artifactType`.
    pub kind: String,
    /// The canonical URL or image reference.
    pub key: String,
    /// The content's descriptor (its media type is an image manifest's own for manifests).
    pub content: Descriptor,
    /// For files: how they were checked when fetched.
    pub checked: Option<ChecksumStatus>,
    /// For finished tarballs and ISOs: what the build records of them.
    pub record: Option<String>,
}

impl Entry {
    /// The artifact manifest's bytes.
    pub fn to_manifest(&self) -> Vec<u8> {
        let mut content = self.content.clone();
        content.annotations.insert(KEY.into(), self.key.clone());
        if let Some(checked) = &self.checked {
            let value = match checked {
                ChecksumStatus::Verified { source } => source.clone(),
                ChecksumStatus::Computed => "computed".into(),
            };
            content.annotations.insert(CHECKED.into(), value);
        }
        if let Some(record) = &self.record {
            content.annotations.insert(RECORD.into(), record.clone());
        }
        let manifest = ArtifactManifest {
            schema_version: 2,
            media_type: MANIFEST_TYPE.into(),
            artifact_type: self.kind.clone(),
            config: Descriptor {
                media_type: EMPTY_TYPE.into(),
                digest: EMPTY_DIGEST.into(),
                size: EMPTY_CONTENT.len() as u64,
                annotations: Default::default(),
            },
            layers: vec![content],
        };
        // A struct of strings and numbers always serialises.
        serde_json::to_vec(&manifest).unwrap_or_default()
    }

    /// Reads an artifact manifest of `kind`; `None` for anything else.
    pub fn parse(bytes: &[u8], kind: &str) -> Option<Entry> {
        let manifest: ArtifactManifest = serde_json::from_slice(bytes).ok()?;
        if manifest.artifact_type != kind || manifest.layers.len() != 1 {
            return None;
        }
        let mut content = manifest.layers.into_iter().next()?;
        if !crate::registry::is_sha256_digest(&content.digest) {
            return None;
        }
        let key = content.annotations.remove(KEY)?;
        let checked = content
            .annotations
            .remove(CHECKED)
            .map(|v| match v.as_str() {
                "computed" => ChecksumStatus::Computed,
                _ => ChecksumStatus::Verified { source: v },
            });
        let record = content.annotations.remove(RECORD);
        Some(Entry {
            kind: manifest.artifact_type,
            key,
            content,
            checked,
            record,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_reads_back_as_written_and_only_as_its_kind() {
        let entry = Entry {
            kind: FILE_ARTIFACT.into(),
            key: "https://dl.k8s.io/x".into(),
            content: Descriptor {
                media_type: "application/octet-stream".into(),
                digest: format!("sha256:{}", "a".repeat(64)),
                size: 7,
                annotations: Default::default(),
            },
            checked: Some(ChecksumStatus::Verified {
                source: "https://dl.k8s.io/x.sha256".into(),
            }),
            record: Some("{\"size\":7}".into()),
        };
        let bytes = entry.to_manifest();
        assert_eq!(Entry::parse(&bytes, FILE_ARTIFACT), Some(entry));
        assert_eq!(Entry::parse(&bytes, MANIFEST_ARTIFACT), None);
        assert_eq!(
            crate::digest::sha256_hex(EMPTY_CONTENT),
            EMPTY_DIGEST.trim_start_matches("sha256:")
        );
    }
}
