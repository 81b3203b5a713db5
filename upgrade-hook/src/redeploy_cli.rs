//! The redeploy commands (`redeploy`, `redeploy-autoscaler`, `redeploy-provider`, and the end of
//! `upgrade`): their arguments, the run that finds the first control node and refreshes the cloud
//! controller manager and the autoscaler on it, and how the outcome is printed.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;

use cks_pinning::duration::{OldUnit, seconds_or_units};
use cks_upgrade_hook::FailureCause;
use cks_upgrade_hook::command::{AutoscaleBounds, ClusterId, DEFAULT_SCRIPT_DIR, NodeLayout};
use cks_upgrade_hook::hook::rollout_timeout_within;
use cks_upgrade_hook::json_out::print_json;
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

/// Where the scripts are on the node and whether they run through sudo.
#[derive(Debug, Clone, Args)]
pub(crate) struct LayoutArgs {
    /// The directory on the node holding autoscale-kube-cluster and kubectl.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_SCRIPT_DIR)]
    pub(crate) script_dir: String,
    /// Run the scripts directly instead of through sudo.
    #[arg(long)]
    pub(crate) no_sudo: bool,
}

impl LayoutArgs {
    pub(crate) fn layout(&self) -> Result<NodeLayout> {
        NodeLayout::new(&self.script_dir, !self.no_sudo).context("checking --script-dir")
    }
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
    /// Override: the login user (`--user` is the same, the name cks-upgrade-hook had before;
    /// `--ssh-user` as in cks-rollout and cks-fleet).
    #[arg(
        long = "ssh-user",
        alias = "user",
        value_name = "U",
        default_value = "cloud"
    )]
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
    /// How long each remote command may run before it is stopped (`5m`, `300s`; a bare number
    /// is seconds, with a warning).
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = seconds_or_units)]
    timeout: OldUnit,
    /// How long the SSH connection may take (`10s`; a bare number is seconds, with a warning).
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = seconds_or_units)]
    connect_timeout: OldUnit,
    /// How long `kubectl rollout status` waits for the new autoscaler, less than --timeout
    /// (`2m`; a bare number is seconds, with a warning)
    /// [default: 2m, or less to fit inside --timeout with a tenth of it to spare].
    #[arg(long, value_name = "DURATION", value_parser = seconds_or_units)]
    rollout_timeout: Option<OldUnit>,
    /// Print the outcome as JSON.
    #[arg(long)]
    json: bool,
    /// Exit 1 when the redeploy failed.
    #[arg(long)]
    strict: bool,
    /// The most of one CloudStack answer that is read (B, KiB, MiB, GiB): a larger answer is
    /// refused, so no server can grow this process's memory.
    #[arg(long, value_name = "SIZE", default_value = "32MiB", value_parser = cks_pinning::limits::parse_size)]
    max_answer_size: u64,
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
    /// `--max-answer-size`, in bytes.
    pub fn max_answer_size(&self) -> u64 {
        self.max_answer_size
    }
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
    /// `--ssh-user`.
    pub fn user(&self) -> &str {
        &self.user
    }
    /// `--no-sudo`.
    pub fn no_sudo(&self) -> bool {
        self.layout.no_sudo
    }
    /// `--connect-timeout`.
    pub fn connect_timeout(&self) -> OldUnit {
        self.connect_timeout
    }
    /// A warning for each duration flag given as a bare number in its old unit.
    pub fn duration_warnings(&self) -> Vec<String> {
        [
            ("--timeout", Some(&self.timeout)),
            ("--connect-timeout", Some(&self.connect_timeout)),
            ("--rollout-timeout", self.rollout_timeout.as_ref()),
        ]
        .into_iter()
        .filter_map(|(flag, value)| value.and_then(|v| v.warning(flag)))
        .collect()
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
    let second = Duration::from_secs(1);
    if args.timeout.duration < second || args.connect_timeout.duration < second {
        return Err(cks_cli_docs::bad_input(anyhow::anyhow!(
            "--timeout and --connect-timeout must be at least 1 second"
        )));
    }
    let rollout_timeout = rollout_timeout_within(
        args.timeout.duration,
        args.rollout_timeout.map(|t| t.duration),
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
        let client_from_env = || target::client_from_env(args.max_answer_size);
        let (f, c) = target::find(&flags, flags.host.is_none(), &client_from_env)?;
        found = f;
        client = c;
    } else if settings_needed {
        let client_from_env = || target::client_from_env(args.max_answer_size);
        found = target::find(&flags, false, &client_from_env)?.0;
    }
    let node: NodeLogin = target::first_control_node(&flags, &found, client.as_ref())?;
    let mut ssh = node.ssh;
    ssh.command_timeout = args.timeout.duration;
    ssh.connect_timeout = args.connect_timeout.duration;
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
        cks_upgrade_hook::say::out(&format!("{outcome}"));
    }
    if outcome.is_warning() {
        cks_upgrade_hook::say::err(&format!("warning: cloud controller manager: {outcome}"));
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
            cks_upgrade_hook::say::out(&format!("cloud controller manager: {outcome}"));
        }
        if let Some(outcome) = autoscaler {
            cks_upgrade_hook::say::out(&format!("cluster autoscaler: {outcome}"));
        }
    }
    if let Some(outcome) = provider.filter(|o| o.is_warning()) {
        cks_upgrade_hook::say::err(&format!("warning: cloud controller manager: {outcome}"));
    }
    if let Some(outcome) = autoscaler.filter(|o| o.is_failed()) {
        cks_upgrade_hook::say::err(&format!("warning: cluster autoscaler: {outcome}"));
    }
    Ok(())
}

fn render(outcome: &Outcome, json: bool) -> Result<()> {
    if json {
        print_json(outcome)?;
    } else {
        cks_upgrade_hook::say::out(&format!("{outcome}"));
    }
    Ok(())
}
