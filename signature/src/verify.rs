//! The checks `cosign verify-blob --certificate-identity --certificate-oidc-issuer` makes, in
//! the order that gives the clearest reason: the log entry (signing time), the certificate's
//! validity then, its chain to the trusted root, its identity and issuer, the signature over
//! the bytes, and that the log entry is about this signature.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::bundle::Bundle;
use crate::certificate::Certificate;
use crate::chain::verify_chain;
use crate::error::{SignatureError, malformed};
use crate::policy::Policy;
use crate::rekor::{LogEntry, LogEvidence};
use crate::trust_root::TrustedRoot;

/// What a successful verification established.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verified {
    /// The certificate's identity that matched the policy.
    pub identity: String,
    /// Its OIDC issuer.
    pub issuer: String,
    /// The signing time proved by the transparency log, when there was an entry.
    pub log: Option<LogEvidence>,
}

impl Verified {
    /// One line for records: `cosign keyless signature verified: identity ..., issuer ...`.
    pub fn summary(&self) -> String {
        let log = match &self.log {
            Some(log) => format!(", Rekor entry {} at {}", log.log_index, log.integrated_time),
            None => ", no transparency-log entry (signing time not proved)".to_string(),
        };
        format!(
            "cosign keyless signature verified: identity {}, issuer {}{log}",
            self.identity, self.issuer
        )
    }
}

/// What was signed: the bytes, or only their SHA-256 (a large file hashed as it streamed).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Signed<'a> {
    Bytes(&'a [u8]),
    Sha256(&'a [u8; 32]),
}

impl Signed<'_> {
    fn sha256(&self) -> [u8; 32] {
        match self {
            Signed::Bytes(bytes) => Sha256::digest(bytes).into(),
            Signed::Sha256(digest) => **digest,
        }
    }
}

/// The material of one signature.
pub(crate) struct Material<'a> {
    pub message: Signed<'a>,
    pub signature: &'a [u8],
    pub certificate: Certificate,
    pub entry: Option<&'a LogEntry>,
}

pub(crate) fn verify_material(
    material: Material<'_>,
    root: &TrustedRoot,
    policy: &Policy,
) -> Result<Verified, SignatureError> {
    let cert = &material.certificate;
    let log = match material.entry {
        Some(entry) => Some(entry.verify(root)?),
        None => None,
    };
    // Without a log entry, nothing proves when the signature was made: the chain is checked
    // as of the certificate's issue.
    let signed_at = log.map(|l| l.integrated_time).unwrap_or(cert.not_before);
    if signed_at < cert.not_before || signed_at > cert.not_after {
        return Err(SignatureError::NotValidAtSigningTime {
            signed_at,
            not_before: cert.not_before,
            not_after: cert.not_after,
        });
    }
    verify_chain(cert.der(), &cert.issuer_name, root, signed_at)?;
    if !cert.code_signing {
        return Err(SignatureError::NotCodeSigning);
    }
    if !cert.identities.contains(&policy.identity) {
        return Err(SignatureError::Identity {
            expected: policy.identity.clone(),
            found: if cert.identities.is_empty() {
                "no identity".to_string()
            } else {
                cert.identities.join(", ")
            },
        });
    }
    let issuer = cert.issuer.clone().unwrap_or_else(|| "none".to_string());
    if issuer != policy.issuer {
        return Err(SignatureError::Issuer {
            expected: policy.issuer.clone(),
            found: issuer,
        });
    }
    let key = cert.public_key()?;
    let verifies = match material.message {
        Signed::Bytes(bytes) => key.verifies(bytes, material.signature),
        Signed::Sha256(digest) => key.verifies_sha256(digest, material.signature)?,
    };
    if !verifies {
        return Err(SignatureError::BadSignature {
            detail: "it does not verify with the certificate's key".to_string(),
        });
    }
    match material.entry {
        Some(entry) => {
            let digest = material.message.sha256();
            entry.check_hashedrekord(&digest, material.signature, cert.der())?;
        }
        None if !policy.allow_missing_log => return Err(SignatureError::NoLogEntry),
        None => {}
    }
    Ok(Verified {
        identity: policy.identity.clone(),
        issuer,
        log,
    })
}

/// Decodes a `.sig` file: base64 of the signature (surrounding white space allowed).
pub fn decode_signature(sig_file: &[u8]) -> Result<Vec<u8>, SignatureError> {
    let text: String = String::from_utf8_lossy(sig_file)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    if text.is_empty() {
        return Err(malformed("the signature", "the file is empty"));
    }
    STANDARD
        .decode(text)
        .map_err(|e| malformed("the signature", format!("expected base64: {e}")))
}

/// Verifies a file against its detached `.sig` and `.cert` (as Kubernetes publishes them),
/// with the log entry of a cosign Rekor bundle when one is given.
pub fn verify_blob(
    file: &[u8],
    sig_file: &[u8],
    cert_file: &[u8],
    rekor_bundle: Option<&str>,
    root: &TrustedRoot,
    policy: &Policy,
) -> Result<Verified, SignatureError> {
    blob(
        Signed::Bytes(file),
        sig_file,
        cert_file,
        rekor_bundle,
        root,
        policy,
    )
}

/// [`verify_blob`] for a file known only by its SHA-256 (hashed as it was downloaded), so a
/// large binary is never read into memory. The certificate's key must be ECDSA (P-256 or
/// P-384), as Fulcio's are.
pub fn verify_blob_sha256(
    sha256: &[u8; 32],
    sig_file: &[u8],
    cert_file: &[u8],
    rekor_bundle: Option<&str>,
    root: &TrustedRoot,
    policy: &Policy,
) -> Result<Verified, SignatureError> {
    blob(
        Signed::Sha256(sha256),
        sig_file,
        cert_file,
        rekor_bundle,
        root,
        policy,
    )
}

fn blob(
    message: Signed<'_>,
    sig_file: &[u8],
    cert_file: &[u8],
    rekor_bundle: Option<&str>,
    root: &TrustedRoot,
    policy: &Policy,
) -> Result<Verified, SignatureError> {
    let signature = decode_signature(sig_file)?;
    let certificate = Certificate::from_bytes(cert_file)?;
    let entry = rekor_bundle.map(LogEntry::from_cosign_bundle).transpose()?;
    verify_material(
        Material {
            message,
            signature: &signature,
            certificate,
            entry: entry.as_ref(),
        },
        root,
        policy,
    )
}

/// Verifies a file against a Sigstore bundle (`.sigstore.json`). Every log entry it carries
/// must verify.
pub fn verify_bundle(
    file: &[u8],
    bundle_json: &str,
    root: &TrustedRoot,
    policy: &Policy,
) -> Result<Verified, SignatureError> {
    bundle(Signed::Bytes(file), bundle_json, root, policy)
}

/// [`verify_bundle`] for a file known only by its SHA-256 (ECDSA certificates only).
pub fn verify_bundle_sha256(
    sha256: &[u8; 32],
    bundle_json: &str,
    root: &TrustedRoot,
    policy: &Policy,
) -> Result<Verified, SignatureError> {
    bundle(Signed::Sha256(sha256), bundle_json, root, policy)
}

fn bundle(
    message: Signed<'_>,
    bundle_json: &str,
    root: &TrustedRoot,
    policy: &Policy,
) -> Result<Verified, SignatureError> {
    let bundle = Bundle::from_json(bundle_json)?;
    let digest = message.sha256();
    if bundle.digest != digest.as_slice() {
        return Err(SignatureError::BadSignature {
            detail: format!(
                "the bundle signs sha256:{}, the bytes are sha256:{}",
                hex::encode(&bundle.digest),
                hex::encode(digest)
            ),
        });
    }
    if bundle.entries.is_empty() {
        return Err(SignatureError::TransparencyLog {
            detail: "the bundle has no transparency log entry".to_string(),
        });
    }
    let mut verified = None;
    for entry in &bundle.entries {
        verified = Some(verify_material(
            Material {
                message,
                signature: &bundle.signature,
                certificate: Certificate::from_der(bundle.certificate.clone())?,
                entry: Some(entry),
            },
            root,
            policy,
        )?);
    }
    verified.ok_or_else(|| SignatureError::Missing {
        detail: "no log entry".to_string(),
    })
}
