//! The `preload` command line: the nodes found from the cluster id, the ISO checked against the
//! checksum CloudStack holds for the version (or `--sha256`) and by `verify`, its images scanned
//! once, every node preloaded with a progress bar per node on a terminal, one line per node at
//! the end and the bytes sent.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;

use cks_cloudstack::CloudStackClient;
use cks_discovery::cluster_api::ClusterInfo;
use cks_pinning::duration::{OldUnit, seconds_or_units};
use cks_upgrade_hook::command::ClusterId;
use cks_upgrade_hook::preload::{
    self, Expected, Node, NodeOutcome, NodeReport, Settings, checked_iso,
};
use cks_upgrade_hook::ssh::SshRunner;
use cks_upgrade_hook::target::{self, Flags};
use cks_upgrade_hook::upgrade;

/// `preload`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct PreloadArgs {
    /// The cluster's UUID; its nodes and their SSH routes are read from CloudStack.
    #[arg(long, value_name = "UUID")]
    pub cluster_id: String,
    /// The most of one CloudStack answer that is read (B, KiB, MiB, GiB): a larger answer is
    /// refused, so no server can grow this process's memory.
    #[arg(long, value_name = "SIZE", default_value = "32MiB", value_parser = cks_pinning::limits::parse_size)]
    pub max_answer_size: u64,
    /// The new ISO file (its docker/*.tar are sent once its sha256 and `verify` check out).
    #[arg(long, value_name = "ISO")]
    pub iso: PathBuf,
    /// The version the ISO is for (its id, name or semantic version): the ISO's sha256 must be
    /// the checksum CloudStack holds for it.
    #[arg(
        long,
        value_name = "VERSION",
        required_unless_present = "sha256",
        conflicts_with = "sha256"
    )]
    pub to: Option<String>,
    /// The ISO's sha256 (hex, `{SHA-256}` prefix optional), when the version is not registered yet.
    #[arg(long, value_name = "HEX")]
    pub sha256: Option<String>,
    /// The cluster's SSH private key (never printed).
    #[arg(long = "ssh-key", value_name = "FILE")]
    pub key: Option<PathBuf>,
    /// Trust exactly the host keys in this known_hosts file.
    #[arg(long, value_name = "FILE")]
    pub known_hosts: Option<PathBuf>,
    /// Trust the host key with this fingerprint, `[NODE=]SHA256:...`; repeat per node, or give
    /// one for every node.
    #[arg(long, value_name = "[NODE=]SHA256:...")]
    pub host_key_fingerprint: Vec<String>,
    /// Override: the login user (`--user` is the same, the name cks-upgrade-hook had before;
    /// `--ssh-user` as in cks-rollout and cks-fleet).
    #[arg(
        long = "ssh-user",
        alias = "user",
        value_name = "U",
        default_value = "cloud"
    )]
    pub user: String,
    /// Run the node commands directly instead of through sudo.
    #[arg(long)]
    pub no_sudo: bool,
    /// How long the SSH connection may take (`10s`, `1m`; a bare number is seconds, with a
    /// warning).
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = seconds_or_units)]
    pub connect_timeout: OldUnit,
    /// How the images are copied and imported.
    #[command(flatten)]
    pub copy: CopyArgs,
    /// Print the reports as JSON.
    #[arg(long)]
    pub json: bool,
}

/// How `preload` (and `upgrade` before it calls CloudStack) copies and imports the images.
#[derive(Debug, Clone, Args)]
pub struct CopyArgs {
    /// Override: a node's SSH server, `NODE=HOST:PORT`; repeat per node.
    #[arg(long = "ssh-endpoint", value_name = "NODE=HOST:PORT")]
    pub ssh_endpoints: Vec<String>,
    /// The ctr program on the nodes.
    #[arg(long, value_name = "PATH", default_value = "ctr")]
    pub ctr: String,
    /// Where partial tarballs are kept on the nodes until imported.
    #[arg(long, value_name = "DIR", default_value = preload::DEFAULT_SPOOL_DIR)]
    pub spool_dir: String,
    /// The import platform [default: each node's, from `uname -m`].
    #[arg(long, value_name = "linux/ARCH")]
    pub platform: Option<String>,
    /// How many nodes are preloaded at once.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub parallel: usize,
    /// How long each remote command of the preload (one tarball's copy among them) may run
    /// (`1h`, `90m`; a bare number is seconds, with a warning).
    #[arg(long, value_name = "DURATION", default_value = "1h", value_parser = seconds_or_units)]
    pub copy_timeout: OldUnit,
}

impl PreloadArgs {
    /// A warning for each duration flag given as a bare number in its old unit.
    pub fn duration_warnings(&self) -> Vec<String> {
        [
            ("--connect-timeout", &self.connect_timeout),
            ("--copy-timeout", &self.copy.copy_timeout),
        ]
        .into_iter()
        .filter_map(|(flag, value)| value.warning(flag))
        .collect()
    }

    fn flags(&self) -> Flags {
        Flags {
            cluster_id: self.cluster_id.clone(),
            user: self.user.clone(),
            key: self.key.clone(),
            known_hosts: self.known_hosts.clone(),
            fingerprints: self.host_key_fingerprint.clone(),
            ..Flags::default()
        }
    }

    /// The preload settings these arguments give.
    pub fn settings(&self) -> Result<Settings> {
        let copy = &self.copy;
        if copy.parallel == 0 {
            return Err(cks_cli_docs::bad_input(anyhow::anyhow!(
                "--parallel must be at least 1"
            )));
        }
        if let Some(p) = &copy.platform
            && !p.starts_with("linux/")
        {
            return Err(cks_cli_docs::bad_input(anyhow::anyhow!(
                "--platform {p:?}: expected linux/ARCH, such as linux/amd64"
            )));
        }
        Ok(Settings {
            ctr: copy.ctr.clone(),
            sudo: !self.no_sudo,
            spool_dir: copy.spool_dir.clone(),
            platform: copy.platform.clone(),
            parallel: copy.parallel,
        })
    }
}

/// Runs `preload`; exit 0 when every node holds every image, 1 when a node failed.
pub fn run(args: &PreloadArgs) -> Result<bool> {
    let reports = preload_cluster(args)?;
    if args.json {
        cks_upgrade_hook::json_out::print_json(&reports)?;
    } else {
        for report in &reports {
            cks_upgrade_hook::say::out(&format!("{report}"));
        }
        let total: u64 = reports.iter().map(|r| r.bytes_sent).sum();
        cks_upgrade_hook::say::out(&format!("bytes sent: {total}"));
    }
    Ok(reports
        .iter()
        .all(|r| !matches!(r.outcome, NodeOutcome::Failed { .. })))
}

/// Finds the nodes, checks the ISO against the checksum `--to` or `--sha256` names, scans it
/// and preloads every node.
pub fn preload_cluster(args: &PreloadArgs) -> Result<Vec<NodeReport>> {
    ClusterId::parse(&args.cluster_id).context("checking --cluster-id")?;
    // The flags' values are checked before CloudStack is asked.
    checked_flags(args)?;
    let client = target::client_from_env(args.max_answer_size).map_err(|source| {
        target::TargetError::NoCloudStack {
            needed: "the cluster's nodes",
            flags: "set them in the environment",
            source,
        }
    })?;
    let info = cks_discovery::cluster_api::cluster_info(&client, &args.cluster_id)?;
    let expected = match (&args.to, &args.sha256) {
        (_, Some(hex)) => Expected::given(hex)?,
        (Some(to), None) => {
            let versions = client
                .list_kubernetes_versions(None)
                .context("reading the Kubernetes versions (listKubernetesSupportedVersions)")?;
            let version = upgrade::choose(to, &versions)?;
            Expected::from_cloudstack(&client, version)?
        }
        (None, None) => {
            return Err(cks_cli_docs::bad_input(anyhow::anyhow!(
                "give --to VERSION or --sha256 HEX: the ISO is checked against it"
            )));
        }
    };
    preload_checked(args, &client, &info, &expected)
}

/// The preload settings, once the timeouts are checked: a bad value is bad input.
fn checked_flags(args: &PreloadArgs) -> Result<Settings> {
    let second = Duration::from_secs(1);
    if args.copy.copy_timeout.duration < second || args.connect_timeout.duration < second {
        return Err(cks_cli_docs::bad_input(anyhow::anyhow!(
            "--copy-timeout and --connect-timeout must be at least 1 second"
        )));
    }
    args.settings()
}

/// Preloads every node of the cluster `info` once the ISO's sha256 is `expected` and `verify`
/// finds nothing wrong; nothing reaches a node before.
pub fn preload_checked(
    args: &PreloadArgs,
    client: &CloudStackClient,
    info: &ClusterInfo,
    expected: &Expected,
) -> Result<Vec<NodeReport>> {
    let settings = checked_flags(args)?;
    let flags = args.flags();
    let logins = target::all_nodes(&flags, info, client, &args.copy.ssh_endpoints)?;
    let iso = checked_iso::check(&args.iso, expected)?;
    let source = &iso.source;
    let tarballs = preload::scan(source).context("reading the ISO's images")?;
    let nodes: Vec<Node> = logins
        .into_iter()
        .map(|login| {
            let mut ssh = login.ssh;
            ssh.command_timeout = args.copy.copy_timeout.duration;
            ssh.connect_timeout = args.connect_timeout.duration;
            Node {
                name: login.name,
                runner: SshRunner::new(ssh),
                sent: Arc::new(AtomicU64::new(0)),
                needed: Arc::new(AtomicU64::new(0)),
            }
        })
        .collect();
    let done = AtomicBool::new(false);
    let reports = std::thread::scope(|scope| {
        if !args.json && std::io::stderr().is_terminal() {
            scope.spawn(|| progress(&nodes, &done));
        }
        let reports = preload::preload_all(&nodes, &tarballs, source, &settings);
        done.store(true, Ordering::Relaxed);
        reports
    });
    Ok(reports)
}

/// A byte bar per node, redrawn until `done`.
fn progress(nodes: &[Node], done: &AtomicBool) {
    let multi = indicatif::MultiProgress::new();
    let style = indicatif::ProgressStyle::with_template(
        "{prefix:>24} {bar:30} {binary_bytes}/{binary_total_bytes}",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    let bars: Vec<_> = nodes
        .iter()
        .map(|n| {
            let bar = multi.add(indicatif::ProgressBar::new(0));
            bar.set_style(style.clone());
            bar.set_prefix(cks_pinning::terminal::one_line(&n.name).into_owned());
            bar
        })
        .collect();
    while !done.load(Ordering::Relaxed) {
        for (node, bar) in nodes.iter().zip(&bars) {
            bar.set_length(node.needed.load(Ordering::Relaxed));
            bar.set_position(node.sent.load(Ordering::Relaxed));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    for bar in bars {
        bar.finish_and_clear();
    }
}
