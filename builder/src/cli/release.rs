//! `cks-iso release`: the newest patch of each chosen minor, for each arch, built in one process
//! (one `--cache-dir` for all), then a table. An ISO already in the output directory is kept
//! only when its sidecar names the digest it hashes to and it is byte for byte what this run
//! builds from what it verifies (the check a cached ISO passes); otherwise it is rebuilt and its
//! row says why. `--force` rebuilds every one. The catalog signs only what was checked.

use std::time::Instant;

use anyhow::{Context, Result, bail};
use cks_builder::catalog;
use cks_builder::pipeline::{
    ExistingIso, InFolder, Inputs, Matrix, MatrixRelease, Minors, Outcome, OutputLock, OutputPath,
    Request, kubeadm_etcd_line, look_in_folder, pin_tools, probe_fetcher, release_versions,
};
use cks_builder::signing::SigningKey;
use cks_pinning::kube_request::KubeRequest;

use super::build::build_with_reporting;
use super::build_args::BuildArgs;
use super::progress::human;

/// Flags of `cks-iso release`: the minors, and every build flag but the version and the name
/// (`--arch` takes a comma-separated list).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The minors: a count (the newest N, counting down from the minor of the release server's
    /// `release/stable.txt`) or a list such as 1.31,1.32,1.33; each builds its newest patch
    /// (`release/stable-X.Y.txt`) [default: 3].
    #[arg(long, conflicts_with = "matrix")]
    pub minors: Option<Minors>,
    /// A TOML matrix instead of --minors: `[[release]]` tables of `minor` with their own
    /// `arch`, `crictl-version`, `cni-version` and `etcd-version` (unknown keys are refused).
    #[arg(long, value_name = "FILE")]
    pub matrix: Option<std::path::PathBuf>,
    /// The URL the output folder is published at: each ISO's `url` in `catalog.json` is this
    /// plus its file name (no `url` without it).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Rebuild every ISO, even one already in the output folder that would be kept.
    #[arg(long)]
    pub force: bool,
    /// The catalog's serial (default: the Unix time now); see `cks-iso catalog --serial`.
    #[arg(long, value_name = "N")]
    pub serial: Option<u64>,
    /// How long the catalog is valid (default 30d); see `cks-iso catalog --expires-in`.
    #[arg(long, value_name = "DURATION", value_parser = super::catalog::parse_expiry)]
    pub expires_in: Option<std::time::Duration>,
    /// The build's inputs (`--arch x86_64 --arch aarch64`, or `--arch x86_64,aarch64`, builds
    /// both; BUILD_NAME is the prefix of each ISO's name, default `cks`:
    /// `cks-1.33.13-x86_64.iso`).
    #[command(flatten)]
    pub build: Box<BuildArgs>,
}

/// One line of the closing table.
struct Row {
    minor: String,
    version: String,
    arch: String,
    result: IsoResult,
    size: u64,
    seconds: f64,
    /// Why an ISO in the folder was not kept (`rebuilt: its sha256 differs from its sidecar`).
    note: String,
}

/// What became of one ISO of the release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IsoResult {
    /// Packed by this run.
    Built,
    /// Packed by this run in place of an ISO in the folder that could not be kept.
    Rebuilt,
    /// Already in the output folder, checked, kept.
    Skipped,
    /// Taken, once checked, from `--cache-dir` or the cache registry.
    Cached,
}

impl IsoResult {
    fn word(self) -> &'static str {
        match self {
            IsoResult::Built => "built",
            IsoResult::Rebuilt => "rebuilt",
            IsoResult::Skipped => "skipped",
            IsoResult::Cached => "cached",
        }
    }
}

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

/// Runs `cks-iso release`.
pub async fn run(args: Args, interrupt: &super::interrupt::Interrupt) -> Result<()> {
    let config = super::build_args::read_config(args.build.config.as_deref())?;
    if args.build.locked.is_some() || args.build.write_lock.is_some() || args.build.dry_run {
        bail!(
            "cks-iso release takes no --locked, --write-lock or --dry-run; use cks-iso build for one ISO"
        );
    }
    // The key is read before anything is built: a key that cannot sign fails at once.
    let sign_key = args
        .build
        .sign_key
        .as_deref()
        .map(SigningKey::read)
        .transpose()?;
    let matrix = args.matrix.as_deref().map(Matrix::read).transpose()?;
    let env = Inputs::from_env(|key| std::env::var(key).ok())?;
    let base = args.build.inputs().over(env).over(config);
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
    // removed again if the release fails with nothing written there.
    let folder = OutputPath::prepare(&output, true)?;
    let _writer = OutputLock::acquire(&output)?;
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
    let fetcher = probe_fetcher(&probe, &KubeRequest::Stable)?;
    let minors = match &matrix {
        Some(matrix) => matrix.minors()?,
        None => args.minors.clone().unwrap_or(Minors::Newest(3)),
    };
    let versions = release_versions(&minors, &fetcher).await?;
    let mut rows = Vec::new();
    // The ISOs built, taken or kept by this run, with the sha256 each was checked as.
    let mut checked = std::collections::BTreeMap::new();
    for (index, (minor, version)) in versions.iter().enumerate() {
        eprintln!("kubernetes: {minor} -> {version}");
        let entry = matrix.as_ref().map(|m| (m, &m.releases[index]));
        let minor_arches = match entry {
            Some((matrix, release)) => matrix.arches_of(release, &arches),
            None => arches.clone(),
        };
        for arch in &minor_arches {
            let mut inputs = base.clone();
            inputs.kubernetes_version = Some(version.to_string());
            inputs.arch = Some(arch.clone());
            inputs.build_name = Some(format!("{prefix}-{version}"));
            if let Some((_, release)) = entry {
                apply_release(&mut inputs, release);
            }
            for line in pin_tools(&mut inputs).await? {
                eprintln!("{line}");
            }
            let options = inputs.clone().resolve()?;
            let iso = options.iso_path();
            let started = Instant::now();
            let found = if args.force {
                InFolder::Refused("--force".to_string())
            } else {
                let iso = iso.clone();
                tokio::task::spawn_blocking(move || look_in_folder(&iso))
                    .await
                    .context("the check of the folder's ISO stopped")?
            };
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
                ..Request::default()
            };
            let (result, size) = match build_with_reporting(&options, &inputs, request, interrupt)
                .await
                .with_context(|| format!("building Kubernetes {version} for {arch}"))?
            {
                Outcome::Built(plan, summary) => {
                    if let Some(line) = kubeadm_etcd_line(&options, &plan) {
                        eprintln!("{line}");
                    }
                    let result = match &summary.existing {
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
                    checked.insert(summary.iso.clone(), summary.sha256.clone());
                    (result, summary.size)
                }
                Outcome::Planned(_) => {
                    bail!("the build of Kubernetes {version} for {arch} stopped after its plan")
                }
            };
            rows.push(Row {
                minor: minor.to_string(),
                version: version.to_string(),
                arch: options.arch.iso_suffix().to_string(),
                result,
                size,
                seconds: started.elapsed().as_secs_f64(),
                note: refused
                    .map(|reason| match result {
                        IsoResult::Cached => format!("taken from a cache: {reason}"),
                        _ => format!("rebuilt: {reason}"),
                    })
                    .unwrap_or_default(),
            });
        }
    }
    // The catalog and the checksum files of every ISO in the folder, built now or before
    // (signed, with the ISOs, when a key is given).
    let written = {
        let (dir, base_url) = (output.clone(), args.base_url.clone());
        let (serial, expires_in) = (args.serial, args.expires_in);
        tokio::task::spawn_blocking(move || {
            catalog::write(
                &dir,
                &catalog::Options {
                    base_url,
                    sign_key: sign_key.as_ref(),
                    serial,
                    expires_in,
                    checked,
                },
            )
        })
        .await
        .context("the catalog task stopped")?
        .with_context(|| format!("writing the catalog of {}", output.display()))?
    };
    folder.keep();
    out!("{}", render(&rows))?;
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
    if rows
        .iter()
        .all(|r| !matches!(r.result, IsoResult::Built | IsoResult::Rebuilt))
    {
        let cached = rows.iter().any(|r| r.result == IsoResult::Cached);
        outln!(
            "nothing to build: every ISO is already in {}{}",
            output.display(),
            if cached { " or a cache" } else { "" }
        )?;
    }
    Ok(())
}

/// The closing table: minor, version, arch, built or skipped, size, time, and why an ISO in
/// the folder was rebuilt.
fn render(rows: &[Row]) -> String {
    let mut out = format!(
        "{:<7} {:<10} {:<8} {:<8} {:>10} {:>8}\n",
        "minor", "version", "arch", "result", "size", "time"
    );
    for row in rows {
        let line = format!(
            "{:<7} {:<10} {:<8} {:<8} {:>10} {:>7.1}s  {}",
            row.minor,
            row.version,
            row.arch,
            row.result.word(),
            human(row.size),
            row.seconds,
            row.note
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
