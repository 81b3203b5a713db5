//! Public keys from SubjectPublicKeyInfo DER, and signature checks over SHA-256: with ring over
//! the message, with the RustCrypto `p256` / `p384` crates over a digest computed elsewhere
//! (ring has no prehashed ECDSA).

use ring::signature::{self, UnparsedPublicKey, VerificationAlgorithm};
use x509_parser::prelude::FromDer;
use x509_parser::x509::SubjectPublicKeyInfo;

use crate::error::{SignatureError, malformed};

const EC_PUBLIC_KEY: &str = "1.2.840.10045.2.1";
const P256: &str = "1.2.840.10045.3.1.7";
const P384: &str = "1.3.132.0.34";
const RSA: &str = "1.2.840.113549.1.1.1";
const ED25519: &str = "1.3.101.112";

/// A public key that checks signatures made over the SHA-256 of a message (how cosign and
/// Rekor sign), whatever the curve.
#[derive(Debug, Clone)]
pub struct PublicKey {
    algorithm: &'static dyn VerificationAlgorithm,
    curve: Option<Curve>,
    bytes: Vec<u8>,
}

/// The ECDSA curves a prehashed signature can be checked on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Curve {
    P256,
    P384,
}

impl PublicKey {
    /// The key of a SubjectPublicKeyInfo.
    pub fn from_spki(spki: &SubjectPublicKeyInfo<'_>) -> Result<PublicKey, SignatureError> {
        let oid = spki.algorithm.algorithm.to_id_string();
        let mut curve_of_key = None;
        let algorithm: &'static dyn VerificationAlgorithm = match oid.as_str() {
            EC_PUBLIC_KEY => {
                let curve = spki
                    .algorithm
                    .parameters
                    .as_ref()
                    .and_then(|p| p.as_oid().ok())
                    .map(|o| o.to_id_string())
                    .unwrap_or_default();
                match curve.as_str() {
                    P256 => {
                        curve_of_key = Some(Curve::P256);
                        &signature::ECDSA_P256_SHA256_ASN1
                    }
                    P384 => {
                        curve_of_key = Some(Curve::P384);
                        &signature::ECDSA_P384_SHA256_ASN1
                    }
                    other => {
                        return Err(SignatureError::Unsupported {
                            what: format!("elliptic curve {other}"),
                        });
                    }
                }
            }
            RSA => &signature::RSA_PKCS1_2048_8192_SHA256,
            ED25519 => &signature::ED25519,
            other => {
                return Err(SignatureError::Unsupported {
                    what: format!("public key algorithm {other}"),
                });
            }
        };
        Ok(PublicKey {
            algorithm,
            curve: curve_of_key,
            bytes: spki.subject_public_key.data.to_vec(),
        })
    }

    /// The key of SubjectPublicKeyInfo DER bytes.
    pub fn from_spki_der(der: &[u8]) -> Result<PublicKey, SignatureError> {
        let (_, spki) =
            SubjectPublicKeyInfo::from_der(der).map_err(|e| malformed("a public key", e))?;
        PublicKey::from_spki(&spki)
    }

    /// Whether the key is ECDSA P-256 or P-384, the keys that check a signature from a digest.
    pub(crate) fn is_ecdsa(&self) -> bool {
        self.curve.is_some()
    }

    /// Whether `signature` (DER for ECDSA) is over `message`.
    pub fn verifies(&self, message: &[u8], signature: &[u8]) -> bool {
        UnparsedPublicKey::new(self.algorithm, &self.bytes)
            .verify(message, signature)
            .is_ok()
    }

    /// Whether `signature` (DER ECDSA) is over the message whose SHA-256 is `sha256`, checked
    /// without the message. Only ECDSA keys can: Ed25519 signs the message itself, and RSA keys
    /// are refused as unsupported here.
    pub fn verifies_sha256(
        &self,
        sha256: &[u8; 32],
        signature: &[u8],
    ) -> Result<bool, SignatureError> {
        use p256::ecdsa::signature::hazmat::PrehashVerifier;
        match self.curve {
            Some(Curve::P256) => {
                let Ok(key) = p256::ecdsa::VerifyingKey::from_sec1_bytes(&self.bytes) else {
                    return Ok(false);
                };
                let Ok(sig) = p256::ecdsa::Signature::from_der(signature) else {
                    return Ok(false);
                };
                Ok(key.verify_prehash(sha256, &sig).is_ok())
            }
            Some(Curve::P384) => {
                let Ok(key) = p384::ecdsa::VerifyingKey::from_sec1_bytes(&self.bytes) else {
                    return Ok(false);
                };
                let Ok(sig) = p384::ecdsa::Signature::from_der(signature) else {
                    return Ok(false);
                };
                Ok(key.verify_prehash(sha256, &sig).is_ok())
            }
            None => Err(SignatureError::Unsupported {
                what: "a signature over a file's digest with a key other than ECDSA P-256 or P-384"
                    .to_string(),
            }),
        }
    }
}
