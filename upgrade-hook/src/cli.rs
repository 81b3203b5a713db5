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
///
/// Exit status of redeploy, redeploy-autoscaler and redeploy-provider: 0 when everything was
/// refreshed or there was nothing to refresh, and also when a refresh failed (the failure is
/// printed as a warning) unless --strict is given; 1 when a refresh failed and --strict is
/// given; 2 for bad arguments or what cannot be found. preload and upgrade give theirs in their
/// --help.
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
    ///
    /// Exit status: 0 when every node holds every image, 1 when a node failed (run again to
    /// finish: nodes already complete are skipped, a copy cut off is resumed), 2 for bad
    /// arguments, what cannot be found, or an ISO refused (nothing was sent).
    Preload(cks_upgrade_hook::preload_cli::PreloadArgs),
    /// Upgrades the cluster: refuses unless it is Running and the version is Ready and newer,
    /// preloads the new images on every node (unless --no-preload), calls
    /// upgradeKubernetesCluster, follows its job, then refreshes the cloud controller manager
    /// and the autoscaler.
    ///
    /// Exit status: 0 upgraded (a failed refresh afterwards is a warning unless --strict);
    /// 1 the upgrade failed (CloudStack's error and the cluster's state are printed) or, with
    /// --strict, a refresh failed; 2 bad arguments or what cannot be found; 3 refused before
    /// the upgrade (the cluster not Running, the version unknown, not Ready or not newer, or
    /// --iso not the ISO CloudStack holds the checksum of for it, or failing verify);
    /// 4 the preload failed on a node (the upgrade was not started).
    Upgrade(Box<cks_upgrade_hook::upgrade_cli::UpgradeArgs>),
    /// Prints the autoscale-kube-cluster command, quoted for the node's shell.
    Command(CommandArgs),
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
    /// Print the command that disables autoscaling instead.
    #[arg(long, conflicts_with_all = ["cluster_id", "min", "max"])]
    disable: bool,
    #[command(flatten)]
    layout: LayoutArgs,
}

/// The clap command, for man pages and completions.
pub fn command() -> clap::Command {
    Cli::command()
}

/// Parses the command line and runs it.
pub fn main() -> ExitCode {
    // A write past `ulimit -f` is then an error (EFBIG), not a silent death.
    if let Err(error) = cks_builder::cli::catch_file_size_signal() {
        tracing::debug!("SIGXFSZ not caught: {error}");
    }
    let cli = Cli::parse();
    let result = match cli.command {
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
        ExitCode::from(2)
    })
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
