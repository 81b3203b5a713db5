//! Where every file of the ISO comes from upstream and where it goes in the ISO: one [`Source`]
//! per file, made by the URL rules of [`urls`] (dl.k8s.io, the GitHub releases, the paths the
//! CKS node scripts read), with how its publisher ships the checksum ([`Checksum`]) and the edit
//! applied after the download ([`Edit`]).
//!
//! ```
//! use cks_pinning::{arch::Arch, sources::urls, version::KubeVersion};
//! let k8s = KubeVersion::parse("1.33.13").expect("valid version");
//! let kubeadm = urls::kubernetes_binary("kubeadm", &k8s, Arch::Arm64);
//! assert_eq!(kubeadm.iso_path, "k8s/kubeadm");
//! assert_eq!(kubeadm.url(), "https://dl.k8s.io/release/v1.33.13/bin/linux/arm64/kubeadm");
//! assert_eq!(kubeadm.checksum_url(kubeadm.url()).as_deref(),
//!            Some("https://dl.k8s.io/release/v1.33.13/bin/linux/arm64/kubeadm.sha256"));
//! ```

mod checksum;
mod edit;
pub mod signing;
pub mod urls;

use serde::{Deserialize, Serialize};

pub use checksum::Checksum;
pub use edit::{Edit, EditError, Replacer};

/// One file of the ISO: its path there and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// The path inside the ISO, e.g. `k8s/kubeadm`.
    pub iso_path: String,
    /// The upstream URL first (or a local path, for the network and dashboard manifests), then
    /// fallbacks tried in order when the one before answers 404.
    pub urls: Vec<String>,
    /// How the publisher ships its checksum.
    pub checksum: Checksum,
    /// How the publisher ships its checksum, kept here when `checksum` pins a lock's digest
    /// instead (so `versions.txt` names the same checksum files either way).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<Checksum>,
    /// An edit to apply after downloading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit: Option<Edit>,
    /// The file mode inside the ISO.
    pub mode: u32,
}

impl Source {
    /// A file at `iso_path` from `url`, mode 0644, no edit.
    pub fn new(iso_path: impl Into<String>, url: impl Into<String>, checksum: Checksum) -> Self {
        Source {
            iso_path: iso_path.into(),
            urls: vec![url.into()],
            checksum,
            published: None,
            edit: None,
            mode: 0o644,
        }
    }

    /// The upstream URL.
    pub fn url(&self) -> &str {
        &self.urls[0]
    }

    /// Pins the file to `sha256` (from a lock), remembering how the publisher ships its checksum.
    pub fn pin(&mut self, sha256: &str) {
        let published = std::mem::replace(
            &mut self.checksum,
            Checksum::Pinned {
                sha256: sha256.to_string(),
            },
        );
        self.published.get_or_insert(published);
    }

    /// The URL of the checksum file the publisher ships for this file when `supplied_by` (one
    /// of [`Source::urls`]) served it: `<url>.sha256` beside it, or the one list (`SHA256SUMS`).
    pub fn checksum_url(&self, supplied_by: &str) -> Option<String> {
        match self.published.as_ref().unwrap_or(&self.checksum) {
            Checksum::Sidecar { suffix } => Some(format!("{supplied_by}{suffix}")),
            Checksum::List { url } => Some(url.clone()),
            Checksum::None | Checksum::Pinned { .. } => None,
        }
    }
}
