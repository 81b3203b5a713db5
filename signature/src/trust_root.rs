//! The trusted root (`trusted_root.json`, media type
//! `application/vnd.dev.sigstore.trustedroot+json`): the Fulcio certificate authorities and the
//! Rekor log keys, each with the period it is trusted for.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::error::{SignatureError, malformed};
use crate::key::PublicKey;
use crate::time::parse_rfc3339;

/// The public-good instance's trusted root, built in.
pub const PUBLIC_GOOD_JSON: &str = include_str!("../data/public-good/trusted_root.json");

/// A period of trust, seconds since 1970; `end` is open when absent. Both ends are inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Validity {
    /// The first second.
    pub start: i64,
    /// The last second, if any.
    pub end: Option<i64>,
}

impl Validity {
    /// Whether `time` lies in the period.
    pub fn contains(&self, time: i64) -> bool {
        time >= self.start && self.end.is_none_or(|end| time <= end)
    }
}

/// A certificate authority: its chain (intermediates first, the root last).
#[derive(Debug, Clone)]
pub struct CertificateAuthority {
    /// Its URI, e.g. `https://fulcio.sigstore.dev`.
    pub uri: String,
    /// DER certificates, issuing certificate first.
    pub chain: Vec<Vec<u8>>,
    /// When certificates it issued are trusted.
    pub valid_for: Validity,
}

/// A transparency log (Rekor) key.
#[derive(Debug, Clone)]
pub struct TransparencyLog {
    /// Its base URL, e.g. `https://rekor.sigstore.dev`.
    pub base_url: String,
    /// The log ID: the SHA-256 of the key's DER.
    pub log_id: Vec<u8>,
    /// The key.
    pub key: PublicKey,
    /// When entries it signed are trusted.
    pub valid_for: Validity,
}

/// The trusted root.
#[derive(Debug, Clone)]
pub struct TrustedRoot {
    /// Fulcio certificate authorities.
    pub certificate_authorities: Vec<CertificateAuthority>,
    /// Rekor logs.
    pub tlogs: Vec<TransparencyLog>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawRoot {
    media_type: String,
    #[serde(default)]
    tlogs: Vec<RawLog>,
    #[serde(default)]
    certificate_authorities: Vec<RawCa>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawLog {
    #[serde(default)]
    base_url: String,
    public_key: RawKey,
    log_id: RawLogId,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawKey {
    raw_bytes: String,
    valid_for: Option<RawValidity>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawLogId {
    key_id: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawCa {
    #[serde(default)]
    uri: String,
    cert_chain: RawChain,
    valid_for: Option<RawValidity>,
}

#[derive(Deserialize)]
struct RawChain {
    certificates: Vec<RawCert>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawCert {
    raw_bytes: String,
}

#[derive(Deserialize)]
struct RawValidity {
    start: Option<String>,
    end: Option<String>,
}

const WHAT: &str = "the trusted root";

fn validity(raw: Option<&RawValidity>) -> Result<Validity, SignatureError> {
    let raw = raw.ok_or_else(|| malformed(WHAT, "an entry has no `validFor`"))?;
    let start = raw
        .start
        .as_deref()
        .ok_or_else(|| malformed(WHAT, "a `validFor` has no `start`"))?;
    let start =
        parse_rfc3339(start).ok_or_else(|| malformed(WHAT, format!("bad time {start:?}")))?;
    let end = match raw.end.as_deref() {
        Some(end) => {
            Some(parse_rfc3339(end).ok_or_else(|| malformed(WHAT, format!("bad time {end:?}")))?)
        }
        None => None,
    };
    Ok(Validity { start, end })
}

fn base64(text: &str) -> Result<Vec<u8>, SignatureError> {
    STANDARD
        .decode(text)
        .map_err(|e| malformed(WHAT, format!("bad base64: {e}")))
}

impl TrustedRoot {
    /// Parses a `trusted_root.json`.
    pub fn from_json(text: &str) -> Result<TrustedRoot, SignatureError> {
        let raw: RawRoot = serde_json::from_str(text).map_err(|e| malformed(WHAT, e))?;
        if !raw
            .media_type
            .starts_with("application/vnd.dev.sigstore.trustedroot")
        {
            return Err(malformed(
                WHAT,
                format!(
                    "media type {:?}, expected application/vnd.dev.sigstore.trustedroot+json",
                    raw.media_type
                ),
            ));
        }
        let mut tlogs = Vec::new();
        for log in &raw.tlogs {
            let der = base64(&log.public_key.raw_bytes)?;
            let log_id = base64(&log.log_id.key_id)?;
            if Sha256::digest(&der).as_slice() != log_id.as_slice() {
                return Err(malformed(
                    WHAT,
                    format!(
                        "log {} has a key ID that is not its key's SHA-256",
                        log.base_url
                    ),
                ));
            }
            tlogs.push(TransparencyLog {
                base_url: log.base_url.clone(),
                log_id,
                key: PublicKey::from_spki_der(&der)?,
                valid_for: validity(log.public_key.valid_for.as_ref())?,
            });
        }
        let mut certificate_authorities = Vec::new();
        for ca in &raw.certificate_authorities {
            let chain = ca
                .cert_chain
                .certificates
                .iter()
                .map(|c| base64(&c.raw_bytes))
                .collect::<Result<Vec<_>, _>>()?;
            if chain.is_empty() {
                return Err(malformed(
                    WHAT,
                    format!("authority {} has no certificates", ca.uri),
                ));
            }
            certificate_authorities.push(CertificateAuthority {
                uri: ca.uri.clone(),
                chain,
                valid_for: validity(ca.valid_for.as_ref())?,
            });
        }
        if certificate_authorities.is_empty() {
            return Err(malformed(WHAT, "it names no certificate authority"));
        }
        Ok(TrustedRoot {
            certificate_authorities,
            tlogs,
        })
    }

    /// The public-good instance's trusted root (built in).
    pub fn public_good() -> Result<TrustedRoot, SignatureError> {
        TrustedRoot::from_json(PUBLIC_GOOD_JSON)
    }

    /// The log with this ID.
    pub fn log(&self, log_id: &[u8]) -> Option<&TransparencyLog> {
        self.tlogs.iter().find(|l| l.log_id == log_id)
    }
}
