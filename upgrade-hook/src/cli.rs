//! The `cks-upgrade-hook` command line: refreshes the cluster autoscaler and the cloud controller
//! manager on a CKS cluster's first control node after an upgrade, or prints the command that
//! would redeploy the autoscaler. It lives in the library so the packaging renders its man page
//! and shell completions from [`command`].

use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, CommandFactory, Parser, Subcommand};

use cks_upgrade_hook::command::{self, AutoscaleBounds, ClusterId};
use cks_upgrade_hook::redeploy_cli::{LayoutArgs, Parts, RedeployArgs, redeploy};

/// Preloads a new ISO's images on a CKS cluster's nodes, upgrades the cluster, and refreshes
/// what the new ISO carries after an upgrade: the cluster autoscaler and the cloud controller
/// manager.
///
/// The nodes and the autoscaling settings are found from --cluster-id through CloudStack
/// (CLOUDSTACK_ENDPOINT, CLOUDSTACK_KEY, CLOUDSTACK_SECRET, or CLOUDSTACK_CONFIG); --host,
/// --port, --min, --max and --disabled override what CloudStack says.
#[derive(Debug, Parser)]
#[command(name = "cks-upgrade-hook", version = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("CKS_GIT_COMMIT"), ")"))]
struct Cli {
    #[command(subcommand)]
    command: Commands,
}

#[derive(Debug, Subcommand)]
enum Commands {
    /// Refreshes the cloud controller manager and, when autoscaling is enabled, the autoscaler.
    Redeploy(RedeployArgs),
    /// Runs the autoscaler redeploy over SSH on the first control node and prints the outcome.
    RedeployAutoscaler(RedeployArgs),
    /// Applies the new ISO's provider.yaml left on the first control node and confirms the
    /// cloud controller manager's rollout.
    RedeployProvider(RedeployArgs),
    /// Before an upgrade, sends every node the new ISO's images it lacks and imports them, once
    /// the ISO's sha256 is the checksum CloudStack holds for --to VERSION (or --sha256 HEX) and
    /// verify finds nothing wrong with it.
    Preload(cks_upgrade_hook::preload_cli::PreloadArgs),
    /// Upgrades the cluster: refuses unless it is Running and the version is Ready and newer,
    /// preloads the new images on every node (unless --no-preload), calls
    /// upgradeKubernetesCluster, follows its job, then refreshes the cloud controller manager
    /// and the autoscaler.
    Upgrade(Box<cks_upgrade_hook::upgrade_cli::UpgradeArgs>),
    /// Prints the autoscale-kube-cluster command, quoted for the node's shell.
    Command(CommandArgs),
    /// Prints the shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    Completions(cks_cli_docs::CompletionsArgs),
    /// Prints the man page (roff) of cks-upgrade-hook, or of one subcommand, to stdout.
    Man(cks_cli_docs::ManArgs),
}

#[derive(Debug, Args)]
struct CommandArgs {
    /// The cluster's UUID.
    #[arg(long, value_name = "UUID", required_unless_present = "disable")]
    cluster_id: Option<String>,
    /// The autoscaling minimum size (at least 1).
    #[arg(long, value_name = "N", required_unless_present = "disable")]
    min: Option<u32>,
    /// The autoscaling maximum size (at least --min).
    #[arg(long, value_name = "M", required_unless_present = "disable")]
    max: Option<u32>,
    /// Print the command for a cluster with autoscaling disabled instead (`--disable` is the
    /// same, the name it had before; `--disabled` as redeploy's override says it).
    #[arg(long = "disabled", alias = "disable", conflicts_with_all = ["cluster_id", "min", "max"])]
    disable: bool,
    #[command(flatten)]
    layout: LayoutArgs,
}

pub use crate::docs::PAGES;

/// The clap command, for man pages and completions: the flags, and each command's examples,
/// exit statuses, environment and files, shown as written after the flags in `--help`.
pub fn command() -> clap::Command {
    cks_cli_docs::decorate(Cli::command(), PAGES)
}

/// Parses the command line and runs it.
pub fn main() -> ExitCode {
    // A write past `ulimit -f` is then an error (EFBIG), not a silent death.
    if let Err(error) = cks_cli_docs::catch_file_size_signal() {
        tracing::debug!("SIGXFSZ not caught: {error}");
    }
    let matches = command().get_matches();
    let cli = <Cli as clap::FromArgMatches>::from_arg_matches(&matches)
        .unwrap_or_else(|error| error.exit());
    let warnings = match &cli.command {
        Commands::Redeploy(args)
        | Commands::RedeployAutoscaler(args)
        | Commands::RedeployProvider(args) => args.duration_warnings(),
        Commands::Upgrade(args) => args.duration_warnings(),
        Commands::Preload(args) => args.duration_warnings(),
        _ => Vec::new(),
    };
    for warning in warnings {
        cks_upgrade_hook::say::err(&format!("cks-upgrade-hook: warning: {warning}"));
    }
    let result = match cli.command {
        Commands::Completions(args) => {
            cks_cli_docs::print_completions(&command(), "cks-upgrade-hook", &args)
                .map(|()| ExitCode::SUCCESS)
                .map_err(anyhow::Error::from)
        }
        Commands::Man(args) => {
            cks_cli_docs::print_man(&command(), "cks-upgrade-hook", PAGES, &args)
                .map(|()| ExitCode::SUCCESS)
        }
        Commands::Command(args) => print_command(&args).map(|()| ExitCode::SUCCESS),
        Commands::Redeploy(args) => redeploy(&args, Parts::Both),
        Commands::RedeployAutoscaler(args) => redeploy(&args, Parts::Autoscaler),
        Commands::RedeployProvider(args) => redeploy(&args, Parts::Provider),
        Commands::Upgrade(args) => cks_upgrade_hook::upgrade_cli::check(&args)
            .and_then(|()| cks_upgrade_hook::upgrade_cli::run(&args)),
        Commands::Preload(args) => cks_upgrade_hook::preload_cli::run(&args).map(|ok| {
            if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }),
    };
    result.unwrap_or_else(|error| {
        cks_upgrade_hook::say::err(&format!("cks-upgrade-hook: error: {error:#}"));
        ExitCode::from(exit_status(&error))
    })
}

/// The exit status of an error: 2 for bad input (a flag's value, or what cannot be found,
/// named with the flag that supplies it; an ISO refused), 1 for a failure (CloudStack, the
/// Kubernetes API or a node could not be reached or answered an error).
pub fn exit_status(error: &anyhow::Error) -> u8 {
    use cks_discovery::DiscoveryError;
    use cks_upgrade_hook::preload::checked_iso::CheckError;
    use cks_upgrade_hook::target::TargetError;
    let failure = |d: &DiscoveryError| {
        matches!(
            d,
            DiscoveryError::CloudStack { .. }
                | DiscoveryError::TempFile(_)
                | DiscoveryError::Nodes { .. }
        )
    };
    if cks_cli_docs::is_bad_input(error) {
        return 2;
    }
    for cause in error.chain() {
        let bad = if let Some(t) = cause.downcast_ref::<TargetError>() {
            !matches!(t, TargetError::Discovery(d) if failure(d))
        } else if let Some(d) = cause.downcast_ref::<DiscoveryError>() {
            !failure(d)
        } else if let Some(c) = cause.downcast_ref::<CheckError>() {
            !matches!(c, CheckError::CloudStack { .. })
        } else {
            cause.is::<cks_upgrade_hook::command::CommandError>()
                || cause.is::<cks_upgrade_hook::hook::RolloutTimeoutError>()
                || cause.is::<cks_upgrade_hook::upgrade::Refusal>()
        };
        if bad {
            return 2;
        }
    }
    1
}

fn print_command(args: &CommandArgs) -> Result<()> {
    let layout = args.layout.layout()?;
    let command = if args.disable {
        command::disable(&layout)
    } else {
        let (Some(id), Some(min), Some(max)) = (&args.cluster_id, args.min, args.max) else {
            bail!("--cluster-id, --min and --max are required unless --disable is given");
        };
        let id = ClusterId::parse(id).context("checking --cluster-id")?;
        let bounds = AutoscaleBounds::new(min, max).context("checking --min and --max")?;
        command::enable(&layout, &id, bounds)
    };
    cks_upgrade_hook::say::out(&format!("{command}"));
    Ok(())
}
