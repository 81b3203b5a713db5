//! `cks-iso show`.

use std::path::PathBuf;

use anyhow::Context;
use cks_builder::inspect;

/// Flags of `cks-iso show`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Reads the image itself, never mounting it (as `skopeo inspect` reads an image); \
checks nothing (see `cks-iso verify`).\n\nExample: cks-iso show cks-1.33.13-x86_64.iso\n\n\
Exit codes: 0 shown, 1 the ISO or its versions.txt cannot be read, 2 bad command line."
)]
pub struct Args {
    /// Print `{"iso", "volume_id", "versions_txt", "sbom": {"creators", "components", "images"}}`.
    #[arg(long)]
    pub json: bool,
    /// The ISO, such as `cks-1.33.13-x86_64.iso`.
    #[arg(value_name = "ISO")]
    pub iso: PathBuf,
}

/// Runs `cks-iso show`.
pub async fn run(args: Args) -> anyhow::Result<()> {
    let iso = args.iso.clone();
    let shown = tokio::task::spawn_blocking(move || inspect::show(&iso))
        .await
        .context("the show task stopped")?
        .with_context(|| format!("reading {}", args.iso.display()))?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&shown)?)?;
    } else {
        out!("{shown}")?;
    }
    Ok(())
}
