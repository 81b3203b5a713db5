//! What the cache registry says of an entry without its bytes. A build never takes an entry by
//! its claims: a file only by the digest the build knows on its own (the one its key names),
//! and a claim serves only to skip pushing what the registry already holds.

use super::artifact::Entry;
use super::repository::CacheRegistry;
use super::stats::Kind;
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
