//! Media types and the few fields of indexes, manifests and image configs the puller and the
//! tarball check read.

use serde::{Deserialize, Serialize};

use cks_pinning::digest::Digest;

/// OCI image index.
pub const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";
/// OCI image manifest.
pub const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
/// Docker manifest list.
pub const DOCKER_LIST: &str = "application/vnd.docker.distribution.manifest.list.v2+json";
/// Docker image manifest, schema 2.
pub const DOCKER_MANIFEST: &str = "application/vnd.docker.distribution.manifest.v2+json";

/// The `Accept` header for manifests: all four types, since the distribution registry answers 404
/// for a stored OCI object unless its exact type is accepted.
pub const MANIFEST_ACCEPT: &str = "application/vnd.oci.image.index.v1+json, application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.list.v2+json, application/vnd.docker.distribution.manifest.v2+json";

/// Why a manifest or image config is refused.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// A manifest that is not JSON of the expected shape.
    #[error("{image}: manifest {digest} is not valid: {reason}")]
    BadManifest {
        /// The image whose manifest it is.
        image: String,
        /// The manifest's digest (or the reference when unknown).
        digest: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A media type this reader does not handle (Docker schema 1, an artifact).
    #[error(
        "{image}: unsupported manifest media type `{media_type}`; expected an OCI or Docker v2 image index or manifest"
    )]
    UnsupportedMediaType {
        /// The image whose manifest it is.
        image: String,
        /// The media type received.
        media_type: String,
    },
}

/// A content descriptor: what a manifest says about a blob.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Descriptor {
    /// The blob's media type.
    #[serde(default)]
    pub media_type: String,
    /// `sha256:<hex>`.
    pub digest: Digest,
    /// Size in bytes.
    pub size: u64,
    /// The platform, on index entries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<Platform>,
}

/// An OS/architecture pair as indexes and configs give it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Platform {
    /// `amd64`, `arm64`, `arm`, …
    #[serde(default)]
    pub architecture: String,
    /// `linux`, `windows`, …
    #[serde(default)]
    pub os: String,
    /// `v8`, `v7`, … when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

impl std::fmt::Display for Platform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.os, self.architecture)?;
        if let Some(variant) = &self.variant {
            write!(f, "/{variant}")?;
        }
        Ok(())
    }
}

/// A manifest read from the registry, classified.
#[derive(Debug, Clone)]
pub enum Manifest {
    /// An OCI index or Docker manifest list.
    Index(Vec<Descriptor>),
    /// A single-platform image manifest.
    Image {
        /// The config blob.
        config: Descriptor,
        /// The layer blobs, in order.
        layers: Vec<Descriptor>,
    },
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Raw {
    #[serde(default)]
    schema_version: Option<u32>,
    #[serde(default)]
    media_type: Option<String>,
    #[serde(default)]
    manifests: Option<Vec<WireDescriptor>>,
    #[serde(default)]
    config: Option<WireDescriptor>,
    #[serde(default)]
    layers: Option<Vec<WireDescriptor>>,
}

/// A descriptor as served, its digest still text: [`parse_manifest`] checks it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireDescriptor {
    #[serde(default)]
    media_type: String,
    digest: String,
    size: u64,
    #[serde(default)]
    platform: Option<Platform>,
}

/// Classifies manifest `bytes` served with `content_type` and checks every digest it names.
/// Returns the media type to record for it along with the parsed manifest.
pub fn parse_manifest(
    image: &str,
    digest: &str,
    content_type: Option<&str>,
    bytes: &[u8],
) -> Result<(String, Manifest), ManifestError> {
    let bad = |reason: String| ManifestError::BadManifest {
        image: image.to_string(),
        digest: digest.to_string(),
        reason,
    };
    let raw: Raw = serde_json::from_slice(bytes).map_err(|e| bad(e.to_string()))?;
    let header_type = content_type
        .map(|t| t.split(';').next().unwrap_or_default().trim().to_string())
        .filter(|t| !t.is_empty() && t != "application/json" && t != "text/plain");
    let media_type = raw
        .media_type
        .clone()
        .or(header_type)
        .or_else(|| {
            // OCI makes `mediaType` optional; the shape decides then.
            if raw.manifests.is_some() {
                Some(OCI_INDEX.to_string())
            } else if raw.config.is_some() {
                Some(OCI_MANIFEST.to_string())
            } else {
                None
            }
        })
        .unwrap_or_default();
    if raw.schema_version != Some(2) {
        return Err(ManifestError::UnsupportedMediaType {
            image: image.to_string(),
            media_type: format!("{media_type} (schemaVersion {:?})", raw.schema_version),
        });
    }
    // Every digest the manifest names is parsed here, once: a sha256 digest, or refused.
    let typed = |d: WireDescriptor| {
        let digest = Digest::parse(&d.digest)
            .ok()
            .filter(Digest::is_sha256)
            .ok_or_else(|| {
                bad(format!(
                    "it names `{}`, which is not a sha256 digest",
                    d.digest
                ))
            })?;
        Ok::<_, ManifestError>(Descriptor {
            media_type: d.media_type,
            digest,
            size: d.size,
            platform: d.platform,
        })
    };
    let manifest = match media_type.as_str() {
        OCI_INDEX | DOCKER_LIST => {
            let entries = raw
                .manifests
                .ok_or_else(|| bad("an index without `manifests`".into()))?;
            Manifest::Index(entries.into_iter().map(typed).collect::<Result<_, _>>()?)
        }
        OCI_MANIFEST | DOCKER_MANIFEST => {
            let config = raw
                .config
                .ok_or_else(|| bad("an image manifest without `config`".into()))?;
            Manifest::Image {
                config: typed(config)?,
                layers: raw
                    .layers
                    .unwrap_or_default()
                    .into_iter()
                    .map(typed)
                    .collect::<Result<_, _>>()?,
            }
        }
        other => {
            return Err(ManifestError::UnsupportedMediaType {
                image: image.to_string(),
                media_type: other.to_string(),
            });
        }
    };
    Ok((media_type, manifest))
}

/// The platform an image config declares (`architecture`, `os`, `variant`).
pub fn config_platform(image: &str, digest: &str, bytes: &[u8]) -> Result<Platform, ManifestError> {
    serde_json::from_slice(bytes).map_err(|e| ManifestError::BadManifest {
        image: image.to_string(),
        digest: digest.to_string(),
        reason: format!("the image config is not valid JSON: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(c: char) -> String {
        format!("sha256:{}", c.to_string().repeat(64))
    }

    #[test]
    fn classifies_an_oci_index_without_media_type_by_its_shape() {
        let body = format!(
            r#"{{"schemaVersion":2,"manifests":[{{"digest":"{}","size":3,"platform":{{"architecture":"arm64","os":"linux"}}}}]}}"#,
            d('a')
        );
        let (mt, m) = parse_manifest("img", "x", None, body.as_bytes()).expect("valid");
        assert_eq!(mt, OCI_INDEX);
        assert!(
            matches!(m, Manifest::Index(e) if e[0].platform.as_ref().map(|p| p.to_string()) == Some("linux/arm64".into()))
        );
    }

    #[test]
    fn refuses_schema1_and_digests_that_are_not_sha256() {
        let err = parse_manifest("img", "x", None, br#"{"schemaVersion":1,"fsLayers":[]}"#)
            .expect_err("schema 1");
        assert!(err.to_string().contains("unsupported"), "{err}");
        let body = r#"{"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json","config":{"digest":"sha256:../../x","size":1},"layers":[]}"#;
        let err = parse_manifest("img", "x", None, body.as_bytes()).expect_err("bad digest");
        assert!(err.to_string().contains("not a sha256 digest"), "{err}");
    }
}
