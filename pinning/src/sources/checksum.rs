//! How a publisher ships a file's sha256, or the digest a lock pins it to.

use serde::{Deserialize, Serialize};

/// Where a file's expected sha256 comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Checksum {
    /// Nothing published: the computed digest is recorded.
    #[default]
    None,
    /// A digest known in advance (from a lock file), 64 hex digits.
    Pinned {
        /// The sha256, lower- or upper-case hex.
        sha256: String,
    },
    /// A file beside each candidate URL, `<url><suffix>`: a bare digest (dl.k8s.io) or
    /// `<hex>  <name>` lines (CNI plugins, crictl).
    Sidecar {
        /// Appended to the file's URL, usually `.sha256`.
        suffix: String,
    },
    /// A list of `<hex>  <name>` lines for many files (etcd's `SHA256SUMS`); the line for the
    /// downloaded file's name is used.
    List {
        /// The list's URL.
        url: String,
    },
}

impl Checksum {
    /// `<url>.sha256`, as dl.k8s.io, the CNI plugins and crictl publish.
    pub fn sha256_sidecar() -> Self {
        Checksum::Sidecar {
            suffix: ".sha256".to_string(),
        }
    }
}
