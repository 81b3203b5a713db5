//! `cks-iso pack`.

use std::path::PathBuf;

use anyhow::Context;
use cks_builder::iso::{self, BuildTime, PackOptions, PackWarning, TimeSource};

/// Flags of `cks-iso pack`.
///
/// Packs DIR exactly as a build packs its tree: Rock Ridge (full names, modes, symlinks), Joliet,
/// ISO level 3 (files of 4 GiB and more), owner 0:0, every time set to SOURCE_DATE_EPOCH when it
/// is set (else the start time, printed). Writes OUT.iso.partial, renames it to OUT.iso, and
/// writes OUT.iso.sha256 in sha256sum format.
///
/// Example: `SOURCE_DATE_EPOCH=1700000000 cks-iso pack ./tree cks-1.33.13-x86_64.iso`
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Volume identifier (1-32 of A-Z, 0-9, _); nodes find the ISO with `blkid -t LABEL=CDROM`.
    #[arg(long, value_name = "ID", default_value = iso::DEFAULT_VOLUME_ID)]
    pub volume_id: String,
    /// Write no Joliet tree (Rock Ridge only).
    #[arg(long)]
    pub no_joliet: bool,
    /// The directory to pack.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The image to write, such as `cks.iso`.
    #[arg(value_name = "OUT.iso")]
    pub out: PathBuf,
}

/// Runs `cks-iso pack`.
pub async fn run(args: Args, interrupt: &super::interrupt::Interrupt) -> anyhow::Result<()> {
    let time = BuildTime::from_env().context("reading SOURCE_DATE_EPOCH")?;
    let mut options = PackOptions::new(&args.volume_id, time).context("checking --volume-id")?;
    if args.no_joliet {
        options = options.without_joliet();
    }
    let (dir, out) = (args.dir.clone(), args.out.clone());
    let step = super::progress::Step::start(&format!(
        "packing {} into {}",
        args.dir.display(),
        super::progress::file_name(&out)
    ));
    let task = tokio::task::spawn_blocking(move || iso::pack(&dir, &out, &options));
    let packed = tokio::select! {
        result = task => result.context("the packing task stopped")?,
        _ = interrupt.wait() => {
            let partial = iso::partial_path(&args.out);
            let _ = std::fs::remove_file(&partial);
            anyhow::bail!("interrupted; removed {}", partial.display());
        }
    }
    .with_context(|| format!("packing {} into {}", args.dir.display(), args.out.display()))?;
    drop(step);
    let changed = packed
        .warnings
        .iter()
        .filter(|w| matches!(w, PackWarning::JolietNameChanged { .. }))
        .count();
    for warning in &packed.warnings {
        if !matches!(warning, PackWarning::JolietNameChanged { .. }) {
            eprintln!("warning: {warning}");
        }
    }
    if changed > 0 {
        eprintln!(
            "note: {changed} Joliet names have forbidden characters (such as :) replaced by _; \
             Rock Ridge keeps the full names"
        );
    }
    if packed.time.source == TimeSource::BuildStart {
        eprintln!(
            "note: SOURCE_DATE_EPOCH is not set; entries are dated {} (the build's start)",
            packed.time.unix_seconds
        );
    }
    outln!("{}", packed.path.display())?;
    outln!("size: {} bytes", packed.size)?;
    outln!("sha256: {}", packed.sha256)?;
    Ok(())
}
