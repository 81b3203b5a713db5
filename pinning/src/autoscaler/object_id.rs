//! A git object id as bytes: 20 for SHA-1, 32 for SHA-256, written as lowercase hex.

use std::fmt;

/// The most bytes an object id has (SHA-256).
pub(super) const MAX_LEN: usize = 32;

/// A git object id, borrowed from a [`super::RemoteTags`]; it prints as lowercase hex
/// (`to_string()` gives the 40 or 64 hex digits `git ls-remote` prints).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ObjectId<'a> {
    bytes: &'a [u8],
}

impl<'a> ObjectId<'a> {
    /// The id of `bytes` (20 or 32 of them).
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        ObjectId { bytes }
    }

    /// The id's bytes: 20 for SHA-1, 32 for SHA-256.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }
}

impl fmt::Display for ObjectId<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.bytes.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl fmt::Debug for ObjectId<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{self}\"")
    }
}

/// The bytes of `hex`, a SHA-1 (40) or SHA-256 (64) object id in hex of either case, written
/// to the front of `out`; their count, or `None` when `hex` is not such an id.
pub(super) fn decode(hex: &str, out: &mut [u8; MAX_LEN]) -> Option<usize> {
    let len = match hex.len() {
        40 => 20,
        64 => 32,
        _ => return None,
    };
    hex::decode_to_slice(hex, &mut out[..len]).ok()?;
    Some(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha1_and_sha256_in_either_case_print_lowercase() {
        let mut out = [0; MAX_LEN];
        let upper = "ABCDEF0123".repeat(4);
        let len = decode(&upper, &mut out).expect("sha1");
        assert_eq!(len, 20);
        let id = ObjectId::new(&out[..len]);
        assert_eq!(id.to_string(), upper.to_ascii_lowercase());
        assert_eq!(
            format!("{id:?}"),
            format!("\"{}\"", upper.to_ascii_lowercase())
        );
        let sha256 = "ab".repeat(32);
        let len = decode(&sha256, &mut out).expect("sha256");
        assert_eq!(ObjectId::new(&out[..len]).to_string(), sha256);
        assert_eq!(ObjectId::new(&out[..len]).as_bytes().len(), 32);
    }

    #[test]
    fn other_lengths_and_digits_are_not_ids() {
        let mut out = [0; MAX_LEN];
        for bad in [
            "1".repeat(39),
            "1".repeat(41),
            "1".repeat(63),
            "g".repeat(40),
            "g".repeat(64),
            "é".repeat(20),
        ] {
            assert_eq!(decode(&bad, &mut out), None, "{bad}");
        }
    }
}
