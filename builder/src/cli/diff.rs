//! `cks-iso diff`.

use std::path::PathBuf;

use anyhow::Context;
use cks_builder::inspect;

/// What `--help` adds below the flags: what is compared and the exit codes.
const EXIT_CODES: &str = "Compares two ISOs: version keys, URLs added and removed, images added, removed or with a changed digest and skipped images from their /versions.txt; files added, removed or changed by the sha256 of their bytes (every file is read); and where each versions.txt disagrees with its own ISO's files. One line per difference (`~ version kubernetes: 1.33.12 -> 1.33.13`, `+ url ...`, `- image ...`, `~ file k8s/kubelet: <sha> -> <sha>`, `! versions.txt of B disagrees with its content: ...`), or `no differences`; --json prints one JSON object.\n\nExit codes (like diff(1)): 0 the ISOs record the same content, 1 they differ, 2 trouble (an ISO cannot be read, a bad command line, or Ctrl-C).\n\nExample: cks-iso diff cks-1.33.12-x86_64.iso cks-1.33.13-x86_64.iso";

/// Flags of `cks-iso diff`.
///
/// Compares two ISOs: version keys, URLs, images and skipped images from their /versions.txt;
/// files added, removed or changed by the sha256 of their bytes (every file is read, so a copy
/// changed behind its versions.txt shows); and where each versions.txt disagrees with its own
/// ISO's files.
///
/// One line per difference: `~ version kubernetes: 1.33.12 -> 1.33.13`, `+ url ...`,
/// `- image ...`, `~ image <ref>: <digest> -> <digest>`, `~ file k8s/kubelet: <sha> -> <sha>`,
/// `! versions.txt of B disagrees with its content: <finding>`; `no differences` when there are
/// none. `--json` prints the same as one JSON object.
///
/// Exit codes, like diff(1): 0 the ISOs record the same content, 1 they differ, 2 trouble
/// (either ISO cannot be read, a bad command line, or Ctrl-C).
///
/// Example: `cks-iso diff cks-1.33.12-x86_64.iso cks-1.33.13-x86_64.iso`
#[derive(Debug, clap::Args)]
#[command(after_long_help = EXIT_CODES)]
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
pub async fn run(args: Args, interrupt: &super::interrupt::Interrupt) -> anyhow::Result<()> {
    let (a, b) = (args.a.clone(), args.b.clone());
    let step = super::progress::Step::start(&format!(
        "comparing {} with {}",
        super::progress::file_name(&a),
        super::progress::file_name(&b)
    ));
    let task = tokio::task::spawn_blocking(move || inspect::diff(&a, &b));
    let compared = tokio::select! {
        joined = task => joined.context("the diff task stopped").and_then(|result| {
            result.with_context(|| {
                format!("comparing {} with {}", args.a.display(), args.b.display())
            })
        }),
        _ = interrupt.wait() => Err(anyhow::anyhow!("interrupted")),
    };
    drop(step);
    let diff = match compared {
        Ok(diff) => diff,
        Err(error) => {
            // Exit 2, not the 1 other commands use: 1 means "they differ" here.
            eprintln!("cks-iso: error: {}", super::error_text(&error));
            std::process::exit(2);
        }
    };
    if args.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&diff).context("rendering the differences as JSON")?
        )?;
    } else if diff.is_empty() {
        outln!("no differences")?;
    } else {
        out!("{diff}")?;
    }
    if !diff.is_empty() {
        std::process::exit(1);
    }
    Ok(())
}
