//! What the cache registry says of an entry without its bytes. A build never takes an entry by
//! its claims: a file only by the digest the build knows on its own ([`accepts`] with a pinned
//! digest), and a claim serves only to skip pushing what the registry already holds.

use super::artifact::Entry;
use super::repository::CacheRegistry;
use super::stats::Kind;
use crate::fetch::{Checksum, ChecksumStatus};
use crate::registry::RegistryError;

impl CacheRegistry {
    /// The artifact manifest tagged `tag`, parsed as `kind`; `None` when absent (a registry that
    /// fails is marked down, as for any read).
    pub(super) async fn entry(
        &self,
        kind: Kind,
        tag: &str,
        what: &str,
        artifact: &str,
    ) -> Option<Entry> {
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
