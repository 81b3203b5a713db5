//! The `cks-upgrade-hook` command line: refreshes the cluster autoscaler and the cloud controller
//! manager on a CKS cluster's first control node after an upgrade, or prints the command that
//! would redeploy the autoscaler. It lives in the library so the packaging renders its man page
//! and shell completions from [`command`].

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::{Args, CommandFactory, Parser, Subcommand};

use cks_upgrade_hook::FailureCause;
use cks_upgrade_hook::command::{self, AutoscaleBounds, ClusterId, DEFAULT_SCRIPT_DIR, NodeLayout};
use cks_upgrade_hook::hook::rollout_timeout_within;
use cks_upgrade_hook::preload::IsoSource;
use cks_upgrade_hook::provider::{
    DEFAULT_PROVIDER_MANIFEST, MAX_PROVIDER_MANIFEST, ProviderRefresh, ProviderStep,
    write_manifest_command,
};
use cks_upgrade_hook::ssh::SshRunner;
use cks_upgrade_hook::ssh::exec::Input;
use cks_upgrade_hook::target::{self, Flags, Found, NodeLogin};
use cks_upgrade_hook::{
    Outcome, ProviderOutcome, UpgradedCluster, redeploy_after_upgrade, refresh_provider,
};

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
    /// Before an upgrade, sends every node the new ISO's images it lacks and imports them.
    ///
    /// Exit status: 0 when every node holds every image, 1 when a node failed (run again to
    /// finish: nodes already complete are skipped, a copy cut off is resumed), 2 for bad
    /// arguments or what cannot be found.
    Preload(cks_upgrade_hook::preload_cli::PreloadArgs),
    /// Upgrades the cluster: refuses unless it is Running and the version is Ready and newer,
    /// preloads the new images on every node (unless --no-preload), calls
    /// upgradeKubernetesCluster, follows its job, then refreshes the cloud controller manager
    /// and the autoscaler.
    ///
    /// Exit status: 0 upgraded (a failed refresh afterwards is a warning unless --strict);
    /// 1 the upgrade failed (CloudStack's error and the cluster's state are printed) or, with
    /// --strict, a refresh failed; 2 bad arguments or what cannot be found; 3 refused before
    /// the upgrade (the cluster not Running, the version unknown, not Ready or not newer);
    /// 4 the preload failed on a node (the upgrade was not started).
    Upgrade(Box<cks_upgrade_hook::upgrade_cli::UpgradeArgs>),
    /// Prints the autoscale-kube-cluster command, quoted for the node's shell.
    Command(CommandArgs),
}

#[derive(Debug, Clone, Args)]
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

/// The arguments of the redeploy commands (and of `upgrade`, which redeploys at its end).
#[derive(Debug, Clone, Args)]
pub struct RedeployArgs {
    /// The cluster's UUID; its nodes and autoscaling settings are read from CloudStack.
    #[arg(long, value_name = "UUID")]
    cluster_id: String,
    /// The cluster's SSH private key (never printed).
    #[arg(long = "ssh-key", alias = "key", value_name = "FILE")]
    key: Option<PathBuf>,
    /// Trust exactly the host keys in this known_hosts file.
    #[arg(long, value_name = "FILE")]
    known_hosts: Option<PathBuf>,
    /// Trust the host key with this fingerprint (`ssh-keygen -l` on the node prints it),
    /// `[NODE=]SHA256:...`; repeat per node, or give one for every node.
    #[arg(long, value_name = "[NODE=]SHA256:...")]
    host_key_fingerprint: Vec<String>,
    /// Accept any host key. Anyone on the network path can then impersonate the node.
    #[arg(long, conflicts_with_all = ["known_hosts", "host_key_fingerprint"])]
    insecure_host_key: bool,
    /// Override: the autoscaling minimum size (unset with --max given skips the autoscaler).
    #[arg(long, value_name = "N")]
    min: Option<u32>,
    /// Override: the autoscaling maximum size (unset with --min given skips the autoscaler).
    #[arg(long, value_name = "M")]
    max: Option<u32>,
    /// Override: autoscaling is disabled on the cluster, so the autoscaler is not redeployed.
    #[arg(long)]
    disabled: bool,
    /// Override: the cluster's public address (behind NAT), or the node's private address
    /// with --direct.
    #[arg(long, value_name = "H")]
    host: Option<String>,
    /// Override: the SSH port forwarded to the first control node on --host [default: 2222].
    #[arg(long, requires = "host")]
    port: Option<u16>,
    /// Override: a direct-access network: connect to --host (the private address) on port 22.
    #[arg(long, conflicts_with = "port", requires = "host")]
    direct: bool,
    /// Override: the login user.
    #[arg(long, value_name = "U", default_value = "cloud")]
    user: String,
    /// Override: where the upgrade left the new ISO's provider.yaml on the node (with --iso,
    /// where the ISO's is written before it is applied).
    #[arg(long, value_name = "PATH", default_value = DEFAULT_PROVIDER_MANIFEST)]
    provider_manifest: String,
    /// The new ISO, or the folder it is mounted on: its provider.yaml is written to the node and
    /// applied; an ISO without one leaves the running cloud controller manager alone.
    #[arg(long, value_name = "ISO|DIR")]
    iso: Option<PathBuf>,
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

/// What a redeploy command refreshes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parts {
    /// The cloud controller manager and the autoscaler.
    Both,
    /// The autoscaler.
    Autoscaler,
    /// The cloud controller manager.
    Provider,
}

impl RedeployArgs {
    /// `--cluster-id`.
    pub fn cluster_id(&self) -> &str {
        &self.cluster_id
    }
    /// `--ssh-key`.
    pub fn key(&self) -> Option<&PathBuf> {
        self.key.as_ref()
    }
    /// `--known-hosts`.
    pub fn known_hosts(&self) -> Option<&PathBuf> {
        self.known_hosts.as_ref()
    }
    /// `--host-key-fingerprint`.
    pub fn fingerprints(&self) -> &[String] {
        &self.host_key_fingerprint
    }
    /// `--user`.
    pub fn user(&self) -> &str {
        &self.user
    }
    /// `--no-sudo`.
    pub fn no_sudo(&self) -> bool {
        self.layout.no_sudo
    }
    /// `--connect-timeout`.
    pub fn connect_timeout(&self) -> u64 {
        self.connect_timeout
    }
    /// `--iso`.
    pub fn iso(&self) -> Option<&PathBuf> {
        self.iso.as_ref()
    }

    fn flags(&self) -> Flags {
        Flags {
            cluster_id: self.cluster_id.clone(),
            host: self.host.clone(),
            port: self.port,
            direct: self.direct,
            user: self.user.clone(),
            key: self.key.clone(),
            known_hosts: self.known_hosts.clone(),
            fingerprints: self.host_key_fingerprint.clone(),
            insecure: self.insecure_host_key,
            min: self.min,
            max: self.max,
            disabled: self.disabled,
        }
    }
}

/// Runs a redeploy command: finds the node and settings, refreshes `parts`, prints the outcome.
pub fn redeploy(args: &RedeployArgs, parts: Parts) -> Result<ExitCode> {
    ClusterId::parse(&args.cluster_id).context("checking --cluster-id")?;
    if args.timeout == 0 || args.connect_timeout == 0 {
        bail!("--timeout and --connect-timeout must be at least 1 second");
    }
    let rollout_timeout = rollout_timeout_within(
        Duration::from_secs(args.timeout),
        args.rollout_timeout.map(Duration::from_secs),
    )?;
    let layout = args.layout.layout()?;
    let flags = args.flags();
    if args.insecure_host_key {
        eprintln!(
            "warning: --insecure-host-key: the node's host key is not checked, so anyone on \
             the network path can impersonate it"
        );
    }
    // The provider needs only the node; the autoscaler also needs the settings.
    let settings_needed = parts != Parts::Provider;
    let mut found = Found::default();
    let mut client = None;
    if (settings_needed && !flags.gives_autoscaling()) || flags.host.is_none() {
        let (f, c) = target::find(&flags, flags.host.is_none(), &target::client_from_env)?;
        found = f;
        client = c;
    } else if settings_needed {
        found = target::find(&flags, false, &target::client_from_env)?.0;
    }
    let node: NodeLogin = target::first_control_node(&flags, &found, client.as_ref())?;
    let mut ssh = node.ssh;
    ssh.command_timeout = Duration::from_secs(args.timeout);
    ssh.connect_timeout = Duration::from_secs(args.connect_timeout);
    let runner = SshRunner::new(ssh);

    // With --iso, the ISO's provider.yaml (read before the node is touched).
    let from_iso = match &args.iso {
        Some(iso) if parts != Parts::Autoscaler => Some((
            iso,
            IsoSource::open(iso)?
                .small_file("provider.yaml", MAX_PROVIDER_MANIFEST)
                .context("reading provider.yaml from --iso")?,
        )),
        _ => None,
    };
    let provider = (parts != Parts::Autoscaler).then(|| {
        let mut refresh = ProviderRefresh::new(layout.clone(), rollout_timeout);
        refresh.manifest = args.provider_manifest.clone();
        match from_iso {
            Some((iso, None)) => ProviderOutcome::ManifestMissing {
                manifest: format!("provider.yaml in {}", iso.display()),
            },
            Some((_, Some(bytes))) => {
                let write = write_manifest_command(&layout, &refresh.manifest);
                let input = Input {
                    reader: Box::new(std::io::Cursor::new(bytes)),
                    sent: Default::default(),
                };
                match runner.run_with_input(&write, input) {
                    Ok(out) if out.exit_code == 0 => refresh_provider(&refresh, &runner),
                    Ok(out) => ProviderOutcome::Failed {
                        step: ProviderStep::SendManifest,
                        cause: FailureCause::RemoteExit {
                            code: out.exit_code,
                            stderr_tail: out.stderr_tail,
                        },
                    },
                    Err(error) => ProviderOutcome::Failed {
                        step: ProviderStep::SendManifest,
                        cause: FailureCause::Transport { error },
                    },
                }
            }
            None => refresh_provider(&refresh, &runner),
        }
    });
    let autoscaler = if settings_needed {
        let a = found.autoscaling;
        if a.enabled
            && let (Some(min), Some(max)) = (a.min_size, a.max_size)
        {
            AutoscaleBounds::new(min, max).context("checking --min and --max")?;
        }
        let mut cluster = UpgradedCluster::new(&args.cluster_id, a.enabled, a.min_size, a.max_size);
        cluster.layout = layout;
        cluster.rollout_timeout = rollout_timeout;
        Some(redeploy_after_upgrade(&cluster, &runner))
    } else {
        None
    };
    let failed = provider.as_ref().is_some_and(ProviderOutcome::is_failed)
        || autoscaler.as_ref().is_some_and(Outcome::is_failed);
    match (parts, &provider, &autoscaler) {
        (Parts::Autoscaler, _, Some(outcome)) => render(outcome, args.json)?,
        (Parts::Provider, Some(outcome), _) => render_provider(outcome, args.json)?,
        _ => render_both(provider.as_ref(), autoscaler.as_ref(), args.json)?,
    }
    Ok(if failed && args.strict {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn render_provider(outcome: &ProviderOutcome, json: bool) -> Result<()> {
    if json {
        print_json(outcome)?;
    } else {
        println!("{outcome}");
    }
    if outcome.is_warning() {
        eprintln!("warning: cloud controller manager: {outcome}");
    }
    Ok(())
}

fn render_both(
    provider: Option<&ProviderOutcome>,
    autoscaler: Option<&Outcome>,
    json: bool,
) -> Result<()> {
    if json {
        let value = serde_json::json!({ "provider": provider, "autoscaler": autoscaler });
        print_json(&value)?;
    } else {
        if let Some(outcome) = provider {
            println!("cloud controller manager: {outcome}");
        }
        if let Some(outcome) = autoscaler {
            println!("cluster autoscaler: {outcome}");
        }
    }
    if let Some(outcome) = provider.filter(|o| o.is_warning()) {
        eprintln!("warning: cloud controller manager: {outcome}");
    }
    if let Some(outcome) = autoscaler.filter(|o| o.is_failed()) {
        eprintln!("warning: cluster autoscaler: {outcome}");
    }
    Ok(())
}

fn render(outcome: &Outcome, json: bool) -> Result<()> {
    if json {
        print_json(outcome)?;
    } else {
        println!("{outcome}");
    }
    Ok(())
}

/// Prints `value` as pretty JSON on standard output (`--json`).
pub(crate) fn print_json(value: &impl serde::Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(value).context("writing the outcome as JSON")?;
    println!("{text}");
    Ok(())
}
