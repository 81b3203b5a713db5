//! The `signature:` lines of `versions.txt`: which file or image had its cosign signature
//! verified, for which identity and OIDC issuer, and whether a transparency-log entry proved
//! the signing time.

use super::{VersionsTxtError, is_word, value_error};

/// One verified signature, rendered `signature: <subject> <identity> <issuer> <log|no-log>`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SignatureEntry {
    /// The path in the ISO of a file (`binaries/v1.33.13/kubeadm`), or an image's normalised
    /// reference with its digest, as in its `image:` line.
    pub subject: String,
    /// The certificate identity that matched the policy.
    pub identity: String,
    /// The certificate's OIDC issuer.
    pub issuer: String,
    /// Whether a transparency-log entry (signed entry timestamp or inclusion proof) was checked.
    pub log: bool,
}

pub(super) const EXPECTED: &str =
    "expected `<path or image> <identity> <issuer> <log|no-log>`, each without spaces";

impl SignatureEntry {
    /// The value after `signature: `.
    pub(super) fn render(&self) -> Result<String, VersionsTxtError> {
        let line = format!(
            "{} {} {} {}",
            self.subject,
            self.identity,
            self.issuer,
            if self.log { "log" } else { "no-log" }
        );
        if [&self.subject, &self.identity, &self.issuer]
            .iter()
            .all(|w| is_word(w))
        {
            Ok(line)
        } else {
            Err(value_error("signature", &line, EXPECTED))
        }
    }

    /// Reads the value after `signature: `.
    pub(super) fn parse(value: &str) -> Result<SignatureEntry, VersionsTxtError> {
        let words: Vec<&str> = value.split(' ').collect();
        let [subject, identity, issuer, log] = words[..] else {
            return Err(value_error("signature", value, EXPECTED));
        };
        let log = match log {
            "log" => true,
            "no-log" => false,
            _ => return Err(value_error("signature", value, EXPECTED)),
        };
        if ![subject, identity, issuer].iter().all(|w| is_word(w)) {
            return Err(value_error("signature", value, EXPECTED));
        }
        Ok(SignatureEntry {
            subject: subject.to_string(),
            identity: identity.to_string(),
            issuer: issuer.to_string(),
            log,
        })
    }
}
