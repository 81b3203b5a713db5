//! What the store's port says of a downloaded file: how its digest was established, and the
//! verified copy the shared tier served.

use serde::{Deserialize, Serialize};

/// How a fetched file's digest was established.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum ChecksumStatus {
    /// Matched the digest published at `source` (a URL) or pinned in the plan (`pinned`).
    Verified {
        /// The checksum file's URL as in the plan, or `pinned`.
        source: String,
    },
    /// Nothing to check against: the digest was computed and recorded.
    Computed,
}

/// A file the shared tier served, verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedHit {
    /// The canonical URL it was stored for.
    pub url: String,
    /// Where the bytes came from, as the build report's `url_used`.
    pub url_used: String,
    /// Its sha256, lower-case hex.
    pub sha256: String,
    /// Its size.
    pub bytes: u64,
    /// How it was checked when first fetched from upstream.
    pub checksum: ChecksumStatus,
}
