//! The `cks-iso` subcommands: one file each, parsing flags into a value and calling the library.
//! It lives in the library so the packaging renders its man page and completions from [`command`].

use clap::{Parser, Subcommand};

/// `print!` to stdout; a closed stdout is [`stdout::StdoutClosed`], the quiet exit.
macro_rules! out {
    ($($arg:tt)*) => { $crate::cli::stdout::write(format_args!($($arg)*)) };
}

/// `println!` to stdout; a closed stdout is [`stdout::StdoutClosed`], the quiet exit.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::stdout::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

mod build;
mod build_args;
mod cache;
mod catalog;
mod diff;
mod error_text;
mod file_size;
mod interrupt;
mod keygen;
mod pack;
pub(crate) mod progress;
mod pull;
mod register;
mod register_args;
mod register_catalog;
mod release;
mod release_args;
mod release_table;
mod resolve;
mod show;
mod stdout;
mod verify;

/// Builds and checks the binaries ISO of Apache CloudStack's Kubernetes Service (CKS).
///
/// Exit codes: 0 success, 1 the work failed (the message says why), 2 bad command line. Once
/// its reader closes stdout (`| head`), a command stops and exits 0 without a message.
#[derive(Debug, Parser)]
#[command(name = "cks-iso", version = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("CKS_GIT_COMMIT"), ")"), about, long_about = None)]
pub struct Cli {
    /// Log more (repeat for debug output).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Build the ISO: the script's arguments or named flags (see `cks-iso build --help`).
    Build(Box<build_args::BuildArgs>),
    /// Build the newest patch of each of the newest (or named) minors, for each arch.
    Release(Box<release::Args>),
    /// Resolve the autoscaler release tag and the CCM tag for a Kubernetes version.
    Resolve(resolve::Args),
    /// Pull images by digest into tarballs that `ctr -n k8s.io image import` accepts.
    Pull(pull::Args),
    /// Pack a directory into an ISO 9660 image (Rock Ridge, Joliet), as a build does.
    Pack(pack::Args),
    /// Check an ISO against its versions.txt and the CKS node contract.
    Verify(verify::Args),
    /// Print an ISO's versions.txt and its SBOM in brief, read without mounting it.
    Show(show::Args),
    /// Compare two ISOs: versions, URLs, images and digests, files.
    Diff(diff::Args),
    /// Register an ISO (or a catalog's ISOs, per zone) in CloudStack as Kubernetes supported versions.
    Register(register_args::Args),
    /// Write catalog.json and a SHA256SUMS-X.Y per minor from the ISOs in a folder.
    Catalog(catalog::Args),
    /// List or prune the --cache-dir folder of the builds (entries, sizes, last use).
    Cache(cache::Args),
    /// Write an ECDSA P-256 key pair for --sign-key (PREFIX.key) and verifiers (PREFIX.pub).
    Keygen(keygen::Args),
}

pub use error_text::error_text;
pub use file_size::catch_file_size_signal;
pub use interrupt::{Early, Interrupt};
pub use stdout::{StdoutClosed, closed as stdout_closed};

/// The clap command, for man pages and completions.
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

/// Sends `tracing` output to stderr at a level set by `-v` (or `RUST_LOG`).
pub fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

/// Runs the chosen subcommand. `build` and `pack` stop on `interrupt` removing what they
/// wrote, `diff` exits 2 as for any trouble; the others simply stop.
pub async fn run(cli: Cli, interrupt: Interrupt) -> anyhow::Result<()> {
    let other = match cli.command {
        Command::Build(args) => return build::run(*args, &interrupt).await,
        Command::Release(args) => return release::run(*args, &interrupt).await,
        Command::Pack(args) => return pack::run(args, &interrupt).await,
        Command::Diff(args) => return diff::run(args, &interrupt).await,
        other => other,
    };
    let work = async move {
        match other {
            Command::Resolve(args) => resolve::run(args).await,
            Command::Pull(args) => pull::run(args).await,
            Command::Verify(args) => verify::run(args).await,
            Command::Show(args) => show::run(args).await,
            Command::Register(args) => register::run(args).await,
            Command::Catalog(args) => catalog::run(args).await,
            Command::Keygen(args) => keygen::run(args),
            Command::Cache(args) => cache::run(args).await,
            Command::Build(_) | Command::Release(_) | Command::Pack(_) | Command::Diff(_) => Ok(()),
        }
    };
    tokio::select! {
        result = work => result,
        _ = interrupt.wait() => Err(anyhow::anyhow!("interrupted")),
    }
}
