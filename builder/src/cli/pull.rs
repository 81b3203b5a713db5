//! `cks-iso pull`: pulls images by digest into `DIR/<tarball name>` exactly as a build does and
//! prints `<ref>@sha256:<hex>` a line.

use std::path::PathBuf;

use anyhow::Context;
use cks_builder::pace::MinRate;
use cks_builder::progress::NoProgress;
use cks_builder::registry::{
    Arch, CredentialStore, ImageRequest, PullOptions, default_docker_config, pull_images,
};
use cks_builder::retry::RetryPolicy;
use cks_pinning::image::{ImageRef, dedup};

/// Flags of `cks-iso pull`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Target architecture of the images (the ISO's, not this machine's): amd64 or arm64
    /// (x86_64 and aarch64 are accepted too).
    #[arg(long, default_value = "amd64", value_parser = clap::value_parser!(Arch))]
    pub arch: Arch,
    /// Pull REGISTRY's images from URL instead, keeping the original name in the tarball,
    /// e.g. `registry.k8s.io=http://127.0.0.1:5000`. Repeatable.
    #[arg(long = "registry-mirror", value_name = "REGISTRY=URL")]
    pub registry_mirror: Vec<String>,
    /// Allow plain HTTP for this registry or mirror (`host[:port]`). Repeatable.
    #[arg(long = "insecure-registry", value_name = "HOST[:PORT]")]
    pub insecure_registry: Vec<String>,
    /// Images and blob transfers in flight at once.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub concurrency: u16,
    /// Fail when a single-platform image is for another platform instead of leaving it out.
    #[arg(long)]
    pub strict_platforms: bool,
    /// A docker `config.json` with credentials for private registries (default:
    /// `$DOCKER_CONFIG/config.json` or `~/.docker/config.json` when present).
    #[arg(long, value_name = "FILE")]
    pub docker_config: Option<PathBuf>,
    /// Keep blobs between runs in DIR/blobs, the folder `cks-iso build --cache-dir DIR` keeps
    /// them in (re-verified before reuse).
    #[arg(long, value_name = "DIR", conflicts_with = "blob_cache")]
    pub cache_dir: Option<PathBuf>,
    /// The blobs folder itself, as this flag named it before `--cache-dir` (read with a
    /// warning).
    #[arg(long, value_name = "DIR", hide = true)]
    pub blob_cache: Option<PathBuf>,
    /// Directory for the tarballs.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Raise how much is read of one kind of input, e.g. `oci=16MiB` or `layers=2000`
    /// (repeatable; as `cks-iso build --limit`).
    #[arg(long = "limit", value_name = "KIND=SIZE")]
    pub limits: Vec<String>,
    /// End a transfer (a manifest or a blob) that brings fewer than BYTES
    /// in WINDOW seconds, as a server dripping a byte at a time does; a slower link needs a
    /// lower rule, `0` turns it off [default: 60KiB/60s, about 1 KiB/s].
    #[arg(
        long,
        value_name = "BYTES/WINDOW",
        default_value = "60KiB/60s",
        hide_default_value = true
    )]
    pub min_rate: MinRate,
    /// Images to pull, e.g. `registry.k8s.io/pause:3.10`.
    #[arg(value_name = "REF", required = true)]
    pub refs: Vec<String>,
}

/// Runs `cks-iso pull`.
pub async fn run(args: Args) -> anyhow::Result<()> {
    let images = args
        .refs
        .iter()
        .map(|text| ImageRef::parse(text).with_context(|| format!("image argument `{text}`")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let images = dedup(images);
    let requests = ImageRequest::for_images(&images);
    let mut options = PullOptions::new(args.arch);
    options.mirrors = args.registry_mirror;
    options.insecure = args.insecure_registry;
    options.concurrency = usize::from(args.concurrency);
    options.strict_platforms = args.strict_platforms;
    options.retry = RetryPolicy::default();
    if let Some(dir) = &args.blob_cache {
        eprintln!(
            "cks-iso: warning: --blob-cache {} is read as before (the folder holds the blobs); --cache-dir DIR keeps them in DIR/blobs, the folder cks-iso build --cache-dir DIR shares",
            dir.display()
        );
    }
    options.blob_dir = args
        .cache_dir
        .map(|dir| dir.join("blobs"))
        .or(args.blob_cache);
    options.credentials = credentials(args.docker_config)?;
    options.min_rate = args.min_rate;
    for limit in &args.limits {
        options
            .limits
            .set_text(limit)
            .with_context(|| format!("--limit {limit}"))?;
    }
    let report = pull_images(&requests, &args.out, &options, &NoProgress)
        .await
        .with_context(|| {
            format!(
                "pulling {} image(s) into {}",
                requests.len(),
                args.out.display()
            )
        })?;
    for warning in &report.warnings {
        eprintln!("cks-iso: warning: {warning}");
    }
    for image in &report.images {
        outln!("{}", image.pinned())?;
    }
    eprintln!(
        "cks-iso: {} image(s) written, {} skipped; fetched {} bytes ({} unique), wrote {} bytes",
        report.images.len(),
        report.skipped.len(),
        report.bytes_fetched,
        report.unique_bytes,
        report.bytes_written
    );
    Ok(())
}

fn credentials(explicit: Option<PathBuf>) -> anyhow::Result<CredentialStore> {
    match explicit.or_else(default_docker_config) {
        Some(path) => Ok(CredentialStore::from_docker_config(&path)?),
        None => Ok(CredentialStore::default()),
    }
}
