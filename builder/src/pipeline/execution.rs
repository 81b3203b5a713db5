//! What the second phase of a build is given: the downloader, how images are pulled, where
//! progress and phases are reported, the build time, the lock to write and the ISO caches.

use std::path::Path;

use super::options::Inputs;
use crate::fetch::Fetcher;
use crate::progress::ProgressSink;
use crate::registry::PullOptions;

/// Reports the phases of a build as they start.
pub trait Observer: Send + Sync {
    /// Phase `name` starts.
    fn phase(&self, name: &str);
}

/// The settings of the second phase.
pub struct Execution<'a> {
    /// The downloader.
    pub fetcher: &'a Fetcher,
    /// How images are pulled.
    pub pull: PullOptions,
    /// Where transfers report progress.
    pub progress: &'a dyn ProgressSink,
    /// The sizes the downloader's transfers announced, when it reports to one.
    pub sizes: Option<&'a crate::progress::Tally>,
    /// Where phases are reported.
    pub observer: &'a dyn Observer,
    /// The timestamps of the ISO: `SOURCE_DATE_EPOCH`, else now.
    pub source_date_epoch: Option<i64>,
    /// Write a lock file here after a successful build.
    pub write_lock: Option<&'a Path>,
    /// The inputs recorded in the lock.
    pub inputs: &'a Inputs,
    /// Where finished ISOs are kept for identical rebuilds, if anywhere.
    pub iso_cache: Option<&'a Path>,
    /// The shared tier of the artifact store (the cache registry), for finished ISOs: the
    /// same one the downloader's and the puller's options hold, if any.
    pub cache_registry: Option<&'a crate::artifact::SharedTier>,
    /// Where the SHA-1 of each image blob (for the SBOM) is remembered, if anywhere.
    pub sha1_memo: Option<&'a Path>,
    /// How upstream signatures are checked.
    pub signatures: &'a crate::upstream_signatures::Verifier,
    /// The signature material the plan fetched for the signed files (what it lacks is
    /// fetched in the signature phase).
    pub material: &'a crate::upstream_signatures::SignatureMaterial,
    /// The sha256 of an ISO already at the plan's path to keep when it is what this build
    /// writes ([`super::Request::keep_existing`]).
    pub keep_existing: Option<&'a str>,
    /// Where this request's last recipe is noted, and the proof of its ISO begun before the
    /// plan ([`crate::store::EarlyProof`]).
    pub last: Option<crate::store::LastRecipe>,
    /// The proof begun before the plan, if any.
    pub early: Option<crate::store::EarlyProof>,
}
