//! What the cache registry says of an entry without its bytes: the sha256 of the file stored
//! for a URL, the digest of the manifest stored for an image reference. A build uses these
//! claims only to find a finished ISO another build made from the same inputs; that ISO's own
//! bytes are then checked against its digest as they stream in.

use super::artifact::{Entry, FILE_ARTIFACT, MANIFEST_ARTIFACT};
use super::{CacheRegistry, Kind, file_tag, manifest_tag};
use crate::fetch::{Checksum, ChecksumStatus};
use crate::registry::{RegistryError, RemoteName};

/// A file the cache registry holds for a planned file: the URL it is stored for and its sha256.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileClaim {
    /// The URL (of the planned ones) the entry is stored for.
    pub url: String,
    /// Its sha256, lower-case hex.
    pub sha256: String,
}

impl CacheRegistry {
    /// The artifact manifest tagged `tag`, parsed as `kind`; `None` when absent (a registry that
    /// fails is marked down, as for any read).
    async fn entry(&self, kind: Kind, tag: &str, what: &str, artifact: &str) -> Option<Entry> {
        if !self.usable() {
            return None;
        }
        match self.client.manifest(&self.name, tag).await {
            Ok(manifest) => Entry::parse(&manifest.bytes, artifact),
            Err(RegistryError::NotFound { .. }) => None,
            Err(error) => {
                self.read_failed(kind, what, "", error);
                None
            }
        }
    }

    /// The first of `urls` the registry holds a file for that `checksum` accepts (the rule
    /// [`Self::fetch_file`] follows), without its bytes.
    pub async fn claim_file(&self, urls: &[String], checksum: &Checksum) -> Option<FileClaim> {
        for url in urls {
            let Some(entry) = self
                .entry(Kind::File, &file_tag(url), url, FILE_ARTIFACT)
                .await
            else {
                continue;
            };
            let sha256 = entry.content.digest.trim_start_matches("sha256:");
            if entry.key == *url && accepts(checksum, sha256, entry.checked.as_ref()) {
                return Some(FileClaim {
                    url: url.clone(),
                    sha256: sha256.to_string(),
                });
            }
        }
        None
    }

    /// The digest of the manifest the registry holds for `name` (its tag or digest), without
    /// its bytes.
    pub async fn claim_manifest(&self, name: &RemoteName) -> Option<String> {
        let repository = format!("{}/{}", name.registry, name.repository);
        let reference = name.manifest_reference();
        let tag = manifest_tag(&repository, reference);
        let entry = self
            .entry(Kind::Manifest, &tag, &name.full, MANIFEST_ARTIFACT)
            .await?;
        let pinned_elsewhere =
            reference.starts_with("sha256:") && reference != entry.content.digest;
        (entry.key == format!("{repository}@{reference}") && !pinned_elsewhere)
            .then_some(entry.content.digest)
    }
}

/// Whether a file entry of `sha256`, checked as `checked` when fetched, satisfies `checksum`: a
/// pinned digest must match, a published checksum must have been verified.
pub(super) fn accepts(checksum: &Checksum, sha256: &str, checked: Option<&ChecksumStatus>) -> bool {
    match checksum {
        Checksum::None => true,
        Checksum::Pinned { sha256: pinned } => pinned.eq_ignore_ascii_case(sha256),
        Checksum::Sidecar { .. } | Checksum::List { .. } => {
            matches!(checked, Some(ChecksumStatus::Verified { .. }))
        }
    }
}
