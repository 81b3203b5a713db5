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

/// A content digest, `sha256:` and 64 lowercase hex digits or `sha512:` and 128: checked once
/// when parsed, then passed as this type; its text (`Display`, serde) is the canonical form
/// it was parsed from.
///
/// ```
/// use cks_pinning::digest::Digest;
/// let text = format!("sha256:{}", "a".repeat(64));
/// let digest: Digest = text.parse().expect("a sha256 digest");
/// assert_eq!(digest.to_string(), text);
/// assert_eq!(digest.hex(), "a".repeat(64));
/// assert!(Digest::parse("sha256:ABC").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest(String);

/// A text that is not a digest of an accepted algorithm.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} is not a digest: expected `sha256:` followed by 64 lowercase hex digits (or `sha512:` and 128)"
)]
pub struct DigestError(pub String);

impl Digest {
    /// Parses `sha256:<64 lowercase hex>` or `sha512:<128 lowercase hex>`.
    pub fn parse(text: &str) -> Result<Digest, DigestError> {
        let lower_hex = |hex: &str, len: usize| {
            hex.len() == len
                && hex
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        };
        let valid = match text.split_once(':') {
            Some(("sha256", hex)) => lower_hex(hex, 64),
            Some(("sha512", hex)) => lower_hex(hex, 128),
            _ => false,
        };
        if valid {
            Ok(Digest(text.to_string()))
        } else {
            Err(DigestError(text.to_string()))
        }
    }

    /// The sha256 digest of 64 hex digits (either case; written lowercase).
    pub fn from_sha256_hex(hex: &str) -> Result<Digest, DigestError> {
        Digest::parse(&format!("sha256:{}", hex.to_ascii_lowercase()))
    }

    /// The sha256 digest of `data`.
    pub fn sha256_of(data: &[u8]) -> Digest {
        Digest(format!("sha256:{}", sha256_hex(data)))
    }

    /// The canonical text, e.g. `sha256:<hex>`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The algorithm, `sha256` or `sha512`.
    pub fn algorithm(&self) -> &str {
        self.0
            .split_once(':')
            .map_or("", |(algorithm, _)| algorithm)
    }

    /// The hex digits after the algorithm.
    pub fn hex(&self) -> &str {
        self.0.split_once(':').map_or("", |(_, hex)| hex)
    }

    /// Whether this is a sha256 digest (the only algorithm registries and tarballs here use).
    pub fn is_sha256(&self) -> bool {
        self.algorithm() == "sha256"
    }
}

impl std::str::FromStr for Digest {
    type Err = DigestError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Digest::parse(text)
    }
}

impl std::fmt::Display for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::ops::Deref for Digest {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Digest {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for Digest {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for Digest {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for Digest {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}

impl PartialEq<Digest> for String {
    fn eq(&self, other: &Digest) -> bool {
        *self == other.0
    }
}

impl PartialEq<Digest> for str {
    fn eq(&self, other: &Digest) -> bool {
        self == other.0
    }
}

impl serde::Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> serde::Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Digest::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_parses_only_in_its_canonical_form_and_prints_it_back() {
        let sha256 = format!("sha256:{}", "0a".repeat(32));
        let sha512 = format!("sha512:{}", "f".repeat(128));
        for good in [&sha256, &sha512] {
            let digest = Digest::parse(good).expect("valid");
            assert_eq!(digest.to_string(), *good);
            assert_eq!(
                serde_json::to_string(&digest).expect("json"),
                format!("\"{good}\"")
            );
            let back: Digest = serde_json::from_str(&format!("\"{good}\"")).expect("json");
            assert_eq!(back, digest);
        }
        assert!(Digest::parse(&sha256).expect("valid").is_sha256());
        assert!(!Digest::parse(&sha512).expect("valid").is_sha256());
        for bad in [
            String::new(),
            "a".repeat(64),
            format!("sha256:{}", "A".repeat(64)),
            format!("sha256:{}", "a".repeat(63)),
            format!("sha512:{}", "a".repeat(64)),
            format!("md5:{}", "a".repeat(32)),
            "sha256:../../x".to_string(),
        ] {
            let err = Digest::parse(&bad).expect_err("refused");
            assert!(err.to_string().contains("expected `sha256:`"), "{err}");
            assert!(serde_json::from_str::<Digest>(&format!("{bad:?}")).is_err());
        }
        assert_eq!(
            Digest::from_sha256_hex(&"AB".repeat(32))
                .expect("hex")
                .hex(),
            "ab".repeat(32)
        );
        assert_eq!(Digest::sha256_of(b"").hex(), sha256_hex(b""));
    }
}
