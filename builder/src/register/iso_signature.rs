//! `register --require-signature --key PUB` for one ISO: `<iso>.sig` beside it (read bounded)
//! must be the key's signature over the sha256 the ISO was just hashed to, before CloudStack is
//! called at all.

use std::io::Read;

use cks_signature::BlobKey;

use super::error::RegisterError;
use super::iso_facts::IsoFacts;
use crate::signing::sig_path;

/// The most read of a `.sig` file (a P-256 signature is under 100 bytes of base64).
const MAX_SIGNATURE: u64 = 64 * 1024;

/// The public key an ISO's signature must verify with, and the path it was read from.
#[derive(Debug, Clone)]
pub struct RequiredKey {
    /// The key.
    pub key: BlobKey,
    /// Its file, as given (named in errors).
    pub path: String,
}

/// Checks `<iso>.sig` against the ISO's sha256 in `facts` with `required`.
pub fn check(facts: &IsoFacts, required: &RequiredKey) -> Result<(), RegisterError> {
    check_digest(&facts.iso, &facts.sha256, required)
}

/// Checks `<iso>.sig` against `sha256` (hex), the digest `iso` was just hashed to, with
/// `required`.
pub fn check_digest(
    iso: &std::path::Path,
    sha256: &str,
    required: &RequiredKey,
) -> Result<(), RegisterError> {
    let sig = sig_path(iso);
    let unsigned = |detail: String| RegisterError::Unsigned {
        iso: iso.to_path_buf(),
        sig: sig.clone(),
        detail,
    };
    let file = std::fs::File::open(&sig).map_err(|e| unsigned(e.to_string()))?;
    let mut text = Vec::new();
    file.take(MAX_SIGNATURE + 1)
        .read_to_end(&mut text)
        .map_err(|e| unsigned(e.to_string()))?;
    if text.len() as u64 > MAX_SIGNATURE {
        return Err(unsigned(format!(
            "larger than {MAX_SIGNATURE} bytes, not a signature"
        )));
    }
    let mut digest = [0u8; 32];
    hex::decode_to_slice(sha256, &mut digest).map_err(|e| unsigned(e.to_string()))?;
    required
        .key
        .verify_sha256(&digest, &text)
        .map_err(|source| RegisterError::BadSignature {
            iso: iso.to_path_buf(),
            key: required.path.clone(),
            source,
        })
}
