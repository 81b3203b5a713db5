//! `cks-iso release`: the newest patch of each chosen minor, for each arch, built in one process
//! (one `--cache-dir` for all), then a table. An ISO already in the output directory is kept
//! only when its sidecar names the digest it hashes to and it is byte for byte what this run
//! builds from what it verifies (the check a cached ISO passes); otherwise it is rebuilt and its
//! row says why. `--force` rebuilds every one; `--dry-run` says what a run would do;
//! `--keep-going` lets the other ISOs go on past a failure. The catalog signs only what was
//! checked.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use cks_builder::catalog;
use cks_builder::fetch::Fetcher;
use cks_builder::pipeline::{
    ExistingIso, Front, InFolder, Inputs, Kubernetes, Matrix, MatrixRelease, Minors, Outcome,
    OutputLock, OutputPath, Request, kubeadm_etcd_line, look_in_folder, release_minors,
    release_version, with_kubernetes, would_keep,
};
use cks_builder::signing::SigningKey;
use cks_pinning::kube_request::KubeRequest;
use cks_pinning::version::KubeVersion;

use super::build::build_with_reporting;
pub use super::release_args::Args;
use super::release_table::{IsoResult, Row, json, render, render_dry};

/// A matrix entry's tool versions over the release's inputs.
fn apply_release(inputs: &mut Inputs, release: &MatrixRelease) {
    for (value, slot) in [
        (&release.crictl_version, &mut inputs.crictl_version),
        (&release.cni_version, &mut inputs.cni_version),
        (&release.etcd_version, &mut inputs.etcd_version),
    ] {
        if value.is_some() {
            slot.clone_from(value);
        }
    }
}

/// What every ISO of the run shares.
struct Run<'a> {
    args: &'a Args,
    base: Inputs,
    prefix: String,
    interrupt: &'a super::interrupt::Interrupt,
    /// The ISOs built, taken or kept by this run, with the sha256 each was checked as.
    checked: BTreeMap<PathBuf, String>,
}

/// Runs `cks-iso release`.
pub async fn run(args: Args, interrupt: &super::interrupt::Interrupt) -> Result<()> {
    let config = super::build_args::read_config(args.config.as_deref())?;
    // The key is read before anything is built: a key that cannot sign fails at once.
    let sign_key = args.sign_key.as_deref().map(SigningKey::read).transpose()?;
    let matrix = args.matrix.as_deref().map(Matrix::read).transpose()?;
    let env = Inputs::from_env(|key| std::env::var(key).ok())?;
    let base = args.inputs().over(env).over(config);
    if let Some(version) = &base.kubernetes_version {
        bail!(
            "cks-iso release chooses the Kubernetes versions itself (--minors), not {version:?}; use cks-iso build for one version"
        );
    }
    let output = base
        .output_path
        .clone()
        .context("cks-iso release needs --output-path (the folder of the ISOs)")?;
    // The folder is this release's alone until it ends: another release or build there fails
    // at once (the builds below take the lock this process holds). Made if missing, and
    // removed again if the release fails with nothing written there. A dry run writes nothing.
    let (folder, _writer) = match args.dry_run {
        true => (None, None),
        false => (
            Some(OutputPath::prepare(&output, true)?),
            Some(OutputLock::acquire(&output)?),
        ),
    };
    let prefix = base.build_name.clone().unwrap_or_else(|| "cks".to_string());
    let arches: Vec<String> = base
        .arch
        .as_deref()
        .unwrap_or("x86_64")
        .split(',')
        .map(|a| a.trim().to_string())
        .collect();
    // The release server is read with the build's mirrors, CA files and limits.
    let mut probe = base.clone();
    probe.arch = arches.first().cloned();
    probe.build_name = Some(prefix.clone());
    let fetcher = Fetcher::new(probe.reach()?)?;
    let minors = match &matrix {
        Some(matrix) => matrix.minors()?,
        None => args.minors.clone().unwrap_or(Minors::Newest(3)),
    };
    let requests = release_minors(&minors, &fetcher).await?;
    let mut run = Run {
        args: &args,
        base,
        prefix,
        interrupt,
        checked: BTreeMap::new(),
    };
    let mut rows = Vec::new();
    for (index, minor) in requests.iter().enumerate() {
        let entry = matrix.as_ref().map(|m| (m, &m.releases[index]));
        let minor_arches = match entry {
            Some((matrix, release)) => matrix.arches_of(release, &arches),
            None => arches.clone(),
        };
        let version = match release_version(minor, &fetcher).await {
            Ok(version) => version,
            Err(error) if args.keep_going => {
                for arch in &minor_arches {
                    rows.push(failed(minor, "", arch, Instant::now(), &error));
                }
                continue;
            }
            Err(error) => return Err(error),
        };
        eprintln!("kubernetes: {minor} -> {version}");
        for arch in &minor_arches {
            let started = Instant::now();
            let release = entry.map(|(_, release)| release);
            let row = match run.one(minor, &version, arch, release).await {
                Ok(row) => row,
                Err(error) if args.keep_going && !interrupt.pressed() => {
                    eprintln!("cks-iso: error: {}", super::error_text(&error));
                    failed(minor, &version.to_string(), arch, started, &error)
                }
                Err(error) => return Err(error),
            };
            rows.push(row);
        }
    }
    if args.dry_run {
        return match args.json {
            true => outln!("{}", serde_json::to_string_pretty(&json(&rows, None))?),
            false => out!("{}", render_dry(&rows)),
        };
    }
    // The catalog and the checksum files of every ISO in the folder, built now or before
    // (signed, with the ISOs, when a key is given).
    let checked = std::mem::take(&mut run.checked);
    let written = {
        let (dir, base_url) = (output.clone(), args.base_url.clone());
        let (serial, expires_in) = (args.serial, args.expires_in);
        let temp_dir = args.tmp_dir.clone();
        tokio::task::spawn_blocking(move || {
            catalog::write(
                &dir,
                &catalog::Options {
                    base_url,
                    sign_key: sign_key.as_ref(),
                    serial,
                    expires_in,
                    temp_dir,
                    checked,
                },
            )
        })
        .await
        .context("the catalog task stopped")?
        .with_context(|| format!("writing the catalog of {}", output.display()))
    };
    let failures = rows
        .iter()
        .filter(|r| r.result == IsoResult::Failed)
        .count();
    // Without --keep-going a catalog that cannot be written fails the run before the table.
    let written = match written {
        Ok(written) => Some(written),
        Err(error) if failures == 0 => return Err(error),
        Err(error) => {
            eprintln!("cks-iso: error: {}", super::error_text(&error));
            None
        }
    };
    if let Some(folder) = folder {
        folder.keep();
    }
    if args.json {
        let catalog = written.as_ref().map(|w| w.path.as_path());
        outln!("{}", serde_json::to_string_pretty(&json(&rows, catalog))?)?;
    } else {
        out!("{}", render(&rows))?;
        if let Some(written) = &written {
            outln!(
                "catalog: {} ({} ISOs, checksums per minor{})",
                written.path.display(),
                written.catalog.isos.len(),
                if written.signature.is_some() {
                    ", signed"
                } else {
                    ""
                }
            )?;
        }
        if rows
            .iter()
            .all(|r| matches!(r.result, IsoResult::Skipped | IsoResult::Cached))
        {
            let cached = rows.iter().any(|r| r.result == IsoResult::Cached);
            outln!(
                "nothing to build: every ISO is already in {}{}",
                output.display(),
                if cached { " or a cache" } else { "" }
            )?;
        }
    }
    if failures > 0 {
        bail!("{failures} of {} ISOs failed (see the table)", rows.len());
    }
    Ok(())
}

/// The row of an ISO that failed, with the error's chain as its note.
fn failed(
    minor: &KubeRequest,
    version: &str,
    arch: &str,
    started: Instant,
    error: &anyhow::Error,
) -> Row {
    Row {
        minor: minor.to_string(),
        version: version.to_string(),
        arch: arch.to_string(),
        result: IsoResult::Failed,
        size: 0,
        seconds: started.elapsed().as_secs_f64(),
        note: format!("failed: {}", super::error_text(error)),
    }
}

impl Run<'_> {
    /// Builds, keeps or (with `--dry-run`) judges the ISO of `version` for `arch`.
    async fn one(
        &mut self,
        minor: &KubeRequest,
        version: &KubeVersion,
        arch: &str,
        release: Option<&MatrixRelease>,
    ) -> Result<Row> {
        let mut inputs = self.base.clone();
        inputs.arch = Some(arch.to_string());
        inputs.build_name = Some(format!("{}-{version}", self.prefix));
        if let Some(release) = release {
            apply_release(&mut inputs, release);
        }
        let reach = inputs.reach()?;
        let Front { options, inputs } =
            with_kubernetes(inputs, Kubernetes::Pinned(*version), None, reach, &|line| {
                eprintln!("{line}")
            })
            .await?;
        super::build::warn_crictl_minor(&options);
        let iso = options.iso_path();
        let started = Instant::now();
        let found = if self.args.force {
            match iso.is_file() {
                true => InFolder::Refused("--force".to_string()),
                false => InFolder::Missing,
            }
        } else {
            let iso = iso.clone();
            tokio::task::spawn_blocking(move || look_in_folder(&iso))
                .await
                .context("the check of the folder's ISO stopped")?
        };
        let mut row = Row {
            minor: minor.to_string(),
            version: version.to_string(),
            arch: options.arch.iso_suffix().to_string(),
            result: IsoResult::Built,
            size: 0,
            seconds: 0.0,
            note: String::new(),
        };
        if self.args.dry_run {
            (row.result, row.note) = match found {
                InFolder::Missing => (
                    IsoResult::WouldBuild,
                    format!("{} is not in the folder", file_name(&iso)),
                ),
                InFolder::Refused(reason) => (IsoResult::WouldRebuild, reason),
                InFolder::Candidate(_) => {
                    let progress = Arc::new(super::progress::Lines::new());
                    let temp = self.args.tmp_dir.as_deref();
                    match would_keep(&options, &inputs, temp, progress.clone(), progress.as_ref())
                        .await?
                    {
                        Ok(()) => (
                            IsoResult::WouldKeep,
                            "its sidecar agrees and it is what this run builds".to_string(),
                        ),
                        Err(reason) => (IsoResult::WouldRebuild, reason.to_string()),
                    }
                }
            };
            row.seconds = started.elapsed().as_secs_f64();
            return Ok(row);
        }
        let (keep_existing, mut refused) = match found {
            InFolder::Missing => (None, None),
            InFolder::Refused(reason) => (None, Some(reason)),
            InFolder::Candidate(sha256) => (Some(sha256), None),
        };
        if keep_existing.is_none() {
            // A signature beside an ISO about to be replaced would vouch for the old one.
            let sig = cks_builder::signing::sig_path(&iso);
            if sig.is_file() {
                std::fs::remove_file(&sig)
                    .with_context(|| format!("removing the stale {}", sig.display()))?;
            }
        }
        let request = Request {
            keep_existing,
            temp_dir: self.args.tmp_dir.clone(),
            ..Request::default()
        };
        let Outcome::Built(plan, summary) =
            build_with_reporting(&options, &inputs, request, self.interrupt)
                .await
                .with_context(|| format!("building Kubernetes {version} for {arch}"))?
        else {
            bail!("the build of Kubernetes {version} for {arch} stopped after its plan")
        };
        if let Some(line) = kubeadm_etcd_line(&options, &plan) {
            eprintln!("{line}");
        }
        row.result = match &summary.existing {
            Some(ExistingIso::Kept) => IsoResult::Skipped,
            Some(ExistingIso::Replaced { reason }) => {
                refused = Some(format!("not what this run builds: {reason}"));
                if summary.reused {
                    IsoResult::Cached
                } else {
                    IsoResult::Rebuilt
                }
            }
            None if summary.reused => IsoResult::Cached,
            None if refused.is_some() => IsoResult::Rebuilt,
            None => IsoResult::Built,
        };
        self.checked
            .insert(summary.iso.clone(), summary.sha256.clone());
        row.size = summary.size;
        row.seconds = started.elapsed().as_secs_f64();
        row.note = refused
            .map(|reason| match row.result {
                IsoResult::Cached => format!("taken from a cache: {reason}"),
                _ => format!("rebuilt: {reason}"),
            })
            .unwrap_or_default();
        Ok(row)
    }
}

/// The file name of `path`, for messages.
fn file_name(path: &std::path::Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
