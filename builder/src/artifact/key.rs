//! What an entry of the artifact store is found by, typed: a file by its canonical URL and the
//! checksum this build knows for it, a manifest by repository and reference, a blob by digest,
//! a finished tarball by what determines its bytes, a finished ISO by its recipe. Each kind
//! names its entry the same way in every layer (the local folder, the cache registry's tag).

use super::tag::{file_tag, iso_tag, manifest_tag, tarball_tag};

/// One entry of the artifact store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArtifactKey {
    /// A downloaded file: its canonical upstream URL and the sha256 (hex) it must have, known
    /// without any cache (the lock's pin or the publisher's checksum).
    File {
        /// The canonical upstream URL.
        url: String,
        /// The sha256 it must have, lower-case hex.
        sha256: String,
    },
    /// An image manifest: the full repository and the tag or digest naming it.
    Manifest {
        /// The full repository, e.g. `registry.k8s.io/pause`.
        repository: String,
        /// The tag or digest.
        reference: String,
    },
    /// An image blob by its descriptor: its digest (`sha256:<hex>`) and the size the manifest
    /// gives it (no more is read).
    Blob {
        /// The digest.
        digest: String,
        /// Its size.
        size: u64,
    },
    /// A finished image tarball, by everything that determines its bytes (the tarball key).
    Tarball {
        /// The tarball key.
        key: String,
    },
    /// A finished ISO, by its recipe key.
    Iso {
        /// The recipe key, hex.
        recipe: String,
    },
}

impl ArtifactKey {
    /// The tag the cache registry holds the entry under; `None` for a blob (held by digest).
    pub fn tag(&self) -> Option<String> {
        match self {
            ArtifactKey::File { url, .. } => Some(file_tag(url)),
            ArtifactKey::Manifest {
                repository,
                reference,
            } => Some(manifest_tag(repository, reference)),
            ArtifactKey::Blob { .. } => None,
            ArtifactKey::Tarball { key } => Some(tarball_tag(key)),
            ArtifactKey::Iso { recipe } => Some(iso_tag(recipe)),
        }
    }

    /// The name of the entry in a local folder (without its extension).
    pub fn local_name(&self) -> String {
        match self {
            ArtifactKey::File { sha256, .. } => sha256.clone(),
            ArtifactKey::Blob { digest, .. } => digest.trim_start_matches("sha256:").to_string(),
            ArtifactKey::Iso { recipe } => recipe.clone(),
            ArtifactKey::Manifest { .. } | ArtifactKey::Tarball { .. } => {
                crate::digest::sha256_hex(self.record_key().as_bytes())
            }
        }
    }

    /// The key an entry records and is checked against when served.
    pub fn record_key(&self) -> String {
        match self {
            ArtifactKey::File { url, .. } => url.clone(),
            ArtifactKey::Manifest {
                repository,
                reference,
            } => format!("{repository}@{reference}"),
            ArtifactKey::Blob { digest, .. } => digest.clone(),
            ArtifactKey::Tarball { key } => key.clone(),
            ArtifactKey::Iso { recipe } => recipe.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_its_own_tag_and_a_blob_none() {
        let file = ArtifactKey::File {
            url: "https://dl.k8s.io/a".into(),
            sha256: "ab".repeat(32),
        };
        let iso = ArtifactKey::Iso {
            recipe: "cd".repeat(32),
        };
        assert!(file.tag().is_some_and(|t| t.starts_with("cks-file-")));
        assert!(iso.tag().is_some_and(|t| t.starts_with("cks-iso-")));
        assert_eq!(iso.local_name(), "cd".repeat(32));
        let blob = ArtifactKey::Blob {
            digest: format!("sha256:{}", "ef".repeat(32)),
            size: 1,
        };
        assert_eq!(blob.tag(), None);
        assert_eq!(blob.local_name(), "ef".repeat(32));
    }
}
