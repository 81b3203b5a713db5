//! `cks-iso resolve`: which autoscaler release and CCM tag a build for a Kubernetes version uses.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Context;
use cks_pinning::autoscaler::{self, RemoteTags};
use cks_pinning::ccm;
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
    #[arg(long, value_name = "VERSION", value_parser = parse_kube_version)]
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
    /// Print one JSON object instead of `key: value` lines.
    #[arg(long)]
    json: bool,
}

fn parse_kube_version(text: &str) -> Result<KubeVersion, String> {
    KubeVersion::parse(text).map_err(|error| error.to_string())
}

/// An empty environment variable means "not set".
fn non_empty(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.trim().is_empty())
}

/// What `cks-iso resolve` prints, in this order.
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
struct Resolved {
    kubernetes: String,
    autoscaler_tag: String,
    autoscaler_version: String,
    autoscaler_commit: String,
    autoscaler_image: String,
    ccm_tag: String,
    ccm_image: String,
    warnings: Vec<String>,
}

impl Resolved {
    /// One `key: value` a line (warnings are printed on stderr instead).
    fn lines(&self) -> String {
        let fields = [
            ("kubernetes", &self.kubernetes),
            ("autoscaler-tag", &self.autoscaler_tag),
            ("autoscaler-version", &self.autoscaler_version),
            ("autoscaler-commit", &self.autoscaler_commit),
            ("autoscaler-image", &self.autoscaler_image),
            ("ccm-tag", &self.ccm_tag),
            ("ccm-image", &self.ccm_image),
        ];
        let mut text = String::new();
        for (key, value) in fields {
            let _ = writeln!(text, "{key}: {value}");
        }
        text
    }
}

/// Runs `cks-iso resolve`.
pub async fn run(args: Args) -> anyhow::Result<()> {
    let (listing, source) = match (&args.autoscaler_refs, &args.autoscaler_repo) {
        (Some(path), _) => {
            let text = std::fs::read_to_string(path).with_context(|| {
                format!("reading the autoscaler tag listing {}", path.display())
            })?;
            (text, path.display().to_string())
        }
        (None, Some(url)) => {
            let text = cks_builder::git::ls_remote_tags(url)
                .await
                .with_context(|| format!("listing the tags of the autoscaler repository {url}"))?;
            (text, url.clone())
        }
        (None, None) => anyhow::bail!("give --autoscaler-refs FILE or --autoscaler-repo URL"),
    };
    let tags = RemoteTags::parse(&listing)
        .with_context(|| format!("reading the autoscaler tag listing {source}"))?;
    let kubernetes = args.kubernetes_version;
    let release = autoscaler::resolve(
        &tags,
        &kubernetes,
        non_empty(args.autoscaler_version).as_deref(),
    )
    .with_context(|| format!("choosing the cluster-autoscaler release from {source}"))?;
    let ccm =
        ccm::pin(non_empty(args.ccm_version).as_deref()).context("choosing the CCM release")?;
    let autoscaler_image = release
        .image()
        .context("naming the cluster-autoscaler image")?;

    for warning in &release.warnings {
        eprintln!("cks-iso: warning: {warning}");
    }
    let resolved = Resolved {
        kubernetes: kubernetes.to_string(),
        autoscaler_tag: release.tag.clone(),
        autoscaler_version: release.version.clone(),
        autoscaler_commit: release.commit.clone(),
        autoscaler_image: autoscaler_image.to_string(),
        ccm_tag: ccm.tag.clone(),
        ccm_image: ccm.image.to_string(),
        warnings: release.warnings.iter().map(ToString::to_string).collect(),
    };
    let out = if args.json {
        let mut text = serde_json::to_string_pretty(&resolved).context("rendering JSON")?;
        text.push('\n');
        text
    } else {
        resolved.lines()
    };
    print!("{out}");
    Ok(())
}
