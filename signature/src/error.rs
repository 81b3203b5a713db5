//! Why a signature was refused: one variant per reason, each naming what it found.

use thiserror::Error;

/// Why verification failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SignatureError {
    /// An input is not in the expected format.
    #[error("{what} is malformed: {detail}")]
    Malformed {
        /// The input, e.g. `the certificate`, `the trusted root`.
        what: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// The certificate does not chain to a certificate authority of the trusted root.
    #[error(
        "the certificate (issued by {issuer}) does not chain to a Fulcio root of the trusted root at the signing time: {detail}"
    )]
    UntrustedChain {
        /// The certificate's issuer name.
        issuer: String,
        /// Why each candidate failed.
        detail: String,
    },
    /// The certificate's subject alternative names do not include the identity.
    #[error("the certificate is for {found}, not for the expected identity {expected}")]
    Identity {
        /// The identity the policy expects.
        expected: String,
        /// What the certificate names.
        found: String,
    },
    /// The certificate's OIDC issuer extension does not match.
    #[error("the certificate was issued for OIDC issuer {found}, not for the expected {expected}")]
    Issuer {
        /// The issuer the policy expects.
        expected: String,
        /// What the certificate names (`none` when it has no issuer extension).
        found: String,
    },
    /// The signing time lies outside the certificate's validity.
    #[error(
        "the certificate was not valid at the signing time {signed_at} (valid from {not_before} to {not_after}, seconds since 1970)"
    )]
    NotValidAtSigningTime {
        /// The signing time.
        signed_at: i64,
        /// The certificate's start.
        not_before: i64,
        /// The certificate's end.
        not_after: i64,
    },
    /// The certificate may not sign code.
    #[error("the certificate has no code-signing extended key usage")]
    NotCodeSigning,
    /// The signature does not verify over the bytes.
    #[error("the signature is not over these bytes: {detail}")]
    BadSignature {
        /// What failed.
        detail: String,
    },
    /// The transparency log entry does not verify or does not match.
    #[error("the transparency log entry is refused: {detail}")]
    TransparencyLog {
        /// What failed.
        detail: String,
    },
    /// No transparency-log entry vouches for the signature and the policy does not allow that.
    #[error(
        "no transparency-log entry proves when it was signed (no Sigstore bundle with a log entry, no Rekor bundle), as cosign requires; set `allow-missing-log = true` in its [signatures] policy to accept such a signature"
    )]
    NoLogEntry,
    /// A key or algorithm this verifier does not implement.
    #[error("unsupported {what}")]
    Unsupported {
        /// What is not supported.
        what: String,
    },
    /// An image signature's payload names another image.
    #[error("the signature payload is for {found}, not for {expected}")]
    Payload {
        /// The image digest expected.
        expected: String,
        /// What the payload names.
        found: String,
    },
    /// Nothing to verify was found.
    #[error("no signature: {detail}")]
    Missing {
        /// What is missing.
        detail: String,
    },
}

pub(crate) fn malformed(what: &'static str, detail: impl ToString) -> SignatureError {
    SignatureError::Malformed {
        what,
        detail: detail.to_string(),
    }
}
