//! cosign image signatures, over bytes the caller fetched from the registry: the signature
//! manifest at tag `sha256-<hex>.sig` (or a referrer of the image with artifact type
//! `application/vnd.dev.cosign.artifact.sig.v1+json`), whose layers are simple-signing payloads
//! with the signature, certificate and Rekor bundle in their annotations.

use std::collections::BTreeMap;

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::certificate::Certificate;
use crate::error::{SignatureError, malformed};
use crate::policy::Policy;
use crate::rekor::LogEntry;
use crate::trust_root::TrustedRoot;
use crate::verify::{Material, Signed, Verified, decode_signature, verify_material};

/// The media type of a simple-signing payload layer.
pub const SIMPLE_SIGNING: &str = "application/vnd.dev.cosign.simplesigning.v1+json";
/// The artifact type of a cosign signature referrer (OCI 1.1 referrers).
pub const SIGNATURE_ARTIFACT: &str = "application/vnd.dev.cosign.artifact.sig.v1+json";
/// The annotation holding the base64 signature.
pub const ANNOTATION_SIGNATURE: &str = "dev.cosignproject.cosign/signature";
/// The annotation holding the PEM certificate.
pub const ANNOTATION_CERTIFICATE: &str = "dev.sigstore.cosign/certificate";
/// The annotation holding the Rekor bundle JSON.
pub const ANNOTATION_BUNDLE: &str = "dev.sigstore.cosign/bundle";

/// The tag cosign stores an image's signatures under: `sha256-<hex>.sig`.
pub fn signature_tag(image_digest: &str) -> Result<String, SignatureError> {
    let hex = image_digest
        .strip_prefix("sha256:")
        .filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
        .ok_or_else(|| {
            malformed(
                "the image digest",
                format!("{image_digest:?} is not sha256:<64 hex>"),
            )
        })?;
    Ok(format!("sha256-{hex}.sig"))
}

/// A descriptor in a manifest or index.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Descriptor {
    /// Its media type.
    #[serde(default)]
    pub media_type: String,
    /// Its digest.
    pub digest: String,
    /// Its artifact type (referrers).
    #[serde(default)]
    pub artifact_type: Option<String>,
    /// Its annotations.
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct Manifest {
    #[serde(default)]
    layers: Vec<Descriptor>,
}

#[derive(Deserialize)]
struct Index {
    #[serde(default)]
    manifests: Vec<Descriptor>,
}

/// The simple-signing layers of a signature manifest: the blobs the caller must fetch.
pub fn signature_layers(manifest_json: &[u8]) -> Result<Vec<Descriptor>, SignatureError> {
    let manifest: Manifest = serde_json::from_slice(manifest_json)
        .map_err(|e| malformed("the signature manifest", e))?;
    Ok(manifest
        .layers
        .into_iter()
        .filter(|l| l.media_type == SIMPLE_SIGNING)
        .collect())
}

/// The cosign signature manifests among an image's referrers (an OCI image index).
pub fn signature_referrers(referrers_json: &[u8]) -> Result<Vec<Descriptor>, SignatureError> {
    let index: Index =
        serde_json::from_slice(referrers_json).map_err(|e| malformed("the referrers index", e))?;
    Ok(index
        .manifests
        .into_iter()
        .filter(|m| m.artifact_type.as_deref() == Some(SIGNATURE_ARTIFACT))
        .collect())
}

/// Verifies one simple-signing layer: the payload's digest is the layer's, the payload claims
/// `image_digest`, and the signature in the annotations verifies under the policy.
pub fn verify_layer(
    layer: &Descriptor,
    payload: &[u8],
    image_digest: &str,
    root: &TrustedRoot,
    policy: &Policy,
) -> Result<Verified, SignatureError> {
    let actual = format!("sha256:{}", hex::encode(Sha256::digest(payload)));
    if actual != layer.digest {
        return Err(malformed(
            "the signature payload",
            format!("its digest is {actual}, the manifest says {}", layer.digest),
        ));
    }
    let claims: serde_json::Value =
        serde_json::from_slice(payload).map_err(|e| malformed("the signature payload", e))?;
    let claimed = claims["critical"]["image"]["docker-manifest-digest"]
        .as_str()
        .unwrap_or("none");
    if claimed != image_digest {
        return Err(SignatureError::Payload {
            expected: image_digest.to_string(),
            found: claimed.to_string(),
        });
    }
    let signature =
        layer
            .annotations
            .get(ANNOTATION_SIGNATURE)
            .ok_or_else(|| SignatureError::Missing {
                detail: format!(
                    "layer {} has no {ANNOTATION_SIGNATURE} annotation",
                    layer.digest
                ),
            })?;
    let signature = decode_signature(signature.as_bytes())?;
    let certificate = layer
        .annotations
        .get(ANNOTATION_CERTIFICATE)
        .ok_or_else(|| SignatureError::Missing {
            detail: format!(
                "layer {} has no {ANNOTATION_CERTIFICATE} annotation (a key-based signature, not keyless)",
                layer.digest
            ),
        })?;
    let entry = layer
        .annotations
        .get(ANNOTATION_BUNDLE)
        .map(|b| LogEntry::from_cosign_bundle(b))
        .transpose()?;
    verify_material(
        Material {
            message: Signed::Bytes(payload),
            signature: &signature,
            certificate: Certificate::from_bytes(certificate.as_bytes())?,
            entry: entry.as_ref(),
        },
        root,
        policy,
    )
}

/// Verifies an image's signatures: `layers` with the payload fetched for each. The image is
/// verified when any signature is; otherwise the error of each is returned, in order.
pub fn verify_image(
    image_digest: &str,
    layers: &[(Descriptor, Vec<u8>)],
    root: &TrustedRoot,
    policy: &Policy,
) -> Result<Verified, Vec<SignatureError>> {
    if layers.is_empty() {
        return Err(vec![SignatureError::Missing {
            detail: format!("no cosign signature is attached to {image_digest}"),
        }]);
    }
    let mut errors = Vec::new();
    for (layer, payload) in layers {
        match verify_layer(layer, payload, image_digest, root, policy) {
            Ok(verified) => return Ok(verified),
            Err(error) => errors.push(error),
        }
    }
    Err(errors)
}
