//! Sigstore bundles (`.sigstore.json`, media types `application/vnd.dev.sigstore.bundle+json;
//! version=0.1`..`0.3` and `application/vnd.dev.sigstore.bundle.v0.3+json`) with a message
//! signature: the certificate, the signature, the digest and the log entries.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use crate::error::{SignatureError, malformed};
use crate::rekor::{InclusionProof, LogEntry};

const WHAT: &str = "the Sigstore bundle";

/// What a message-signature bundle holds.
#[derive(Debug, Clone)]
pub struct Bundle {
    /// The signing certificate, DER.
    pub certificate: Vec<u8>,
    /// The signature.
    pub signature: Vec<u8>,
    /// The SHA-256 the bundle says was signed.
    pub digest: Vec<u8>,
    /// Its log entries.
    pub entries: Vec<LogEntry>,
}

fn b64(value: &Value, field: &str) -> Result<Vec<u8>, SignatureError> {
    let text = value
        .as_str()
        .ok_or_else(|| malformed(WHAT, format!("no `{field}`")))?;
    STANDARD
        .decode(text)
        .map_err(|e| malformed(WHAT, format!("`{field}` is not base64: {e}")))
}

/// A protobuf-JSON 64-bit integer: a string of digits or a number.
fn int(value: &Value, field: &str) -> Result<i64, SignatureError> {
    value
        .as_str()
        .and_then(|s| s.parse().ok())
        .or_else(|| value.as_i64())
        .ok_or_else(|| malformed(WHAT, format!("`{field}` is not an integer")))
}

fn unsigned(value: &Value, field: &str) -> Result<u64, SignatureError> {
    u64::try_from(int(value, field)?).map_err(|_| malformed(WHAT, format!("`{field}` is negative")))
}

fn entry(raw: &Value) -> Result<LogEntry, SignatureError> {
    let body_base64 = raw["canonicalizedBody"]
        .as_str()
        .ok_or_else(|| malformed(WHAT, "a log entry has no `canonicalizedBody`"))?
        .to_string();
    let set = match &raw["inclusionPromise"]["signedEntryTimestamp"] {
        Value::Null => None,
        value => Some(b64(value, "signedEntryTimestamp")?),
    };
    let proof = match &raw["inclusionProof"] {
        Value::Null => None,
        p => Some(InclusionProof {
            log_index: unsigned(&p["logIndex"], "inclusionProof.logIndex")?,
            tree_size: unsigned(&p["treeSize"], "inclusionProof.treeSize")?,
            root_hash: b64(&p["rootHash"], "inclusionProof.rootHash")?,
            hashes: p["hashes"]
                .as_array()
                .map(|a| a.iter().map(|h| b64(h, "inclusionProof.hashes")).collect())
                .transpose()?
                .unwrap_or_default(),
            checkpoint: p["checkpoint"]["envelope"].as_str().map(str::to_string),
        }),
    };
    Ok(LogEntry {
        body_base64,
        integrated_time: int(&raw["integratedTime"], "integratedTime")?,
        log_index: unsigned(&raw["logIndex"], "logIndex")?,
        log_id: b64(&raw["logId"]["keyId"], "logId.keyId")?,
        set,
        proof,
    })
}

impl Bundle {
    /// Parses a bundle's JSON.
    pub fn from_json(text: &str) -> Result<Bundle, SignatureError> {
        let value: Value = serde_json::from_str(text).map_err(|e| malformed(WHAT, e))?;
        let media_type = value["mediaType"].as_str().unwrap_or("");
        if !media_type.starts_with("application/vnd.dev.sigstore.bundle") {
            return Err(malformed(
                WHAT,
                format!("media type {media_type:?}, expected application/vnd.dev.sigstore.bundle"),
            ));
        }
        let material = &value["verificationMaterial"];
        let certificate = match (&material["certificate"], &material["x509CertificateChain"]) {
            (Value::Null, chain) => b64(
                &chain["certificates"][0]["rawBytes"],
                "certificates[0].rawBytes",
            )?,
            (cert, _) => b64(&cert["rawBytes"], "certificate.rawBytes")?,
        };
        if value["dsseEnvelope"] != Value::Null {
            return Err(SignatureError::Unsupported {
                what: "DSSE bundles (only message signatures over a file are verified)".to_string(),
            });
        }
        let message = &value["messageSignature"];
        if message["messageDigest"]["algorithm"] != "SHA2_256" {
            return Err(SignatureError::Unsupported {
                what: format!("message digest {}", message["messageDigest"]["algorithm"]),
            });
        }
        let entries = material["tlogEntries"]
            .as_array()
            .map(|a| a.iter().map(entry).collect::<Result<Vec<_>, _>>())
            .transpose()?
            .unwrap_or_default();
        Ok(Bundle {
            certificate,
            signature: b64(&message["signature"], "messageSignature.signature")?,
            digest: b64(&message["messageDigest"]["digest"], "messageDigest.digest")?,
            entries,
        })
    }
}
