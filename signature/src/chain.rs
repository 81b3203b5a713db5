//! Does a certificate chain to a certificate authority of the trusted root at a given time?
//! Each link's signature is checked with the issuer's key, each certificate must be valid at
//! that time, and every issuer must be a CA; the authority itself must be trusted then.

use crate::certificate::parse;
use crate::error::SignatureError;
use crate::trust_root::{CertificateAuthority, TrustedRoot};

fn valid_at(der: &[u8], time: i64) -> Result<(), String> {
    let cert = parse(der).map_err(|e| e.to_string())?;
    let validity = cert.validity();
    let (start, end) = (
        validity.not_before.timestamp(),
        validity.not_after.timestamp(),
    );
    if time < start || time > end {
        return Err(format!(
            "{} is valid from {start} to {end}, not at {time}",
            cert.subject()
        ));
    }
    Ok(())
}

/// Whether `issuer` issued `child`: names match, `issuer` is a CA and its key signed `child`.
fn issued(child: &[u8], issuer: &[u8]) -> Result<(), String> {
    let child = parse(child).map_err(|e| e.to_string())?;
    let issuer = parse(issuer).map_err(|e| e.to_string())?;
    if child.issuer().as_raw() != issuer.subject().as_raw() {
        return Err(format!(
            "{} is not the issuer {}",
            issuer.subject(),
            child.issuer()
        ));
    }
    let is_ca = matches!(issuer.basic_constraints(), Ok(Some(bc)) if bc.value.ca);
    if !is_ca {
        return Err(format!(
            "{} is not a certificate authority",
            issuer.subject()
        ));
    }
    child
        .verify_signature(Some(issuer.public_key()))
        .map_err(|e| {
            format!(
                "the signature of {} by {}: {e}",
                child.subject(),
                issuer.subject()
            )
        })
}

fn chains_to(leaf: &[u8], ca: &CertificateAuthority, time: i64) -> Result<(), String> {
    if !ca.valid_for.contains(time) {
        return Err(format!("authority {} is not trusted at {time}", ca.uri));
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
            Err(reason) => reasons.push(reason),
        }
    }
    Err(SignatureError::UntrustedChain {
        issuer: issuer_name.to_string(),
        detail: reasons.join("; "),
    })
}
