//! `cks-fleet plan|run|status|cancel|simulate`: the command line over the fleet's worker, its
//! store and the one-cluster tools. Exit status: 0 the fleet ended with no cluster failed; 1 it
//! could not run (store, CloudStack); 2 a bad command line or input value; 3 it ended halted
//! or with a failed cluster; 4 it ended cancelled; 5 a simulator invariant broke.

pub mod args;
mod docs;
mod events;
pub mod plan;
mod run;
mod status;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use events::{FleetEventLine, Sinks};

/// Why a command failed, before it becomes an exit status.
#[derive(Debug)]
pub enum Failure {
    /// A bad command line or input value (exit 2).
    Bad(String),
    /// It could not run (exit 1).
    Run(String),
}

/// A [`Failure::Bad`].
pub fn bad(text: String) -> Failure {
    Failure::Bad(text)
}

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// Every cluster done or skipped.
    Done,
    /// Halted, or a cluster failed.
    Failed,
    /// Cancelled.
    Cancelled,
    /// A simulator invariant broke.
    Invariant,
}

/// `cks-fleet`.
#[derive(Debug, Parser)]
#[command(
    name = "cks-fleet",
    version = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("CKS_GIT_COMMIT"), ")"),
    about = "Upgrade and re-set every CKS cluster of a CloudStack cloud in stages: canary first, soak, halt on failure, several workers on one store"
)]
pub struct Cli {
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List what would change per cluster, stage by stage, and what is refused and why.
    Plan {
        /// The fleet's name.
        #[arg(long, value_name = "NAME", default_value = "fleet")]
        fleet: String,
        /// What and which.
        #[command(flatten)]
        plan: Box<args::PlanArgs>,
        /// Print the plan as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Create the fleet in the store (the first worker) or join it, and work until it ends.
    Run {
        /// Where.
        #[command(flatten)]
        store: args::StoreArgs,
        /// What and which (read by the worker that creates the fleet).
        #[command(flatten)]
        plan: Box<args::PlanArgs>,
        /// How this worker acts.
        #[command(flatten)]
        worker: Box<args::WorkerArgs>,
        /// Print the summary as JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Show the fleet: each stage and each cluster.
    Status {
        /// Where.
        #[command(flatten)]
        store: args::StoreArgs,
        /// Follow it until it ends, printing each change.
        #[arg(long)]
        watch: bool,
        /// How often `--watch` reads the store.
        #[arg(long = "poll-interval", default_value = "2s", value_parser = cks_rollout::cli::duration::parse, value_name = "DURATION")]
        poll_interval: std::time::Duration,
        /// Print it as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Start no new cluster; those running reach a safe point.
    Cancel {
        /// Where.
        #[command(flatten)]
        store: args::StoreArgs,
    },
    /// Run a described fleet against the deterministic simulator.
    Simulate {
        /// The description (see fleet/examples/simulate-fleet.yaml).
        #[arg(long = "fleet-file", value_name = "FILE")]
        file: std::path::PathBuf,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print the shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    Completions(cks_cli_docs::CompletionsArgs),
    /// Print the man page (roff) of cks-fleet, or of one subcommand, to stdout.
    Man(cks_cli_docs::ManArgs),
}

pub use docs::PAGES;

/// The clap command, for man pages and completions: the flags, and each command's examples,
/// exit statuses, environment and files, shown as written after the flags in `--help`.
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    cks_cli_docs::decorate(Cli::command(), PAGES)
}

/// Runs the command line.
pub fn main() -> ExitCode {
    let matches = command().get_matches();
    let cli = <Cli as clap::FromArgMatches>::from_arg_matches(&matches)
        .unwrap_or_else(|error| error.exit());
    let ended = match cli.command {
        Command::Completions(args) => {
            cks_cli_docs::print_completions(&command(), "cks-fleet", &args)
                .map(|()| Ended::Done)
                .map_err(|e| Failure::Run(e.to_string()))
        }
        Command::Man(args) => cks_cli_docs::print_man(&command(), "cks-fleet", PAGES, &args)
            .map(|()| Ended::Done)
            .map_err(|e| Failure::Run(e.to_string())),
        Command::Plan { fleet, plan, json } => run::plan(&fleet, &plan, json),
        Command::Run {
            store,
            plan,
            worker,
            json,
        } => run::run(&store, &plan, &worker, json),
        Command::Status {
            store,
            watch,
            poll_interval,
            json,
        } => status::status(&store, watch, poll_interval, json),
        Command::Cancel { store } => status::cancel(&store),
        Command::Simulate { file, json } => run::simulate(&file, json),
    };
    match ended {
        Ok(Ended::Done) => ExitCode::SUCCESS,
        Ok(Ended::Failed) => ExitCode::from(3),
        Ok(Ended::Cancelled) => ExitCode::from(4),
        Ok(Ended::Invariant) => ExitCode::from(5),
        Err(Failure::Bad(text)) => {
            eprintln!(
                "cks-fleet: error: {}",
                cks_pinning::terminal::one_line(&text)
            );
            ExitCode::from(2)
        }
        Err(Failure::Run(text)) => {
            eprintln!(
                "cks-fleet: error: {}",
                cks_pinning::terminal::one_line(&text)
            );
            ExitCode::from(1)
        }
    }
}
