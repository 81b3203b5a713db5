//! `--cache-registry`: one OCI registry repository as the content cache every build (every CI
//! runner) shares. Image blobs are stored by digest as they are; image manifests and downloaded
//! files are OCI artifacts (an empty config and one layer, the content, whose digest is its
//! sha256) found by a tag derived from what the build knows beforehand: the canonical URL of a
//! file, the reference of a manifest ([`file_tag`], [`manifest_tag`]). Finished image tarballs
//! and ISOs are artifacts the same way, found by a tag from everything that determines their
//! bytes ([`tarball_tag`], [`iso_tag`]); [`CacheStats`] counts what each kind of entry did.
//!
//! The order is local `--cache-dir`, then this registry, then upstream. The registry is a
//! cache, never a source of truth: an entry is taken only by what the build knows on its own (a
//! file by the digest its publisher or the lock gives, a manifest or blob by the digest upstream
//! or the lock named, a finished tarball or ISO once [`crate::store`]'s checks pass), and every
//! entry is hashed against its digest while it streams in; a damaged or refused one is ignored,
//! fetched from upstream (or made again) and pushed again. What comes from upstream is pushed
//! only after it was verified. A registry that is down, or refuses pushes, costs a
//! [`CacheWarning`], never the build: after the first failure it is left alone for the rest of
//! the build. The downloader, the puller and the ISO store reach it through the artifact
//! store's one port ([`crate::artifact::SharedArtifacts`]), each entry by its one key.
//!
//! ```no_run
//! # fn demo() -> Result<(), cks_builder::cache_registry::CacheRegistryError> {
//! use cks_builder::cache_registry::CacheRegistry;
//! use cks_builder::registry::CredentialStore;
//! let cache = CacheRegistry::open(
//!     "http://127.0.0.1:5000/cks-cache",
//!     &["127.0.0.1:5000".to_string()],
//!     &[],
//!     CredentialStore::default(),
//! )?;
//! for warning in cache.take_warnings() {
//!     eprintln!("warning: {warning}");
//! }
//! # Ok(()) }
//! ```

mod artifact;
mod claims;
mod error;
mod files;
mod finished;
mod images;
mod port;
mod push;
mod repository;
mod stats;
mod warning;

pub use crate::artifact::{file_tag, iso_tag, manifest_tag, tarball_tag};
pub use error::CacheRegistryError;
pub use finished::Finished;
pub use repository::{CacheRegistry, SharedCacheRegistry};
pub use stats::{CacheStats, Kind, KindStats};
pub use warning::CacheWarning;
