//! A sha256 that counts the bytes it is fed, and the finished digest with that count.

use sha2::{Digest as _, Sha256};

/// A sha256 being computed, with the count of bytes fed so far.
#[derive(Debug, Clone, Default)]
pub struct Sha256Count {
    hasher: Sha256,
    bytes: u64,
}

/// A finished sha256 and the number of bytes it covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digested {
    /// The digest, 64 lowercase hex digits.
    hex: String,
    /// Bytes hashed.
    pub bytes: u64,
}

impl Digested {
    /// The digest `hex` (64 lowercase hex digits) of `bytes` bytes.
    pub(crate) fn new(hex: String, bytes: u64) -> Self {
        Digested { hex, bytes }
    }

    /// 64 lowercase hex digits.
    pub fn hex(&self) -> &str {
        &self.hex
    }

    /// The 64 lowercase hex digits, owned.
    pub fn into_hex(self) -> String {
        self.hex
    }

    /// `sha256:<hex>`.
    pub fn digest(&self) -> String {
        format!("sha256:{}", self.hex)
    }
}

impl Sha256Count {
    /// A new, empty hash.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds `data`.
    pub fn update(&mut self, data: &[u8]) {
        self.hasher.update(data);
        self.bytes += data.len() as u64;
    }

    /// Bytes fed so far.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The digest of everything fed.
    pub fn finish(self) -> Digested {
        Digested {
            hex: hex::encode(self.hasher.finalize()),
            bytes: self.bytes,
        }
    }
}
