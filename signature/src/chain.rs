//! Does a certificate chain to a certificate authority of the trusted root at a given time?
//! Each link's signature is checked with the issuer's key, each certificate must be valid at
//! that time, and every issuer must be a CA; the authority itself must be trusted then.

use crate::certificate::parse;
use crate::error::SignatureError;
use crate::trust_root::{CertificateAuthority, TrustedRoot};

/// Why the leaf does not chain to one authority; the reasons of all authorities make up the
/// detail of [`SignatureError::UntrustedChain`].
#[derive(Debug, thiserror::Error)]
enum ChainError {
    /// A certificate of the chain could not be read.
    #[error("{0}")]
    Certificate(#[from] SignatureError),
    /// A certificate of the chain is not valid at the time.
    #[error("{subject} is valid from {start} to {end}, not at {time}")]
    NotValidAt {
        subject: String,
        start: i64,
        end: i64,
        time: i64,
    },
    /// The next certificate's subject is not the child's issuer.
    #[error("{subject} is not the issuer {issuer}")]
    NotIssuer { subject: String, issuer: String },
    /// The next certificate may not issue certificates.
    #[error("{subject} is not a certificate authority")]
    NotAuthority { subject: String },
    /// The issuer's key did not sign the child.
    #[error("the signature of {child} by {issuer}: {detail}")]
    Signature {
        child: String,
        issuer: String,
        detail: String,
    },
    /// The authority itself is not trusted at the time.
    #[error("authority {uri} is not trusted at {time}")]
    AuthorityNotTrusted { uri: String, time: i64 },
}

fn valid_at(der: &[u8], time: i64) -> Result<(), ChainError> {
    let cert = parse(der)?;
    let validity = cert.validity();
    let (start, end) = (
        validity.not_before.timestamp(),
        validity.not_after.timestamp(),
    );
    if time < start || time > end {
        return Err(ChainError::NotValidAt {
            subject: cert.subject().to_string(),
            start,
            end,
            time,
        });
    }
    Ok(())
}

/// Whether `issuer` issued `child`: names match, `issuer` is a CA and its key signed `child`.
fn issued(child: &[u8], issuer: &[u8]) -> Result<(), ChainError> {
    let child = parse(child)?;
    let issuer = parse(issuer)?;
    if child.issuer().as_raw() != issuer.subject().as_raw() {
        return Err(ChainError::NotIssuer {
            subject: issuer.subject().to_string(),
            issuer: child.issuer().to_string(),
        });
    }
    let is_ca = matches!(issuer.basic_constraints(), Ok(Some(bc)) if bc.value.ca);
    if !is_ca {
        return Err(ChainError::NotAuthority {
            subject: issuer.subject().to_string(),
        });
    }
    child
        .verify_signature(Some(issuer.public_key()))
        .map_err(|e| ChainError::Signature {
            child: child.subject().to_string(),
            issuer: issuer.subject().to_string(),
            detail: e.to_string(),
        })
}

fn chains_to(leaf: &[u8], ca: &CertificateAuthority, time: i64) -> Result<(), ChainError> {
    if !ca.valid_for.contains(time) {
        return Err(ChainError::AuthorityNotTrusted {
            uri: ca.uri.clone(),
            time,
        });
    }
    let mut child = leaf;
    for cert in &ca.chain {
        issued(child, cert)?;
        valid_at(cert, time)?;
        child = cert;
    }
    // The last certificate of the authority is its root: self-signed.
    issued(child, child)
}

/// Checks that `leaf` chains to one of the root's authorities at `time`.
pub fn verify_chain(
    leaf: &[u8],
    issuer_name: &str,
    root: &TrustedRoot,
    time: i64,
) -> Result<(), SignatureError> {
    let mut reasons = Vec::new();
    for ca in &root.certificate_authorities {
        match chains_to(leaf, ca, time) {
            Ok(()) => return Ok(()),
            Err(reason) => reasons.push(reason.to_string()),
        }
    }
    Err(SignatureError::UntrustedChain {
        issuer: issuer_name.to_string(),
        detail: reasons.join("; "),
    })
}
