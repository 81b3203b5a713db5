//! The second phase of a build: fetch the large files, pull every image, record it all in
//! `versions.txt`, and pack the ISO. Nothing is decided here that the plan did not say.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Instant, SystemTime};

use anyhow::{Context, Result, bail};
use cks_pinning::image::ImageRef;
use cks_pinning::versions_txt::{FileEntry, SkippedImage, VersionsTxt};
use serde::Serialize;

use super::iso_cache::IsoCache;
use super::lock::{LOCK_FORMAT, Lock};
use super::options::Inputs;
use super::plan::Plan;
use super::sources::bare;
use super::staging::{Staging, write_atomically};
use crate::fetch::{FetchedFile, Fetcher};
use crate::iso::{BuildTime, PackOptions};
use crate::progress::ProgressSink;
use crate::registry::{ImageRequest, PullOptions, PullReport, pull_images};

/// What a finished build reports.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// The ISO.
    pub iso: std::path::PathBuf,
    /// Its `.sha256` sidecar.
    pub sidecar: std::path::PathBuf,
    /// Its size in bytes.
    pub size: u64,
    /// Its sha256.
    pub sha256: String,
    /// Files in the ISO (images and versions.txt included).
    pub files: usize,
    /// Images bundled.
    pub images: usize,
    /// Images left out for their platform.
    pub skipped_images: Vec<String>,
    /// Bytes received for files (0 for cache hits).
    pub file_bytes_fetched: u64,
    /// Files served from the content cache.
    pub files_from_cache: usize,
    /// Bytes received from registries.
    pub image_bytes_fetched: u64,
    /// Bytes of the distinct blobs the images use.
    pub image_unique_bytes: u64,
    /// The time every timestamp of the ISO carries, seconds since 1970.
    pub built: i64,
    /// Files that came through a mirror (not recorded in the ISO, so that any mirror gives the
    /// same ISO).
    pub mirrored: Vec<MirroredFile>,
    /// Seconds spent in each phase.
    pub phases: Vec<(String, f64)>,
    /// Warnings for the user.
    pub warnings: Vec<String>,
}

/// A file fetched through a mirror: its path in the ISO, its canonical URL and the URL used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MirroredFile {
    /// The path in the ISO.
    pub file: String,
    /// The canonical upstream URL, as `versions.txt` records it.
    pub upstream: String,
    /// The URL the bytes came from (a mirror, or `cache:` for content found by digest).
    pub used: String,
}

/// Every file of `fetched` that came from somewhere else than its canonical URL, by path.
pub fn mirrored_files(fetched: &[FetchedFile]) -> Vec<MirroredFile> {
    let mut out: Vec<MirroredFile> = fetched
        .iter()
        .filter(|f| f.url != f.url_used)
        .map(|f| MirroredFile {
            file: f.name.clone(),
            upstream: f.url.clone(),
            used: f.url_used.clone(),
        })
        .collect();
    out.sort_by(|a, b| a.file.cmp(&b.file));
    out
}

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
}

/// Carries out `plan` in `staging` (where the first phase left `fetched`), writing the ISO.
pub async fn execute(
    plan: &Plan,
    staging: &Staging,
    mut fetched: Vec<FetchedFile>,
    run: Execution<'_>,
    mut phases: Vec<(String, f64)>,
) -> Result<Summary> {
    let tree = staging.tree();
    let mut clock = Instant::now();
    let mut lap = |name: &str, phases: &mut Vec<(String, f64)>| {
        phases.push((name.to_string(), clock.elapsed().as_secs_f64()));
        clock = Instant::now();
    };

    // Files.
    run.observer.phase("download");
    let have: Vec<_> = fetched.iter().map(|f| f.name.clone()).collect();
    let specs: Vec<_> = plan
        .files
        .iter()
        .filter(|s| !have.contains(&s.iso_path))
        .map(|s| s.spec(tree))
        .collect();
    for spec in &specs {
        if let Some(parent) = spec.dest.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
    }
    let mut errors = Vec::new();
    for result in run.fetcher.fetch_all(&specs).await {
        match result {
            Ok(file) => fetched.push(file),
            Err(error) => errors.push(error.to_string()),
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
    lap("download", &mut phases);

    // Images.
    run.observer.phase("images");
    let requests: Vec<ImageRequest> = plan
        .images
        .iter()
        .map(|i| ImageRequest {
            reference: i.reference.clone(),
            tarball_name: i.tarball.clone(),
        })
        .collect();
    let docker = tree.join("docker");
    std::fs::create_dir_all(&docker).with_context(|| format!("creating {}", docker.display()))?;
    let report = pull_images(&requests, &docker, &run.pull, run.progress)
        .await
        .context("pulling the images")?;
    check_locked_digests(plan, &report)?;
    lap("images", &mut phases);

    // versions.txt.
    run.observer.phase("record");
    let built = match run.source_date_epoch {
        Some(seconds) => BuildTime::fixed(seconds),
        None => BuildTime::from_env_value(None, SystemTime::now())?,
    };
    let versions = record(plan, &fetched, &report, tree, built.unix_seconds)?;
    let versions_text = versions.render()?;
    write_atomically(
        &tree.join(cks_pinning::versions_txt::FILE_NAME),
        versions_text.as_bytes(),
    )?;
    lap("record", &mut phases);

    // The ISO.
    run.observer.phase("pack");
    let options = PackOptions::new(&plan.volume_id, built)?;
    // versions.txt names every byte of the tree (paths, digests, the build time), so an ISO
    // packed before from the same versions.txt and volume id is this one.
    let iso_cache = run
        .iso_cache
        .map(|dir| IsoCache::new(dir, &versions_text, &plan.volume_id));
    let packed = match iso_cache.as_ref().and_then(|c| c.take(&plan.iso, built)) {
        Some(packed) => packed,
        None => {
            let (tree_path, iso_path) = (tree.to_path_buf(), plan.iso.clone());
            let packed = tokio::task::spawn_blocking(move || {
                crate::iso::pack(&tree_path, &iso_path, &options)
            })
            .await
            .context("the ISO writer stopped")??;
            if let Some(cache) = &iso_cache {
                cache.put(&packed);
            }
            packed
        }
    };
    lap("pack", &mut phases);

    if let Some(path) = run.write_lock {
        let lock = Lock {
            format: LOCK_FORMAT,
            inputs: run.inputs.clone(),
            plan: plan.clone(),
            files: fetched
                .iter()
                .map(|f| (f.name.clone(), f.upstream_sha256.clone()))
                .collect::<BTreeMap<_, _>>(),
            images: report
                .images
                .iter()
                .map(|i| (i.reference.clone(), i.digest.clone()))
                .collect(),
            mirrored: mirrored_files(&fetched)
                .into_iter()
                .map(|m| (m.file, m.used))
                .collect(),
        };
        lock.write(path)?;
    }

    let mut warnings = plan.warnings.clone();
    warnings.extend(report.warnings.iter().map(ToString::to_string));
    // Joliet's `:` -> `_` replacements are expected (Rock Ridge, which nodes read, keeps every
    // name); names cut to Joliet's 64 characters and anything else are worth saying.
    warnings.extend(
        packed
            .warnings
            .iter()
            .filter(|w| !matches!(w, crate::iso::PackWarning::JolietNameChanged { .. }))
            .map(ToString::to_string),
    );
    Ok(Summary {
        iso: packed.path,
        sidecar: packed.sidecar,
        size: packed.size,
        sha256: packed.sha256,
        files: versions.files.len() + 1,
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
        built: built.unix_seconds,
        mirrored: mirrored_files(&fetched),
        phases,
        warnings,
    })
}

/// With a lock, every image must have the digest the lock recorded.
fn check_locked_digests(plan: &Plan, report: &PullReport) -> Result<()> {
    for planned in &plan.images {
        let Some(expected) = &planned.digest else {
            continue;
        };
        if let Some(pulled) = report
            .images
            .iter()
            .find(|i| i.reference == planned.reference)
            && &pulled.digest != expected
        {
            bail!(
                "image {} is now {} upstream, but the lock recorded {expected}",
                planned.reference,
                pulled.digest
            );
        }
    }
    Ok(())
}

/// The record of what the ISO holds.
fn record(
    plan: &Plan,
    fetched: &[FetchedFile],
    report: &PullReport,
    tree: &Path,
    built: i64,
) -> Result<VersionsTxt> {
    let mut by_path: Vec<&FetchedFile> = fetched.iter().collect();
    by_path.sort_by(|a, b| a.name.cmp(&b.name));
    // Digests already known: downloads were hashed as they streamed, tarballs as they were
    // written. Manifests may have been edited after their download, so they are hashed again.
    let mut known: BTreeMap<std::path::PathBuf, &str> = BTreeMap::new();
    for file in fetched.iter().filter(|f| !f.name.ends_with(".yaml")) {
        known.insert(file.dest.clone(), file.sha256.as_str());
    }
    for image in &report.images {
        let hex = image
            .tarball_sha256
            .strip_prefix("sha256:")
            .unwrap_or(&image.tarball_sha256);
        known.insert(image.tarball.clone(), hex);
    }
    let mut files = Vec::new();
    for path in tree_files(tree)? {
        let full = tree.join(&path);
        let sha256 = match known.get(&full) {
            Some(hex) => hex.to_string(),
            None => sha256_file(&full)?,
        };
        files.push(FileEntry { path, sha256 });
    }
    let images = report
        .images
        .iter()
        .map(|i| {
            ImageRef::parse(&i.reference)
                .and_then(|r| r.with_digest(&i.digest))
                .with_context(|| format!("recording image {}", i.reference))
        })
        .collect::<Result<Vec<_>>>()?;
    let skipped_images = report
        .skipped
        .iter()
        .map(|s| {
            Ok(SkippedImage {
                reference: ImageRef::parse(&s.reference)
                    .with_context(|| format!("recording image {}", s.reference))?,
                platform: s.platform.clone(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    // Each file's canonical URL, then the checksum file its digest was checked against.
    let mut urls = Vec::new();
    for file in &by_path {
        urls.push(file.url.clone());
        let checksum_url = plan
            .files
            .iter()
            .find(|s| s.iso_path == file.name)
            .and_then(|s| s.checksum_url(&file.url));
        if let Some(url) = checksum_url
            && !urls.contains(&url)
        {
            urls.push(url);
        }
    }
    Ok(VersionsTxt {
        kubernetes: bare(&plan.kubernetes).to_string(),
        cni_plugins: bare(&plan.cni_plugins).to_string(),
        crictl: bare(&plan.crictl).to_string(),
        ccm: bare(&plan.ccm.tag).to_string(),
        csi_driver: bare(&plan.csi_driver).to_string(),
        autoscaler: bare(&plan.autoscaler.version).to_string(),
        autoscaler_tag: plan.autoscaler.tag.clone(),
        etcd: plan.etcd.as_deref().map(|e| bare(e).to_string()),
        arch: plan.arch.go_name().to_string(),
        urls,
        files,
        images,
        skipped_images,
        built: Some(built),
    })
}

/// Every regular file below `tree` (but versions.txt), as sorted `/`-separated paths.
fn tree_files(tree: &Path) -> Result<Vec<String>> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) -> Result<()> {
        for entry in std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            if entry.file_type()?.is_dir() {
                walk(&entry.path(), &path, out)?;
            } else if path != cks_pinning::versions_txt::FILE_NAME {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(tree, "", &mut out)?;
    out.sort();
    Ok(out)
}

/// The sha256 of a file, read in chunks, as 64 lowercase hex digits.
pub fn sha256_file(path: &Path) -> Result<String> {
    crate::digest::sha256_file(path)
        .map(|d| d.hex().to_string())
        .with_context(|| format!("reading {}", path.display()))
}

fn set_mode(path: &Path, mode: u32) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .with_context(|| format!("setting the mode of {}", path.display()))
}
