//! `cks-iso diff`.

use std::path::PathBuf;

use anyhow::Context;
use cks_builder::inspect;

/// Flags of `cks-iso diff`.
///
/// Compares two ISOs by their /versions.txt: version keys, URLs added and removed, images added,
/// removed or with a changed digest, skipped images, and files added, removed or changed (by the
/// recorded sha256; an ISO without versions.txt has its files hashed instead).
///
/// One line per difference: `~ version kubernetes: 1.33.12 -> 1.33.13`, `+ url ...`,
/// `- image ...`, `~ image <ref>: <digest> -> <digest>`, `~ file k8s/kubelet: <sha> -> <sha>`;
/// `no differences` when there are none. `--json` prints the same as one JSON object.
///
/// Exit codes: 0 when both ISOs were read, whether or not they differ (test the output, or
/// `--json`'s lists, to tell); 1 when either cannot be read; 2 bad command line.
///
/// Example: `cks-iso diff cks-1.33.12-x86_64.iso cks-1.33.13-x86_64.iso`
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print the differences as JSON.
    #[arg(long)]
    pub json: bool,
    /// The first (older) image.
    #[arg(value_name = "A.iso")]
    pub a: PathBuf,
    /// The second (newer) image.
    #[arg(value_name = "B.iso")]
    pub b: PathBuf,
}

/// Runs `cks-iso diff`.
pub async fn run(args: Args) -> anyhow::Result<()> {
    let (a, b) = (args.a.clone(), args.b.clone());
    let diff = tokio::task::spawn_blocking(move || inspect::diff(&a, &b))
        .await
        .context("the diff task stopped")?
        .with_context(|| format!("comparing {} with {}", args.a.display(), args.b.display()))?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&diff).context("rendering the differences as JSON")?
        );
    } else if diff.is_empty() {
        println!("no differences");
    } else {
        print!("{diff}");
    }
    Ok(())
}
