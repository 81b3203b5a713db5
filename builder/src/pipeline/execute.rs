//! The second phase of a build: fetch the large files while pulling every image, check upstream
//! signatures, record it all in `versions.txt`, and pack the ISO. Nothing is decided here that the plan did not say.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Instant, SystemTime};

use anyhow::{Context, Result, bail};

use super::execution::Execution;
use super::head_start::HeadStart;
use super::iso_recipe;
use super::iso_reuse;
use super::lock::{LOCK_FORMAT, Lock};
use super::options::Inputs;
use super::plan::Plan;
use super::record::record;
use super::room;
use super::sbom;
use super::signatures_ahead;
use super::sources::{create_parents, file_spec};
use super::staging::{Staging, write_atomically};
use super::summary::{ExistingIso, Summary, mirrored_files};
use crate::fetch::{FetchedFile, Fetcher};
use crate::iso::{BuildTime, PackOptions, Packed};
use crate::progress::ProgressSink;
use crate::registry::{PullReport, pull_images};
use crate::store::IsoStore;

/// The seconds each phase took, in order.
struct Laps {
    phases: Vec<(String, f64)>,
    clock: Instant,
}

impl Laps {
    fn lap(&mut self, name: &str) {
        self.phases
            .push((name.to_string(), self.clock.elapsed().as_secs_f64()));
        self.clock = Instant::now();
    }
}

/// Carries out `plan` in `staging` (where the first phase left `fetched`, and started the
/// downloads of `head_start`), writing the ISO.
pub async fn execute(
    plan: &Plan,
    staging: &Staging,
    mut fetched: Vec<FetchedFile>,
    head_start: Option<HeadStart>,
    mut run: Execution<'_>,
    phases: Vec<(String, f64)>,
) -> Result<Summary> {
    let tree = staging.tree();
    let mut laps = Laps {
        phases,
        clock: Instant::now(),
    };

    run.observer.phase("download");
    let built = match run.source_date_epoch {
        Some(seconds) => BuildTime::fixed(seconds),
        None => BuildTime::from_env_value(None, SystemTime::now())?,
    };
    // An ISO already in place is kept when it is the one this build writes.
    let mut existing = None;
    if let Some(sha256) = run.keep_existing {
        match iso_reuse::in_place(plan, tree, &fetched, &run, built, sha256).await? {
            Ok(reused) => {
                laps.lap("iso");
                let seconds = reused.packed.time.unix_seconds;
                let mut summary = iso_recipe::summary(plan, &fetched, reused, seconds, laps.phases);
                summary.existing = Some(ExistingIso::Kept);
                return Ok(summary);
            }
            Err(reason) => {
                existing = Some(ExistingIso::Replaced {
                    reason: reason.to_string(),
                })
            }
        }
    }
    // The store is asked for the finished ISO before anything large moves, and keeps the one
    // packed here after the pack.
    let store = IsoStore::new(run.iso_cache, run.cache_registry)
        .with_last(run.last.take(), run.early.take());
    let reused = iso_reuse::reuse(plan, tree, &fetched, &run, &store, built).await?;
    store.stop_early();
    if let Some(reused) = reused {
        laps.lap("iso");
        let seconds = built.unix_seconds;
        let mut summary = iso_recipe::summary(plan, &fetched, reused, seconds, laps.phases);
        summary.existing = existing;
        return Ok(summary);
    }
    // Nothing large has moved yet (but the head start): is there room for it all?
    let temp = staging.path().parent().unwrap_or(staging.path());
    room::before_downloads(plan, temp, &fetched, &run).await?;
    // The files and the images share the link: fetched at once, neither waits for the
    // other's last transfer, and the first failure stops both.
    let (files, report, ahead) = tokio::try_join!(
        download_files(plan, tree, &fetched, head_start, run.fetcher),
        pull_planned_images(plan, tree, &run),
        async { Ok(signatures_ahead::images_ahead(plan, &run).await) },
    )?;
    fetched.extend(files);
    laps.lap("download");

    run.observer.phase("signatures");
    // The SBOM's layer SHA-1s are read from the tarballs while the signatures are checked.
    let tarball_layers = {
        let (report, memo) = (report.clone(), run.sha1_memo.map(Path::to_path_buf));
        tokio::task::spawn_blocking(move || sbom::image_layers(&report, memo.as_deref()))
    };
    let signatures = run
        .signatures
        .check(
            &plan.files,
            &fetched,
            run.material,
            &report,
            run.fetcher,
            &run.pull,
            ahead,
            &staging.work().join("signatures"),
        )
        .await?;
    laps.lap("signatures");

    run.observer.phase("record");
    let mut versions = record(plan, &fetched, &report, tree, built.unix_seconds)?;
    versions.signatures = signatures.entries.clone();
    let versions_text = versions.render()?;
    write_atomically(
        &tree.join(cks_pinning::versions_txt::FILE_NAME),
        versions_text.as_bytes(),
    )?;
    let layers = tarball_layers
        .await
        .context("reading the image tarballs stopped")??;
    let facts = super::packed_facts::packed_facts(plan, tree, &fetched, &report, &layers);
    let sbom_text = sbom::document(plan, &versions, &fetched, &report, tree, layers)?;
    write_atomically(&tree.join(sbom::FILE_NAME), sbom_text.as_bytes())?;
    laps.lap("record");

    run.observer.phase("pack");
    // The key is computed only where there is a store to keep the ISO in.
    let key = (!store.is_empty())
        .then(|| {
            iso_recipe::built_key(
                plan,
                &fetched,
                &report,
                built.unix_seconds,
                &run.signatures.recipe(),
            )
        })
        .flatten();
    // The lock is written whole before the ISO: a lock that cannot be written leaves no ISO.
    let lock = match run.write_lock {
        Some(path) => Some(lock(run.inputs, plan, &fetched, &report).stage(path)?),
        None => None,
    };
    let packed = pack_iso(plan, tree, built, run.progress).await?;
    let sbom_path = sbom::beside(&packed.path);
    write_atomically(&sbom_path, sbom_text.as_bytes())?;
    let record = iso_recipe::IsoRecord {
        // The files versions.txt lists, then versions.txt and the SBOM.
        files: versions.files.len() + 2,
        images: report.images.len(),
        warnings: [kept_warnings(&report, &packed), signatures.warnings.clone()].concat(),
        notes: signatures.notes.clone(),
        beside: [(sbom::BESIDE_SUFFIX.to_string(), sbom_text.clone())].into(),
    };
    if let Some(key) = &key {
        iso_recipe::keep(&store, key, &report, &packed, facts, record).await;
    }
    laps.lap("pack");

    if let Some(lock) = lock {
        lock.commit()?;
    }
    let mut summary = summarise(
        plan,
        &fetched,
        &report,
        packed,
        sbom_path,
        &versions,
        laps.phases,
    );
    summary.warnings.extend(signatures.warnings);
    summary.notes.extend(signatures.notes);
    summary.existing = existing;
    Ok(summary)
}

/// Fetches every file of the plan the first phase did not (waiting for those it started), and
/// sets each file's mode.
async fn download_files(
    plan: &Plan,
    tree: &Path,
    have: &[FetchedFile],
    head_start: Option<HeadStart>,
    fetcher: &Fetcher,
) -> Result<Vec<FetchedFile>> {
    let started = |name: &str| head_start.as_ref().is_some_and(|h| h.covers(name));
    let specs: Vec<_> = plan
        .files
        .iter()
        .filter(|s| !have.iter().any(|f| f.name == s.iso_path) && !started(&s.iso_path))
        .map(|s| file_spec(s, tree))
        .collect();
    create_parents(&specs)?;
    let begun = async {
        match head_start {
            Some(head_start) => head_start.finish().await,
            None => Vec::new(),
        }
        .into_iter()
        .map(|r| r.map_err(|err| err.to_string()))
    };
    let rest = async {
        let results = fetcher.fetch_all(&specs).await;
        results
            .into_iter()
            .map(|r| r.map_err(|err| err.to_string()))
    };
    let (begun, rest) = tokio::join!(begun, rest);
    let mut fetched = Vec::new();
    let mut errors = Vec::new();
    for result in begun.into_iter().chain(rest) {
        match result {
            Ok(file) => fetched.push(file),
            Err(error) => errors.push(error),
        }
    }
    if !errors.is_empty() {
        bail!(
            "{} download(s) failed:\n  {}",
            errors.len(),
            errors.join("\n  ")
        );
    }
    for source in &plan.files {
        set_mode(&tree.join(&source.iso_path), source.mode)?;
    }
    Ok(fetched)
}

/// Pulls every image of the plan into `docker/`; with a lock, each must have the digest the
/// lock recorded.
async fn pull_planned_images(plan: &Plan, tree: &Path, run: &Execution<'_>) -> Result<PullReport> {
    let requests = plan.image_requests();
    let docker = tree.join("docker");
    std::fs::create_dir_all(&docker).with_context(|| format!("creating {}", docker.display()))?;
    let pull = plan.pull_options(&run.pull);
    let report = pull_images(&requests, &docker, &pull, run.progress)
        .await
        .context("pulling the images")?;
    check_locked_digests(plan, &report)?;
    Ok(report)
}

/// With a lock, every image must have the digest the lock recorded.
fn check_locked_digests(plan: &Plan, report: &PullReport) -> Result<()> {
    for planned in &plan.images {
        let Some(expected) = &planned.digest else {
            continue;
        };
        let reference = planned.reference.to_string();
        if let Some(pulled) = report
            .images
            .iter()
            .find(|i| i.reference == planned.reference)
            && &pulled.digest != expected
        {
            bail!(
                "image {reference} is now {} upstream, but the lock recorded {expected}",
                pulled.digest
            );
        }
    }
    Ok(())
}

/// Packs the tree into the plan's ISO.
async fn pack_iso(
    plan: &Plan,
    tree: &Path,
    built: BuildTime,
    progress: &dyn ProgressSink,
) -> Result<Packed> {
    let options = PackOptions::new(&plan.volume_id, built)?;
    let (tree_path, iso_path) = (tree.to_path_buf(), plan.iso.clone());
    // The bar is named by the ISO's file name, as a download is by its file's.
    let name = plan.iso.file_name().map_or_else(
        || plan.iso.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    progress.on_write_start(&name, Some(crate::iso::tree_bytes(tree)));
    let counter = Arc::new(AtomicU64::new(0));
    let written = counter.clone();
    let mut writer = tokio::task::spawn_blocking(move || {
        crate::iso::pack_counting(&tree_path, &iso_path, &options, Some(written))
    });
    // The writer runs on a thread of its own; its bytes are passed on as they grow.
    let mut shown = 0;
    let mut tick = tokio::time::interval(std::time::Duration::from_millis(100));
    let packed = loop {
        tokio::select! {
            done = &mut writer => break done,
            _ = tick.tick() => {
                let now = counter.load(Ordering::Relaxed);
                progress.on_bytes(&name, now.saturating_sub(shown));
                shown = shown.max(now);
            }
        }
    };
    progress.on_bytes(&name, counter.load(Ordering::Relaxed).saturating_sub(shown));
    progress.on_done(&name);
    Ok(packed.context("the ISO writer stopped")??)
}

/// The lock of this build: its inputs, its plan, every file's upstream digest, every image's
/// digest and the mirror each mirrored file came from.
fn lock(inputs: &Inputs, plan: &Plan, fetched: &[FetchedFile], report: &PullReport) -> Lock {
    Lock {
        format: LOCK_FORMAT,
        inputs: inputs.clone(),
        plan: plan.clone(),
        files: fetched
            .iter()
            .map(|f| (f.name.clone(), f.upstream_sha256.clone()))
            .collect::<BTreeMap<_, _>>(),
        images: report
            .images
            .iter()
            .map(|i| (i.reference.to_string(), i.digest.clone()))
            .collect(),
        mirrored: mirrored_files(fetched)
            .into_iter()
            .map(|m| (m.file, m.used))
            .collect(),
    }
}

/// The build's summary.
fn summarise(
    plan: &Plan,
    fetched: &[FetchedFile],
    report: &PullReport,
    packed: Packed,
    sbom: std::path::PathBuf,
    versions: &cks_pinning::versions_txt::VersionsTxt,
    phases: Vec<(String, f64)>,
) -> Summary {
    let mut warnings = plan.warnings.clone();
    warnings.extend(kept_warnings(report, &packed));
    Summary {
        reused: false,
        iso: packed.path,
        sidecar: packed.sidecar,
        sbom,
        size: packed.size,
        sha256: packed.sha256,
        // The files versions.txt lists, then versions.txt and the SBOM.
        files: versions.files.len() + 2,
        images: report.images.len(),
        skipped_images: report.skipped.iter().map(|s| s.versions_line()).collect(),
        file_bytes_fetched: fetched
            .iter()
            .filter(|f| !f.from_cache)
            .map(|f| f.bytes)
            .sum(),
        files_from_cache: fetched.iter().filter(|f| f.from_cache).count(),
        image_bytes_fetched: report.bytes_fetched,
        image_unique_bytes: report.unique_bytes,
        built: versions.built.unwrap_or_default(),
        mirrored: mirrored_files(fetched),
        phases,
        fetched_twice: 0,
        warnings,
        cache_registry: None,
        notes: Vec::new(),
        existing: None,
    }
}

/// The pull's and the pack's warnings. Joliet's `:` -> `_` replacements are expected (Rock
/// Ridge, which nodes read, keeps every name); names cut to Joliet's 64 characters and anything
/// else are worth saying.
fn kept_warnings(report: &PullReport, packed: &Packed) -> Vec<String> {
    let mut warnings: Vec<String> = report.warnings.iter().map(ToString::to_string).collect();
    warnings.extend(
        packed
            .warnings
            .iter()
            .filter(|w| !matches!(w, crate::iso::PackWarning::JolietNameChanged { .. }))
            .map(ToString::to_string),
    );
    warnings
}

fn set_mode(path: &Path, mode: u32) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .with_context(|| format!("setting the mode of {}", path.display()))
}
