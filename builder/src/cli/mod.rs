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
mod docs;
mod duration;
mod error_text;
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
/// Exit statuses are in `--help` and shared by cks-rollout and cks-upgrade-hook. Once its
/// reader closes stdout (`| head`), a command stops and exits 0 without a message.
#[derive(Debug, Parser)]
#[command(name = "cks-iso", version = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("CKS_GIT_COMMIT"), ")"), about, long_about = None)]
pub struct Cli {
    /// Log more: -v our debug logs, -vv our trace logs, -vvv every library's too.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Show no progress (the same as --progress none); warnings and errors still show.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Progress: bars on a terminal and plain lines otherwise (auto), plain lines (plain), or
    /// nothing (none).
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = progress::Mode::Auto)]
    pub progress: progress::Mode,
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
    /// Print the shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    Completions(cks_cli_docs::CompletionsArgs),
    /// Print the man page (roff) of cks-iso, or of one subcommand, to stdout.
    Man(cks_cli_docs::ManArgs),
}

pub use cks_cli_docs::catch_file_size_signal;
pub use error_text::error_text;
pub use interrupt::{Early, Interrupt};
pub use stdout::{StdoutClosed, closed as stdout_closed};

pub use docs::PAGES;

/// The clap command, for man pages and completions: the flags, and each command's examples,
/// exit statuses, environment and files, shown as written after the flags in `--help`.
pub fn command() -> clap::Command {
    cks_cli_docs::decorate(<Cli as clap::CommandFactory>::command(), PAGES)
}

/// Parses the command line as [`command`] shows it; a bad one ends the program (status 2).
pub fn parse() -> Cli {
    let matches = command().get_matches();
    <Cli as clap::FromArgMatches>::from_arg_matches(&matches).unwrap_or_else(|error| error.exit())
}

/// The exit status of a failed command: 2 when what the user gave is wrong (a missing or
/// malformed input, a bad environment value or config file), else 1.
pub fn exit_status(error: &anyhow::Error) -> i32 {
    let bad_input = cks_cli_docs::is_bad_input(error)
        || error.chain().any(|cause| {
            cause.is::<crate::pipeline::OptionsError>()
                || cause.is::<cks_pinning::kube_request::RequestError>()
        });
    if bad_input { 2 } else { 1 }
}

/// Our crates, whose logs `-v` shows.
const OUR_CRATES: [&str; 6] = [
    "cks_iso",
    "cks_builder",
    "cks_pinning",
    "cks_signature",
    "cks_cloudstack",
    "cks_ssh",
];

/// Sends `tracing` output to stderr at a level set by `-v` (or `RUST_LOG`): warnings only,
/// then our crates' debug (`-v`) and trace (`-vv`) logs, then every crate's (`-vvv`). Colours
/// only on a terminal, never with `NO_COLOR`.
pub fn init_logging(verbose: u8) {
    let filter = match verbose {
        0 => "warn".to_string(),
        1 | 2 => {
            let level = if verbose == 1 { "debug" } else { "trace" };
            let ours: Vec<String> = OUR_CRATES.iter().map(|c| format!("{c}={level}")).collect();
            format!("warn,{}", ours.join(","))
        }
        _ => "trace".to_string(),
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(filter));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(progress::colour())
        .with_writer(std::io::stderr)
        .try_init();
}

/// Applies the global flags of `cli`: logging and the progress display.
pub fn init_output(cli: &Cli) {
    init_logging(cli.verbose);
    progress::set_mode(if cli.quiet {
        progress::Mode::None
    } else {
        cli.progress
    });
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
            Command::Completions(args) => Ok(cks_cli_docs::print_completions(
                &command(),
                "cks-iso",
                &args,
            )?),
            Command::Man(args) => cks_cli_docs::print_man(&command(), "cks-iso", PAGES, &args),
            Command::Cache(args) => cache::run(args).await,
            Command::Build(_) | Command::Release(_) | Command::Pack(_) | Command::Diff(_) => Ok(()),
        }
    };
    tokio::select! {
        result = work => result,
        _ = interrupt.wait() => Err(anyhow::anyhow!("interrupted")),
    }
}
