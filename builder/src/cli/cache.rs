//! `cks-iso cache ls` and `cks-iso cache prune`: the `--cache-dir` folder of the builds, its
//! entries with their size and last use, and pruning it by size and age.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use cks_builder::cache_dir::{self, Entry, Prune};
use cks_pinning::sbom::rfc3339;

use super::duration::{self, DurationError, Units};
use crate::progress::human;

/// Flags of `cks-iso cache`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// List the entries (ISOs, image tarballs, blobs, files), least recently used first, with
    /// their size and last use.
    #[command(
        after_help = "Example: cks-iso cache ls --cache-dir /var/cache/cks-iso\n\n\
Exit codes: 0 listed, 1 the folder cannot be read, 2 bad command line."
    )]
    Ls(LsArgs),
    /// Remove the entries unused for longer than --max-age, then the least recently used until
    /// the rest fits in --max-size; never while a build uses the folder.
    #[command(
        after_help = "Example: cks-iso cache prune --cache-dir /var/cache/cks-iso --max-size 20GiB --max-age 30d\n\n\
A build holds a shared lock on CACHE_DIR/.cks-iso-cache.lock while it runs; prune takes it \
exclusively and fails at once, removing nothing, while a build holds it.\n\n\
Exit codes: 0 pruned (or nothing to prune), 1 a build uses the folder or a file cannot be \
removed, 2 bad command line."
    )]
    Prune(PruneArgs),
}

/// Flags of `cks-iso cache ls`.
#[derive(Debug, clap::Args)]
struct LsArgs {
    /// The cache folder the builds were given as --cache-dir.
    #[arg(long, value_name = "DIR")]
    cache_dir: PathBuf,
    /// Print `{"entries": [{"kind", "name", "files", "size", "last_use"}], "size"}`.
    #[arg(long)]
    json: bool,
}

/// Flags of `cks-iso cache prune`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("limit").required(true).multiple(true).args(["max_size", "max_age"])))]
struct PruneArgs {
    /// The cache folder the builds were given as --cache-dir.
    #[arg(long, value_name = "DIR")]
    cache_dir: PathBuf,
    /// The most the entries may take together, e.g. 20GiB or 500MB.
    #[arg(long, value_name = "SIZE", value_parser = cks_pinning::limits::parse_size)]
    max_size: Option<u64>,
    /// The longest an entry may go unused, e.g. 30d, 12h or 90m.
    #[arg(long, value_name = "DURATION", value_parser = parse_age)]
    max_age: Option<Duration>,
    /// Print `{"removed": [...], "kept", "kept_size"}`.
    #[arg(long)]
    json: bool,
}

/// `30d`, `12h`, `90m`, `45s` or a number of seconds.
fn parse_age(text: &str) -> Result<Duration, DurationError> {
    duration::parse(
        text,
        &Units {
            scale: duration::SMHD,
            names: "s, m, h or d",
            examples: "30d, 12h or 90m",
        },
    )
}

/// Runs `cks-iso cache`.
pub async fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Command::Ls(args) => ls(args).await,
        Command::Prune(args) => prune(args).await,
    }
}

async fn ls(args: LsArgs) -> anyhow::Result<()> {
    let dir = args.cache_dir.clone();
    let entries = tokio::task::spawn_blocking(move || cache_dir::list(&dir))
        .await
        .context("the listing stopped")??;
    let size: u64 = entries.iter().map(|e| e.size).sum();
    if args.json {
        let value = serde_json::json!({ "entries": entries, "size": size });
        outln!("{}", serde_json::to_string_pretty(&value)?)?;
        return Ok(());
    }
    outln!("{:<8} {:>10}  {:<20}  name", "kind", "size", "last use")?;
    for entry in &entries {
        outln!("{}", row(entry))?;
    }
    outln!(
        "{} entries, {} in {}",
        entries.len(),
        human(size),
        args.cache_dir.display()
    )?;
    Ok(())
}

async fn prune(args: PruneArgs) -> anyhow::Result<()> {
    let limits = Prune {
        max_size: args.max_size,
        max_age: args.max_age,
    };
    let dir = args.cache_dir.clone();
    let pruned = tokio::task::spawn_blocking(move || cache_dir::prune(&dir, &limits))
        .await
        .context("the prune stopped")??;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&pruned)?)?;
        return Ok(());
    }
    for entry in &pruned.removed {
        outln!("removed {}", row(entry))?;
    }
    let freed: u64 = pruned.removed.iter().map(|e| e.size).sum();
    outln!(
        "{} entries removed ({}); {} entries kept, {} in {}",
        pruned.removed.len(),
        human(freed),
        pruned.kept,
        human(pruned.kept_size),
        args.cache_dir.display()
    )?;
    Ok(())
}

/// One entry: kind, size, last use, name.
fn row(entry: &Entry) -> String {
    format!(
        "{:<8} {:>10}  {:<20}  {}",
        entry.kind.to_string(),
        human(entry.size),
        rfc3339(entry.last_use),
        entry.name
    )
}
