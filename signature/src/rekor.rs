//! Rekor transparency-log entries: the signed entry timestamp (SET), the RFC 6962 inclusion
//! proof and its signed checkpoint, and whether a `hashedrekord` entry is about the signature,
//! certificate and bytes being verified.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::certificate::certificate_der;
use crate::error::{SignatureError, malformed};
use crate::trust_root::TrustedRoot;

/// An RFC 6962 inclusion proof of an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InclusionProof {
    /// The entry's index in the tree the proof is for.
    pub log_index: u64,
    /// The tree size.
    pub tree_size: u64,
    /// The root hash.
    pub root_hash: Vec<u8>,
    /// The sibling hashes, leaf first.
    pub hashes: Vec<Vec<u8>>,
    /// The signed checkpoint (a signed note), when given.
    pub checkpoint: Option<String>,
}

/// One log entry as a bundle or a cosign signature carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    /// The canonicalised body, base64 as the log returned it.
    pub body_base64: String,
    /// When the log integrated it, seconds since 1970.
    pub integrated_time: i64,
    /// Its index in the log.
    pub log_index: u64,
    /// The log's ID (the SHA-256 of its key).
    pub log_id: Vec<u8>,
    /// The signed entry timestamp, when given.
    pub set: Option<Vec<u8>>,
    /// The inclusion proof, when given.
    pub proof: Option<InclusionProof>,
}

/// What checking an entry showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LogEvidence {
    /// The entry's index.
    pub log_index: u64,
    /// The time the log integrated it: the signing time.
    pub integrated_time: i64,
    /// The SET verified.
    pub set_verified: bool,
    /// The inclusion proof verified.
    pub inclusion_verified: bool,
}

/// The `rekorBundle` cosign attaches (`dev.sigstore.cosign/bundle`, `cosign --bundle`).
#[derive(Debug, Clone, Deserialize)]
pub struct CosignRekorBundle {
    /// The SET, base64.
    #[serde(rename = "SignedEntryTimestamp")]
    pub signed_entry_timestamp: String,
    /// What the SET signs.
    #[serde(rename = "Payload")]
    pub payload: CosignRekorPayload,
}

/// The signed part of a cosign Rekor bundle.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CosignRekorPayload {
    /// The body, base64.
    pub body: String,
    /// Integration time.
    pub integrated_time: i64,
    /// Index in the log.
    pub log_index: u64,
    /// The log ID, hex.
    #[serde(rename = "logID")]
    pub log_id: String,
}

/// The canonical JSON the SET signs (keys in lexical order, no spaces).
#[derive(Serialize)]
struct SetPayload<'a> {
    body: &'a str,
    #[serde(rename = "integratedTime")]
    integrated_time: i64,
    #[serde(rename = "logID")]
    log_id: &'a str,
    #[serde(rename = "logIndex")]
    log_index: u64,
}

fn log_error(detail: impl ToString) -> SignatureError {
    SignatureError::TransparencyLog {
        detail: detail.to_string(),
    }
}

impl LogEntry {
    /// The entry of a cosign Rekor bundle (JSON text).
    pub fn from_cosign_bundle(json: &str) -> Result<LogEntry, SignatureError> {
        let bundle: CosignRekorBundle =
            serde_json::from_str(json).map_err(|e| malformed("the Rekor bundle", e))?;
        Ok(LogEntry {
            body_base64: bundle.payload.body,
            integrated_time: bundle.payload.integrated_time,
            log_index: bundle.payload.log_index,
            log_id: hex::decode(&bundle.payload.log_id)
                .map_err(|e| malformed("the Rekor bundle's logID", e))?,
            set: Some(
                STANDARD
                    .decode(&bundle.signed_entry_timestamp)
                    .map_err(|e| malformed("the Rekor bundle's SignedEntryTimestamp", e))?,
            ),
            proof: None,
        })
    }

    /// The payload the SET signs.
    pub fn set_payload(&self) -> Vec<u8> {
        let log_id = hex::encode(&self.log_id);
        let payload = SetPayload {
            body: &self.body_base64,
            integrated_time: self.integrated_time,
            log_id: &log_id,
            log_index: self.log_index,
        };
        serde_json::to_vec(&payload).unwrap_or_default()
    }

    /// Checks the SET and the inclusion proof (whichever are present; at least one must be)
    /// against the root's log keys.
    pub fn verify(&self, root: &TrustedRoot) -> Result<LogEvidence, SignatureError> {
        let log = root.log(&self.log_id).ok_or_else(|| {
            log_error(format!(
                "log {} is not a log of the trusted root",
                STANDARD.encode(&self.log_id)
            ))
        })?;
        if !log.valid_for.contains(self.integrated_time) {
            return Err(log_error(format!(
                "the key of log {} is not trusted at {}",
                log.base_url, self.integrated_time
            )));
        }
        if self.set.is_none() && self.proof.is_none() {
            return Err(log_error(
                "the entry has neither a signed entry timestamp nor an inclusion proof",
            ));
        }
        let mut evidence = LogEvidence {
            log_index: self.log_index,
            integrated_time: self.integrated_time,
            set_verified: false,
            inclusion_verified: false,
        };
        if let Some(set) = &self.set {
            if !log.key.verifies(&self.set_payload(), set) {
                return Err(log_error(format!(
                    "the signed entry timestamp of entry {} does not verify with the key of {}",
                    self.log_index, log.base_url
                )));
            }
            evidence.set_verified = true;
        }
        if let Some(proof) = &self.proof {
            let body = self.body()?;
            let mut leaf = Sha256::new();
            leaf.update([0u8]);
            leaf.update(&body);
            let root_hash = root_from_proof(proof, leaf.finalize().into())
                .ok_or_else(|| log_error("the inclusion proof does not lead to its root hash"))?;
            if root_hash.as_slice() != proof.root_hash.as_slice() {
                return Err(log_error(
                    "the inclusion proof does not lead to its root hash",
                ));
            }
            if let Some(checkpoint) = &proof.checkpoint {
                verify_checkpoint(checkpoint, proof, &log.key, &self.log_id)?;
            }
            evidence.inclusion_verified = true;
        }
        Ok(evidence)
    }

    /// The decoded body.
    pub fn body(&self) -> Result<Vec<u8>, SignatureError> {
        STANDARD
            .decode(&self.body_base64)
            .map_err(|e| malformed("the log entry body", e))
    }

    /// Checks that this is a `hashedrekord` entry for `sha256` of the bytes, `signature` and
    /// the certificate `leaf_der` (CVE-2022-36056: an entry about something else proves nothing).
    pub fn check_hashedrekord(
        &self,
        sha256: &[u8],
        signature: &[u8],
        leaf_der: &[u8],
    ) -> Result<(), SignatureError> {
        let body: serde_json::Value = serde_json::from_slice(&self.body()?)
            .map_err(|e| malformed("the log entry body", e))?;
        if body["kind"] != "hashedrekord" {
            return Err(SignatureError::Unsupported {
                what: format!("log entry kind {}", body["kind"]),
            });
        }
        let spec = &body["spec"];
        let algorithm = spec["data"]["hash"]["algorithm"].as_str().unwrap_or("");
        let value = spec["data"]["hash"]["value"].as_str().unwrap_or("");
        if algorithm != "sha256" || value != hex::encode(sha256) {
            return Err(log_error(format!(
                "the entry is for {algorithm}:{value}, not for these bytes (sha256:{})",
                hex::encode(sha256)
            )));
        }
        let logged_sig = STANDARD
            .decode(spec["signature"]["content"].as_str().unwrap_or(""))
            .map_err(|e| malformed("the log entry signature", e))?;
        if logged_sig != signature {
            return Err(log_error("the entry records another signature"));
        }
        let key = STANDARD
            .decode(
                spec["signature"]["publicKey"]["content"]
                    .as_str()
                    .unwrap_or(""),
            )
            .map_err(|e| malformed("the log entry public key", e))?;
        if certificate_der(&key)? != leaf_der {
            return Err(log_error("the entry records another certificate"));
        }
        Ok(())
    }
}

fn node(left: &[u8], right: &[u8]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update([1u8]);
    hasher.update(left);
    hasher.update(right);
    hasher.finalize().into()
}

/// The root hash an inclusion proof leads to (RFC 9162, section 2.1.3.2).
fn root_from_proof(proof: &InclusionProof, leaf: [u8; 32]) -> Option<[u8; 32]> {
    if proof.log_index >= proof.tree_size {
        return None;
    }
    let mut index = proof.log_index;
    let mut last = proof.tree_size - 1;
    let mut hash = leaf;
    for sibling in &proof.hashes {
        if sibling.len() != 32 || last == 0 {
            return None;
        }
        if index & 1 == 1 || index == last {
            hash = node(sibling, &hash);
            if index & 1 == 0 {
                while index & 1 == 0 && index != 0 {
                    index >>= 1;
                    last >>= 1;
                }
            }
        } else {
            hash = node(&hash, sibling);
        }
        index >>= 1;
        last >>= 1;
    }
    (last == 0).then_some(hash)
}

/// Checks a signed note: `<origin>\n<size>\n<root base64>\n...\n\n— <name> <base64(hint || sig)>`.
fn verify_checkpoint(
    note: &str,
    proof: &InclusionProof,
    key: &crate::key::PublicKey,
    log_id: &[u8],
) -> Result<(), SignatureError> {
    let (body, signatures) = note
        .split_once("\n\n")
        .ok_or_else(|| malformed("the checkpoint", "no blank line before the signatures"))?;
    let signed = format!("{body}\n");
    let mut lines = body.lines();
    let _origin = lines.next();
    let size: u64 = lines
        .next()
        .and_then(|l| l.parse().ok())
        .ok_or_else(|| malformed("the checkpoint", "no tree size"))?;
    let root = lines
        .next()
        .and_then(|l| STANDARD.decode(l).ok())
        .ok_or_else(|| malformed("the checkpoint", "no root hash"))?;
    if size != proof.tree_size || root != proof.root_hash {
        return Err(log_error(
            "the checkpoint is for another tree than the inclusion proof",
        ));
    }
    let verified = signatures.lines().any(|line| {
        let Some(rest) = line.strip_prefix("\u{2014} ") else {
            return false;
        };
        let Some(sig) = rest
            .rsplit(' ')
            .next()
            .and_then(|s| STANDARD.decode(s).ok())
        else {
            return false;
        };
        sig.len() > 4
            && sig[..4] == log_id[..4.min(log_id.len())]
            && key.verifies(signed.as_bytes(), &sig[4..])
    });
    if !verified {
        return Err(log_error("the checkpoint is not signed by the log's key"));
    }
    Ok(())
}
