//! `cks-iso resolve`: which autoscaler release and CCM tag a build for a Kubernetes version uses,
//! chosen by the same code as the plan of `cks-iso build`.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Context;
use cks_builder::fetch::{Mirror, Mirrors};
use cks_builder::pace::MinRate;
use cks_builder::pipeline::{Reach, Releases, TagSource, resolve_releases};
use cks_pinning::image::ImageRef;
use cks_pinning::version::KubeVersion;

/// Flags of `cks-iso resolve`.
///
/// Prints one `key: value` a line (or, with `--json`, one JSON object with the same keys and a
/// `warnings` list); warnings go to stderr. Keys: `kubernetes` (the version, without `v`),
/// `autoscaler-tag` (e.g. `cluster-autoscaler-1.33.6`), `autoscaler-version`,
/// `autoscaler-commit` (the commit the tag points to, peeled for an annotated tag),
/// `autoscaler-image`, `ccm-tag` and `ccm-image`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Output keys: kubernetes, autoscaler-tag, autoscaler-version, autoscaler-commit, autoscaler-image, ccm-tag, ccm-image (JSON adds `warnings`).\nExit codes: 0 resolved, 1 nothing suitable (the message says what to set), 2 bad command line."
)]
pub struct Args {
    /// The Kubernetes version to build for, `1.33.13` or `v1.33.13`.
    #[arg(long, value_name = "VERSION", value_parser = KubeVersion::parse)]
    kubernetes_version: KubeVersion,
    /// Pick this cluster-autoscaler release (`1.33.4` or `v1.33.4`) instead of the newest one
    /// for the Kubernetes minor.
    #[arg(long, value_name = "VERSION", env = "AUTOSCALER_VERSION")]
    autoscaler_version: Option<String>,
    /// Pin this CCM release (`1.3.0-rc1` means `v1.3.0-rc1`) instead of the default `v1.2.0`.
    #[arg(long, value_name = "VERSION", env = "CCM_VERSION")]
    ccm_version: Option<String>,
    /// Read the autoscaler repository's tags from this file, as `git ls-remote --tags` prints them.
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "autoscaler_repo",
        conflicts_with = "autoscaler_repo"
    )]
    autoscaler_refs: Option<PathBuf>,
    /// List the tags of this autoscaler repository (URL or local path).
    #[arg(long, value_name = "URL")]
    autoscaler_repo: Option<String>,
    /// Base-URL rewrite for the repository, as `cks-iso build --mirror` takes it (repeatable),
    /// e.g. `https://github.com/kubernetes/autoscaler.git=http://mirror/autoscaler.git`.
    #[arg(long = "mirror", value_name = "UPSTREAM=MIRROR")]
    mirrors: Vec<String>,
    /// End a transfer (the tag listing) that brings fewer than BYTES
    /// in WINDOW seconds, as a server dripping a byte at a time does; a slower link needs a
    /// lower rule, `0` turns it off [default: 60KiB/60s, about 1 KiB/s].
    #[arg(
        long,
        value_name = "BYTES/WINDOW",
        default_value = "60KiB/60s",
        hide_default_value = true
    )]
    min_rate: MinRate,
    /// Print one JSON object instead of `key: value` lines.
    #[arg(long)]
    json: bool,
}

/// An empty environment variable means "not set".
fn non_empty(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.trim().is_empty())
}

/// One `key: value` a line, in this order (warnings are printed on stderr instead).
fn lines(kubernetes: &KubeVersion, releases: &Releases) -> String {
    let fields = [
        ("kubernetes", kubernetes.to_string()),
        ("autoscaler-tag", releases.autoscaler.tag.clone()),
        ("autoscaler-version", releases.autoscaler.version.clone()),
        ("autoscaler-commit", releases.autoscaler.commit.clone()),
        ("autoscaler-image", releases.autoscaler.image.to_string()),
        ("ccm-tag", releases.ccm.tag.clone()),
        ("ccm-image", releases.ccm.image.to_string()),
    ];
    let mut text = String::new();
    for (key, value) in fields {
        let _ = writeln!(text, "{key}: {value}");
    }
    text
}

/// The same keys as one JSON object, in the same order, with the warnings.
#[derive(serde::Serialize)]
#[serde(rename_all = "snake_case")]
struct Json<'a> {
    kubernetes: String,
    autoscaler_tag: &'a str,
    autoscaler_version: &'a str,
    autoscaler_commit: &'a str,
    autoscaler_image: &'a ImageRef,
    ccm_tag: &'a str,
    ccm_image: &'a ImageRef,
    warnings: &'a [String],
}

fn json<'a>(kubernetes: &KubeVersion, releases: &'a Releases) -> Json<'a> {
    Json {
        kubernetes: kubernetes.to_string(),
        autoscaler_tag: &releases.autoscaler.tag,
        autoscaler_version: &releases.autoscaler.version,
        autoscaler_commit: &releases.autoscaler.commit,
        autoscaler_image: &releases.autoscaler.image,
        ccm_tag: &releases.ccm.tag,
        ccm_image: &releases.ccm.image,
        warnings: &releases.warnings,
    }
}

/// Runs `cks-iso resolve`.
pub async fn run(args: Args) -> anyhow::Result<()> {
    let tags = match (&args.autoscaler_refs, &args.autoscaler_repo) {
        (Some(path), _) => TagSource::Listing {
            text: std::fs::read_to_string(path).with_context(|| {
                format!("reading the autoscaler tag listing {}", path.display())
            })?,
            source: path.display().to_string(),
        },
        (None, Some(url)) => TagSource::Repository(url.clone()),
        (None, None) => anyhow::bail!("give --autoscaler-refs FILE or --autoscaler-repo URL"),
    };
    let mirrors = args
        .mirrors
        .iter()
        .map(|m| m.parse::<Mirror>().with_context(|| format!("--mirror {m}")))
        .collect::<anyhow::Result<Mirrors>>()?;
    let mut reach = Reach {
        mirrors,
        ..Reach::default()
    };
    reach.client.min_rate = args.min_rate;
    let kubernetes = args.kubernetes_version;
    let releases = resolve_releases(
        &kubernetes,
        &tags,
        &reach,
        non_empty(args.autoscaler_version).as_deref(),
        non_empty(args.ccm_version).as_deref(),
    )
    .await?;
    for warning in &releases.warnings {
        eprintln!("cks-iso: warning: {warning}");
    }
    let out = if args.json {
        let mut text = serde_json::to_string_pretty(&json(&kubernetes, &releases))
            .context("rendering JSON")?;
        text.push('\n');
        text
    } else {
        lines(&kubernetes, &releases)
    };
    out!("{out}")?;
    Ok(())
}
