//! The one place that says what a sha256 looks like: 64 hex digits (any case, as publishers and
//! lock files may write them), the canonical lowercase form, and a `sha256:` digest.
//!
//! ```
//! use cks_pinning::digest::{is_sha256_digest, is_sha256_hex, is_sha256_lower_hex};
//! let hex = "a".repeat(64);
//! assert!(is_sha256_hex(&hex.to_uppercase()) && !is_sha256_lower_hex(&hex.to_uppercase()));
//! assert!(is_sha256_digest(&format!("sha256:{hex}")));
//! assert!(!is_sha256_digest(&hex));
//! ```

/// The sha256 of `data`, 64 lowercase hex digits.
pub fn sha256_hex(data: &[u8]) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(data))
}

/// 64 hex digits, either case.
pub fn is_sha256_hex(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// 64 lowercase hex digits, the form every record of ours writes.
pub fn is_sha256_lower_hex(text: &str) -> bool {
    text.len() == 64
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// `sha256:` and 64 lowercase hex digits (safe to use as a file name).
pub fn is_sha256_digest(text: &str) -> bool {
    text.strip_prefix("sha256:")
        .is_some_and(is_sha256_lower_hex)
}
