//! `cks-iso release --dry-run`: whether an ISO already in the folder would be kept, by the
//! check a run makes of it ([`super::Request::keep_existing`]), with nothing written beside it:
//! the plan is made (its small requests, as `cks-iso build --dry-run` makes them) and the ISO
//! read against what this run would build from it.

use std::sync::Arc;
use std::time::SystemTime;

use anyhow::Result;

use super::execution::{Execution, Observer};
use super::iso_reuse::check_in_place;
use super::options::{Inputs, Options};
use super::resolve::resolve;
use super::run::pull_options;
use super::staging::Staging;
use crate::cache_registry::CacheRegistry;
use crate::fetch::Fetcher;
use crate::iso::BuildTime;
use crate::progress::ProgressSink;
use crate::store::IsoRefusal;

/// Why the ISO in the folder would be rebuilt: it is not what this run builds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not what this run builds: {0}")]
pub struct NotBuiltHere(pub IsoRefusal);

/// Whether the ISO at `options`' output path (its sidecar already found to agree with it)
/// would be kept by a run: `Ok(())`, or why it would be rebuilt.
pub async fn would_keep(
    options: &Options,
    inputs: &Inputs,
    temp_dir: Option<&std::path::Path>,
    progress: Arc<dyn ProgressSink>,
    observer: &dyn Observer,
) -> Result<Result<(), NotBuiltHere>> {
    let _cache = options
        .cache_dir
        .as_deref()
        .map(crate::cache_dir::CacheLock::shared)
        .transpose()?;
    let cache_registry = CacheRegistry::for_build(
        options.cache_registry.as_deref(),
        &options.insecure_registries,
        options.ca_file.as_slice(),
        &pull_options(options)?.credentials,
    )?;
    let shared = cache_registry
        .as_ref()
        .map(|c| crate::artifact::SharedTier(c.0.clone()));
    let signatures = crate::upstream_signatures::Verifier::new(&options.signatures)?;
    let mut fetch = options.fetch_options();
    fetch.cache_registry = shared.clone();
    let fetcher = Fetcher::new(fetch)?.with_progress(progress.clone());
    let staging = Staging::new(temp_dir)?;
    observer.phase("plan");
    let resolved = resolve(options, &fetcher, &staging, None, &signatures, None).await?;
    let built = match options.source_date_epoch {
        Some(seconds) => BuildTime::fixed(seconds),
        None => BuildTime::from_env_value(None, SystemTime::now())?,
    };
    let mut pull = pull_options(options)?;
    pull.shared = shared.clone();
    let run = Execution {
        fetcher: &fetcher,
        pull,
        progress: progress.as_ref(),
        sizes: None,
        observer,
        source_date_epoch: options.source_date_epoch,
        write_lock: None,
        inputs,
        iso_cache: None,
        cache_registry: None,
        sha1_memo: None,
        signatures: &signatures,
        material: &resolved.material,
        keep_existing: None,
        last: None,
        early: None,
    };
    let tree = staging.tree();
    let verdict = check_in_place(&resolved.plan, tree, &resolved.fetched, &run, built).await?;
    Ok(verdict.map(|_| ()).map_err(NotBuiltHere))
}
