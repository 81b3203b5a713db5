//! The `cks-upgrade-hook` command line: redeploys the cluster autoscaler on a CKS cluster's first
//! control node after an upgrade, or prints the command that would do it. It lives in the library
//! so the packaging renders its man page and shell completions from [`command`].

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::{Args, CommandFactory, Parser, Subcommand};

use cks_upgrade_hook::command::{self, AutoscaleBounds, ClusterId, DEFAULT_SCRIPT_DIR, NodeLayout};
use cks_upgrade_hook::hook::rollout_timeout_within;
use cks_upgrade_hook::ssh::{Fingerprint, HostKeyPolicy, NodeAddress, SshConfig, SshRunner};
use cks_upgrade_hook::{Outcome, UpgradedCluster, redeploy_after_upgrade};

/// Redeploys the cluster autoscaler from the new ISO after a CKS cluster upgrade.
///
/// Exit status: 0 when the autoscaler was redeployed or there was nothing to redeploy, and also
/// when the redeploy failed (the failure is printed as a warning) unless --strict is given;
/// 1 when the redeploy failed and --strict is given; 2 for bad arguments.
#[derive(Debug, Parser)]
#[command(name = "cks-upgrade-hook", version = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("CKS_GIT_COMMIT"), ")"))]
struct Cli {
    #[command(subcommand)]
    command: Commands,
}

#[derive(Debug, Subcommand)]
enum Commands {
    /// Runs the redeploy over SSH on the first control node and prints the outcome.
    RedeployAutoscaler(RedeployArgs),
    /// Prints the autoscale-kube-cluster command, quoted for the node's shell.
    Command(CommandArgs),
}

#[derive(Debug, Args)]
struct LayoutArgs {
    /// The directory on the node holding autoscale-kube-cluster and kubectl.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_SCRIPT_DIR)]
    script_dir: String,
    /// Run the scripts directly instead of through sudo.
    #[arg(long)]
    no_sudo: bool,
}

impl LayoutArgs {
    fn layout(&self) -> Result<NodeLayout> {
        NodeLayout::new(&self.script_dir, !self.no_sudo).context("checking --script-dir")
    }
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

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("host_key").required(true)
    .args(["known_hosts", "host_key_fingerprint", "insecure_host_key"])))]
struct RedeployArgs {
    /// The cluster's UUID.
    #[arg(long, value_name = "UUID")]
    cluster_id: String,
    /// The cluster's autoscaling minimum size; unset skips the redeploy.
    #[arg(long, value_name = "N")]
    min: Option<u32>,
    /// The cluster's autoscaling maximum size; unset skips the redeploy.
    #[arg(long, value_name = "M")]
    max: Option<u32>,
    /// Autoscaling is disabled on the cluster: nothing to redeploy.
    #[arg(long)]
    disabled: bool,
    /// The cluster's public address (behind NAT), or the node's private address with --direct.
    #[arg(long, value_name = "H")]
    host: String,
    /// The SSH port forwarded to the first control node on the public address.
    #[arg(long, default_value_t = cks_upgrade_hook::ssh::address::NAT_SSH_PORT)]
    port: u16,
    /// A direct-access network: connect to --host (the private address) on port 22.
    #[arg(long, conflicts_with = "port")]
    direct: bool,
    /// The login user (CKS uses `cloud`).
    #[arg(long, value_name = "U")]
    user: String,
    /// The private key file (never printed).
    #[arg(long, value_name = "FILE")]
    key: PathBuf,
    /// Trust exactly the host keys in this known_hosts file.
    #[arg(long, value_name = "FILE")]
    known_hosts: Option<PathBuf>,
    /// Trust the one host key with this fingerprint (`ssh-keygen -l` on the node prints it).
    #[arg(long, value_name = "SHA256:...")]
    host_key_fingerprint: Option<String>,
    /// Accept any host key. Anyone on the network path can then impersonate the node.
    #[arg(long)]
    insecure_host_key: bool,
    #[command(flatten)]
    layout: LayoutArgs,
    /// Seconds each remote command may run before it is stopped.
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    timeout: u64,
    /// Seconds the SSH connection may take.
    #[arg(long, value_name = "SECONDS", default_value_t = 10)]
    connect_timeout: u64,
    /// Seconds `kubectl rollout status` waits for the new autoscaler, less than --timeout
    /// [default: 120, or less to fit inside --timeout with a tenth of it to spare].
    #[arg(long, value_name = "SECONDS")]
    rollout_timeout: Option<u64>,
    /// Print the outcome as JSON.
    #[arg(long)]
    json: bool,
    /// Exit 1 when the redeploy failed.
    #[arg(long)]
    strict: bool,
}

/// The clap command, for man pages and completions.
pub fn command() -> clap::Command {
    Cli::command()
}

/// Parses the command line and runs it.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Commands::Command(args) => print_command(&args).map(|()| ExitCode::SUCCESS),
        Commands::RedeployAutoscaler(args) => redeploy(&args),
    };
    result.unwrap_or_else(|error| {
        eprintln!("error: {error:#}");
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
    println!("{command}");
    Ok(())
}

fn redeploy(args: &RedeployArgs) -> Result<ExitCode> {
    let cluster = cluster(args)?;
    let runner = SshRunner::new(ssh_config(args)?);
    let outcome = redeploy_after_upgrade(&cluster, &runner);
    render(&outcome, args.json)?;
    Ok(if outcome.is_failed() && args.strict {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn cluster(args: &RedeployArgs) -> Result<UpgradedCluster> {
    ClusterId::parse(&args.cluster_id).context("checking --cluster-id")?;
    if !args.disabled
        && let (Some(min), Some(max)) = (args.min, args.max)
    {
        AutoscaleBounds::new(min, max).context("checking --min and --max")?;
    }
    let rollout_timeout = rollout_timeout_within(
        Duration::from_secs(args.timeout),
        args.rollout_timeout.map(Duration::from_secs),
    )?;
    let mut cluster = UpgradedCluster::new(&args.cluster_id, !args.disabled, args.min, args.max);
    cluster.layout = args.layout.layout()?;
    cluster.rollout_timeout = rollout_timeout;
    Ok(cluster)
}

fn ssh_config(args: &RedeployArgs) -> Result<SshConfig> {
    if !args.key.is_file() {
        bail!(
            "--key {}: no such file; give the private key CKS uses for the cluster",
            args.key.display()
        );
    }
    let host_key = match (&args.known_hosts, &args.host_key_fingerprint) {
        (Some(path), _) => {
            if !path.is_file() {
                bail!("--known-hosts {}: no such file", path.display());
            }
            HostKeyPolicy::KnownHosts { path: path.clone() }
        }
        (None, Some(pin)) => HostKeyPolicy::Pinned {
            fingerprint: Fingerprint::parse(pin).context("checking --host-key-fingerprint")?,
        },
        (None, None) => {
            eprintln!(
                "warning: --insecure-host-key: the node's host key is not checked, so anyone on \
                 the network path can impersonate it"
            );
            HostKeyPolicy::Insecure
        }
    };
    let address = if args.direct {
        NodeAddress::direct(&args.host)
    } else {
        NodeAddress::BehindNat {
            public_address: args.host.clone(),
            port: args.port,
        }
    };
    if args.timeout == 0 || args.connect_timeout == 0 {
        bail!("--timeout and --connect-timeout must be at least 1 second");
    }
    let mut config = SshConfig::new(address, &args.user, &args.key, host_key);
    config.command_timeout = Duration::from_secs(args.timeout);
    config.connect_timeout = Duration::from_secs(args.connect_timeout);
    Ok(config)
}

fn render(outcome: &Outcome, json: bool) -> Result<()> {
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(outcome).context("writing the outcome as JSON")?
        );
    } else {
        println!("{outcome}");
    }
    Ok(())
}
