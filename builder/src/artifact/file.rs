//! What the store's port says of a downloaded file: how its digest was established.

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
