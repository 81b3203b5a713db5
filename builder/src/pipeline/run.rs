//! One whole build: options in, a plan (for `--dry-run`) or an ISO out.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};

use super::execute::execute;
use super::execution::{Execution, Observer};
use super::head_start::{beside, head_start};
use super::lock::Lock;
use super::options::{Inputs, Options};
use super::output_lock::OutputLock;
use super::plan::Plan;
use super::preflight::{OutputPath, check_cache_dir, check_lock_path};
use super::resolve::{head_start_specs, resolve};
use super::staging::Staging;
use super::summary::Summary;
use crate::cache_registry::CacheRegistry;
use crate::fetch::Fetcher;
use crate::progress::ProgressSink;
use crate::progress::Tally;
use crate::registry::{CredentialStore, PullOptions, default_docker_config};
use crate::requests::RequestLog;
use crate::store::{EarlyProof, LastRecipe};

/// What the caller asks of a build beyond its inputs.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// Stop after the plan.
    pub dry_run: bool,
    /// Write a lock file here after a successful build.
    pub write_lock: Option<PathBuf>,
    /// Rebuild exactly from this lock.
    pub locked: Option<Lock>,
    /// Where the build's temporary directory goes (default: `TMPDIR`).
    pub temp_dir: Option<PathBuf>,
    /// An ISO is already at the output path, hashing to this sha256 (hex) as its sidecar says:
    /// keep it when it passes the check a cached ISO passes (exactly what this build writes
    /// from what it verifies); otherwise build (the summary's `existing` says why).
    pub keep_existing: Option<String>,
}

/// What a build produced.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// `--dry-run`: the plan only.
    Planned(Box<Plan>),
    /// The ISO was written.
    Built(Box<Plan>, Box<Summary>),
}

/// Builds the ISO that `options` describe (`inputs` is what the lock records).
pub async fn build(
    options: &Options,
    inputs: &Inputs,
    request: Request,
    progress: Arc<dyn ProgressSink>,
    observer: &dyn Observer,
) -> Result<Outcome> {
    // Before anything is asked of a server: where the ISO and the lock go.
    let output = OutputPath::prepare(&options.output_path, !request.dry_run)?;
    // One writer per OUTPUT_PATH; let go (before `output` removes a folder it made) on any end.
    let _writer = match request.dry_run {
        true => None,
        false => Some(OutputLock::acquire(&options.output_path)?),
    };
    if let Some(lock) = &request.write_lock {
        check_lock_path(lock)?;
    }
    if let Some(cache) = &options.cache_dir {
        check_cache_dir(cache)?;
    }
    // A prune of the cache folder waits until the build ends, and none runs while it does.
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
    let signatures = crate::upstream_signatures::Verifier::new(&options.signatures)?;
    // One shared tier of the artifact store for the files, the images and the finished ISO.
    let shared = cache_registry
        .as_ref()
        .map(|c| crate::artifact::SharedTier(c.0.clone()));
    let mut fetch = options.fetch_options();
    fetch.cache_registry = shared.clone();
    // The downloads' announced sizes are kept for the check of free space before the images.
    let sizes = Arc::new(Tally::new(progress.clone()));
    let fetcher = Fetcher::new(fetch)?.with_progress(sizes.clone());
    let staging = Staging::new(request.temp_dir.as_deref())?;
    let started = Instant::now();
    observer.phase("plan");
    // The large files start with the plan unless a finished ISO may be taken from the cache
    // registry or the local folder instead (asked before anything large moves) or nothing is
    // to be built.
    let iso_cache = options.cache_dir.as_ref().map(|d| d.join("iso"));
    let may_reuse = request.keep_existing.is_some()
        || !crate::store::IsoStore::new(iso_cache.as_deref(), shared.as_ref()).holds_none();
    // The kept ISO this request's last build ended with is hashed while the plan runs.
    let last = iso_cache
        .as_deref()
        .filter(|_| {
            !request.dry_run && request.write_lock.is_none() && request.keep_existing.is_none()
        })
        .map(|dir| LastRecipe::new(dir, &request_fingerprint(options, inputs)));
    let early = iso_cache
        .as_deref()
        .zip(last.as_ref())
        .and_then(|(dir, last)| EarlyProof::start(dir, last, crate::store::cores()));
    let (downloads, head_start, go) = if !request.dry_run && !may_reuse {
        let specs = head_start_specs(options, &staging, request.locked.as_ref())?;
        let (downloads, head_start, go) = head_start(&fetcher, specs);
        (Some(downloads), Some(head_start), Some(go))
    } else {
        (None, None, None)
    };
    let work = async {
        // Boxed: the plan's future is large, and a build's future lives on the caller's stack.
        let resolved = Box::pin(resolve(
            options,
            &fetcher,
            &staging,
            request.locked.as_ref(),
            &signatures,
            go,
        ))
        .await?;
        let phases = vec![("plan".to_string(), started.elapsed().as_secs_f64())];
        if request.dry_run {
            return anyhow::Ok(Outcome::Planned(Box::new(resolved.plan)));
        }
        let sha1_memo = options.cache_dir.as_ref().map(|d| d.join("sha1"));
        let mut pull = pull_options(options)?;
        pull.shared = shared.clone();
        let summary = execute(
            &resolved.plan,
            &staging,
            resolved.fetched,
            head_start,
            Execution {
                fetcher: &fetcher,
                pull,
                progress: progress.as_ref(),
                sizes: Some(&sizes),
                observer,
                source_date_epoch: options.source_date_epoch,
                write_lock: request.write_lock.as_deref(),
                inputs,
                iso_cache: iso_cache.as_deref(),
                cache_registry: shared.as_ref(),
                sha1_memo: sha1_memo.as_deref(),
                signatures: &signatures,
                material: &resolved.material,
                keep_existing: request.keep_existing.as_deref(),
                last,
                early,
            },
            phases,
        )
        .await?;
        Ok(Outcome::Built(Box::new(resolved.plan), Box::new(summary)))
    };
    // Every request of the build is counted, to say which URLs it asked for twice.
    let requests = RequestLog::new();
    // Boxed: the work's future is large, and the wrappers would each hold a copy of it on the
    // caller's stack.
    let outcome = requests.scope(beside(downloads, Box::pin(work))).await?;
    output.keep();
    let Outcome::Built(plan, mut summary) = outcome else {
        return Ok(outcome);
    };
    summary.fetched_twice = requests.fetched_twice();
    if let Some(cache) = &cache_registry {
        let warnings = cache.take_warnings();
        summary
            .warnings
            .extend(warnings.iter().map(ToString::to_string));
        summary.cache_registry = Some(cache.stats());
    }
    Ok(Outcome::Built(plan, summary))
}

/// What names a request across builds (hex): its inputs but where the ISO goes, with the
/// build time and arch they resolved to. Two builds of one request plan the same recipe unless
/// upstream moved.
fn request_fingerprint(options: &Options, inputs: &Inputs) -> String {
    let inputs = Inputs {
        output_path: None,
        cache_dir: None,
        ..inputs.clone()
    };
    let text = serde_json::to_string(&inputs).unwrap_or_default();
    let text = format!("{text}\n{:?}\n{}", options.source_date_epoch, options.arch);
    crate::digest::sha256_hex(text.as_bytes())
}

/// The puller's settings from the build's options.
pub fn pull_options(options: &Options) -> Result<PullOptions> {
    let mut pull = PullOptions::new(options.arch);
    pull.mirrors = options.registry_mirrors.clone();
    pull.insecure = options.insecure_registries.clone();
    pull.concurrency = options.concurrency;
    pull.strict_platforms = options.strict_platforms;
    pull.ca_files = options.ca_file.iter().cloned().collect();
    pull.limits = options.limits;
    pull.min_rate = options.min_rate;
    pull.blob_dir = options.cache_dir.as_ref().map(|d| d.join("blobs"));
    pull.sha1_memo = options.cache_dir.as_ref().map(|d| d.join("sha1"));
    pull.tarball_cache = options.cache_dir.as_ref().map(|d| d.join("tarballs"));
    if let Some(config) = default_docker_config() {
        pull.credentials = CredentialStore::from_docker_config(&config)
            .with_context(|| format!("reading registry credentials from {}", config.display()))?;
    }
    Ok(pull)
}
