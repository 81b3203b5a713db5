//! What the artifact store's tiers ([`super::Layers`]) ask of a local folder, whatever its
//! layout: finished files under their key with texts beside them ([`super::LocalFinished`]), or
//! content by digest ([`super::ContentFolder`]).

use std::fmt;

use super::key::ArtifactKey;

/// A local folder of one kind of entry, as the layers ask it.
pub trait LocalTier: fmt::Debug + Send + Sync {
    /// Removes the entry `key` and what is kept beside it, so no later build takes it (a hit
    /// that failed its check, or a damaged entry).
    fn remove(&self, key: &ArtifactKey);
}
