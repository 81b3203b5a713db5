//! The signing certificate: reading it from the forms cosign writes, and its Fulcio fields (the
//! identity in the subject alternative name, the OIDC issuer extensions, the validity).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use x509_parser::certificate::X509Certificate;
use x509_parser::extensions::GeneralName;
use x509_parser::prelude::FromDer;

use crate::error::{SignatureError, malformed};
use crate::key::PublicKey;

/// Fulcio's OIDC issuer extension (v1, the raw string).
pub const OID_ISSUER_V1: &str = "1.3.6.1.4.1.57264.1.1";
/// Fulcio's OIDC issuer extension (v2, a DER UTF8String).
pub const OID_ISSUER_V2: &str = "1.3.6.1.4.1.57264.1.8";

const WHAT: &str = "the certificate";

/// A parsed signing certificate, owning its DER.
#[derive(Debug, Clone)]
pub struct Certificate {
    der: Vec<u8>,
    /// The subject alternative names (e-mail addresses and URIs).
    pub identities: Vec<String>,
    /// The OIDC issuer, from the v2 extension or else the v1 one.
    pub issuer: Option<String>,
    /// The first second of validity.
    pub not_before: i64,
    /// The last second of validity.
    pub not_after: i64,
    /// Whether the extended key usage allows code signing.
    pub code_signing: bool,
    /// The issuer's distinguished name, for messages.
    pub issuer_name: String,
}

/// A DER string's content (UTF8String, IA5String, PrintableString), else `None`.
fn der_string(value: &[u8]) -> Option<String> {
    let (&tag, rest) = value.split_first()?;
    if !matches!(tag, 0x0c | 0x16 | 0x13) {
        return None;
    }
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n]
            .iter()
            .fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
        (len, &rest[n..])
    };
    let bytes = rest.get(..len)?;
    String::from_utf8(bytes.to_vec()).ok()
}

/// The DER of the first certificate in PEM text, or of DER bytes as they are, or of either
/// when base64-encoded once more (as `cosign sign-blob --output-certificate` writes).
pub fn certificate_der(input: &[u8]) -> Result<Vec<u8>, SignatureError> {
    let text = String::from_utf8_lossy(input);
    let trimmed = text.trim();
    if let Some(start) = trimmed.find("-----BEGIN CERTIFICATE-----") {
        let body = &trimmed[start + "-----BEGIN CERTIFICATE-----".len()..];
        let end = body
            .find("-----END CERTIFICATE-----")
            .ok_or_else(|| malformed(WHAT, "PEM without an END line"))?;
        let b64: String = body[..end].chars().filter(|c| !c.is_whitespace()).collect();
        return STANDARD
            .decode(b64)
            .map_err(|e| malformed(WHAT, format!("bad base64 in PEM: {e}")));
    }
    if input.first() == Some(&0x30) {
        return Ok(input.to_vec());
    }
    let b64: String = trimmed.chars().filter(|c| !c.is_whitespace()).collect();
    match STANDARD.decode(b64) {
        Ok(decoded) if !decoded.is_empty() && decoded != input => certificate_der(&decoded),
        _ => Err(malformed(
            WHAT,
            "expected PEM, DER, or base64 of either (as cosign writes `.cert` files)",
        )),
    }
}

/// Parses DER, refusing trailing bytes.
pub(crate) fn parse(der: &[u8]) -> Result<X509Certificate<'_>, SignatureError> {
    let (rest, cert) = X509Certificate::from_der(der).map_err(|e| malformed(WHAT, e))?;
    if !rest.is_empty() {
        return Err(malformed(WHAT, "trailing bytes after the certificate"));
    }
    Ok(cert)
}

impl Certificate {
    /// Reads a certificate from PEM, DER or base64 of either.
    pub fn from_bytes(input: &[u8]) -> Result<Certificate, SignatureError> {
        Certificate::from_der(certificate_der(input)?)
    }

    /// Reads a DER certificate.
    pub fn from_der(der: Vec<u8>) -> Result<Certificate, SignatureError> {
        let cert = parse(&der)?;
        let mut identities = Vec::new();
        if let Ok(Some(san)) = cert.subject_alternative_name() {
            for name in &san.value.general_names {
                match name {
                    GeneralName::RFC822Name(email) => identities.push(email.to_string()),
                    GeneralName::URI(uri) => identities.push(uri.to_string()),
                    _ => {}
                }
            }
        }
        let mut v1 = None;
        let mut v2 = None;
        for ext in cert.extensions() {
            match ext.oid.to_id_string().as_str() {
                OID_ISSUER_V1 => v1 = String::from_utf8(ext.value.to_vec()).ok(),
                OID_ISSUER_V2 => v2 = der_string(ext.value),
                _ => {}
            }
        }
        let code_signing =
            matches!(cert.extended_key_usage(), Ok(Some(eku)) if eku.value.code_signing);
        let certificate = Certificate {
            identities,
            issuer: v2.or(v1),
            not_before: cert.validity().not_before.timestamp(),
            not_after: cert.validity().not_after.timestamp(),
            code_signing,
            issuer_name: cert.issuer().to_string(),
            der: Vec::new(),
        };
        Ok(Certificate { der, ..certificate })
    }

    /// The DER bytes.
    pub fn der(&self) -> &[u8] {
        &self.der
    }

    /// The certificate's public key.
    pub fn public_key(&self) -> Result<PublicKey, SignatureError> {
        let cert = parse(&self.der)?;
        PublicKey::from_spki(cert.public_key())
    }
}
