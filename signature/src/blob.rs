//! Blob signatures: a detached signature over a file made with a key pair of our own, checked
//! as `cosign verify-blob --key PUB --signature SIG FILE` checks it. The `.sig` file holds the
//! base64 of the DER ECDSA P-256 signature over the SHA-256 of the file's bytes; the public key
//! is a SubjectPublicKeyInfo in PEM (`-----BEGIN PUBLIC KEY-----`). Not to be confused with the
//! keyless Sigstore signatures of Kubernetes' binaries and images ([`crate::verify_blob`]):
//! there is no certificate, identity or transparency log here, only the key.
//!
//! The check takes the file's SHA-256, so a caller hashes a large file as it streams and never
//! holds it whole.
//!
//! ```
//! use cks_signature::BlobKey;
//! let refused = BlobKey::from_pem(b"not a key");
//! assert!(refused.is_err());
//! ```

use x509_parser::pem::parse_x509_pem;

use crate::error::{SignatureError, malformed};
use crate::key::PublicKey;
use crate::verify::decode_signature;

/// The PEM label of a SubjectPublicKeyInfo.
const PUBLIC_KEY_LABEL: &str = "PUBLIC KEY";

/// An ECDSA P-256 public key that checks blob signatures.
#[derive(Debug, Clone)]
pub struct BlobKey {
    key: PublicKey,
}

impl BlobKey {
    /// The key in PEM SubjectPublicKeyInfo text (as `cks-iso keygen` and `cosign
    /// generate-key-pair` write `.pub` files). Only ECDSA P-256 and P-384 keys are taken.
    pub fn from_pem(pem: &[u8]) -> Result<BlobKey, SignatureError> {
        let (_, block) = parse_x509_pem(pem)
            .map_err(|e| malformed("the public key", format!("expected PEM: {e}")))?;
        if block.label != PUBLIC_KEY_LABEL {
            return Err(malformed(
                "the public key",
                format!(
                    "the PEM block is `{}`, expected `{PUBLIC_KEY_LABEL}` (a .pub file from `cks-iso keygen`)",
                    block.label
                ),
            ));
        }
        let key = PublicKey::from_spki_der(&block.contents)?;
        // Only ECDSA can check a signature from the file's digest: refuse others here, once.
        if !key.is_ecdsa() {
            return Err(SignatureError::Unsupported {
                what: "public key for blob signatures: expected ECDSA P-256 (as `cks-iso keygen` writes)".to_string(),
            });
        }
        Ok(BlobKey { key })
    }

    /// Checks `sig_file` (the `.sig` text: base64 of a DER ECDSA signature, whitespace ignored)
    /// against the file whose SHA-256 is `sha256`.
    pub fn verify_sha256(&self, sha256: &[u8; 32], sig_file: &[u8]) -> Result<(), SignatureError> {
        let der = decode_signature(sig_file)?;
        if self.key.verifies_sha256(sha256, &der)? {
            Ok(())
        } else {
            Err(SignatureError::BadSignature {
                detail: "the signature does not match this file with this public key (the file was changed after signing, or another key signed it)".to_string(),
            })
        }
    }

    /// Checks `sig_file` against `bytes` (a small file held whole, such as a catalog).
    pub fn verify_bytes(&self, bytes: &[u8], sig_file: &[u8]) -> Result<(), SignatureError> {
        use sha2::{Digest, Sha256};
        self.verify_sha256(&Sha256::digest(bytes).into(), sig_file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_certificate_is_not_a_public_key() {
        let pem = b"-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n";
        let err = BlobKey::from_pem(pem).expect_err("a certificate");
        assert!(err.to_string().contains("CERTIFICATE"), "{err}");
    }

    #[test]
    fn an_ed25519_key_is_refused_as_unsupported() {
        // The Ed25519 public key of RFC 8410, section 10.1.
        let pem = b"-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----\n";
        let err = BlobKey::from_pem(pem).expect_err("not ECDSA");
        assert!(err.to_string().contains("ECDSA P-256"), "{err}");
    }
}
