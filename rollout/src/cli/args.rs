//! Command-line arguments shared by several commands: the update options and the connection
//! options of a real cluster.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;

use cks_rollout::adapters::etcd_ssh::KUBEADM_ETCD_PKI;
use cks_rollout::adapters::store::StoreUrl;
use cks_rollout::engine::window::Window;
use cks_rollout::engine::{EngineConfig, UpdateRequest};
use cks_rollout::live::{LiveOptions, SshOptions};

use super::duration::OldUnit;

/// Splits `TYPE=VALUE`, naming the option when the `=` is missing.
fn split<'a>(option: &str, text: &'a str) -> Result<(&'a str, &'a str)> {
    text.split_once('=').with_context(|| {
        format!("--{option} {text:?}: expected TYPE=VALUE, e.g. --{option} worker=...")
    })
}

/// The settings to change and how to roll them out.
#[derive(Debug, Clone, Default, Args)]
pub struct UpdateArgs {
    /// A node type's service offering, `TYPE=OFFERING_ID` (TYPE: control, worker, etcd); repeat per type.
    #[arg(long = "offering", value_name = "TYPE=ID")]
    pub offerings: Vec<String>,
    /// A node type's root disk size in GB, `TYPE=GB`; repeat per type.
    #[arg(long = "root-disk-size", value_name = "TYPE=GB")]
    pub root_disk_sizes: Vec<String>,
    /// A node type's affinity groups, `TYPE=ID[,ID...]`; repeat per type. A type not given keeps
    /// each node's groups as they are (an empty list is refused).
    #[arg(long = "affinity-groups", value_name = "TYPE=IDS")]
    pub affinity_groups: Vec<String>,
    /// Workers restarted at a time (default 1).
    #[arg(long = "maxunavailable", value_name = "N")]
    pub max_unavailable: Option<i64>,
    /// Move the workers off the cluster's default offering even with autoscaling enabled on
    /// CloudStack 4.21 or later, where the autoscaler's scale calls then fail on KVM
    /// (apache/cloudstack#11994).
    #[arg(long = "accept-autoscaler-risk")]
    pub accept_autoscaler_risk: bool,
}

impl UpdateArgs {
    /// The update call these options ask for, with `rollout` set as given.
    pub fn request(&self, rollout: bool) -> Result<UpdateRequest> {
        let mut req = UpdateRequest {
            rollout,
            max_unavailable: self.max_unavailable,
            accept_autoscaler_risk: self.accept_autoscaler_risk,
            ..Default::default()
        };
        cks_rollout::engine::validate::max_unavailable(&req)?;
        for text in &self.offerings {
            let (t, id) = split("offering", text)?;
            req.node_offerings.insert(t.to_string(), id.to_string());
        }
        for text in &self.root_disk_sizes {
            let (t, gb) = split("root-disk-size", text)?;
            let gb: i64 = gb.parse().with_context(|| {
                format!("--root-disk-size {text:?}: the size must be a whole number of GB")
            })?;
            req.node_root_disk_sizes.insert(t.to_string(), gb);
        }
        for text in &self.affinity_groups {
            let (t, ids) = split("affinity-groups", text)?;
            let ids: Vec<String> = ids
                .split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            if ids.is_empty() {
                bail!(
                    "--affinity-groups {text:?}: nodeaffinitygroups needs at least one affinity group id for {t}; an empty list would remove every group of its nodes, so it is refused: leave the type out to keep each node's groups as they are"
                );
            }
            req.node_affinity_groups.insert(t.to_string(), ids);
        }
        Ok(req)
    }
}

/// The options of `run`: the settings, and whether to roll them out.
#[derive(Debug, Clone, Default, Args)]
pub struct RunArgs {
    /// Settings.
    #[command(flatten)]
    pub update: UpdateArgs,
    /// Only store the settings (`rollout=false`), in this tool's store: no node is touched and
    /// CloudStack is not told (no CloudStack release can store them without changing the
    /// nodes), so nodes it creates later (a scale, the autoscaler) get CloudStack's own
    /// settings; the next plan or run finds them out of date and rolls them. The out-of-date
    /// counts are reported.
    #[arg(long = "no-rollout")]
    pub no_rollout: bool,
    /// After each batch is verified and uncordoned, wait this long with every node of the batch
    /// staying Ready before the next batch (`90s`, `10m`, `1h30m`); a node that turns NotReady
    /// stops the rollout between batches.
    #[arg(long, value_name = "DURATION", value_parser = super::duration::parse)]
    pub soak: Option<std::time::Duration>,
    /// A command run (by `sh -c`) before each batch, with `CKS_CLUSTER_ID`, `CKS_BATCH` and
    /// `CKS_NODES` in its environment: exit 0 lets the batch go, any other stops the rollout
    /// between batches with its last line of output in lasterror; repeat for several.
    #[arg(long = "gate", value_name = "CMD")]
    pub gates: Vec<String>,
    /// Pass this variable of this environment on to the gates too; repeat for several. Gates
    /// otherwise get only PATH, HOME, LANG and the CKS_* variables above (no CloudStack key, no
    /// store password).
    #[arg(long = "gate-env", value_name = "NAME")]
    pub gate_env: Vec<String>,
    /// Time allowed for one gate command (default 5m); one that runs longer is stopped and fails.
    #[arg(long = "gate-timeout", value_name = "DURATION", value_parser = super::duration::parse)]
    pub gate_timeout: Option<std::time::Duration>,
    /// A maintenance window, `DAYS HH:MM-HH:MM ZONE` (e.g. "Mon-Fri 22:00-05:00 Europe/Berlin";
    /// an end before the start runs into the next day; zones from the system's tz database);
    /// repeat for several. A batch starts only inside one; outside, the rollout stops between
    /// batches and `run` again resumes it.
    #[arg(long = "window", value_name = "SPEC", value_parser = Window::parse)]
    pub windows: Vec<Window>,
    /// Outside every window, wait for the next one instead of stopping.
    #[arg(long = "wait-for-window", requires = "windows")]
    pub wait_for_window: bool,
    /// Append one JSON line per step to this file (schema in README.md, "Events").
    #[arg(long, value_name = "FILE")]
    pub events: Option<PathBuf>,
    /// POST each event's JSON line to this URL (a short timeout and a few tries; one that
    /// fails is one warning and never stops the rollout).
    #[arg(long, value_name = "URL")]
    pub webhook: Option<String>,
    /// Also restart nodes whose settings do not differ, by the same safe path: all, control,
    /// worker, etcd, or reboot-required (the nodes where /var/run/reboot-required exists, read
    /// over SSH).
    #[arg(long, value_name = "SCOPE")]
    pub restart: Option<cks_rollout::engine::RestartScope>,
}

impl RunArgs {
    /// The update call: `rollout=true` unless `--no-rollout`.
    pub fn request(&self) -> Result<UpdateRequest> {
        self.update.request(!self.no_rollout)
    }

    /// `cfg` with the rollout controls these options ask for, every value checked (for a
    /// rollout) before anything is reached.
    pub fn controls(&self, cfg: EngineConfig) -> Result<EngineConfig> {
        let cfg = EngineConfig {
            soak: self.soak.unwrap_or(cfg.soak),
            gates: self.gates.clone(),
            gate_timeout: self.gate_timeout.unwrap_or(cfg.gate_timeout),
            gate_env: self.gate_env.clone(),
            windows: self.windows.clone(),
            wait_for_window: self.wait_for_window,
            restart: self.restart.or(cfg.restart),
            ..cfg
        };
        if !self.no_rollout {
            cfg.check()?;
        }
        Ok(cfg)
    }
}

/// How to reach a real cluster. CloudStack's endpoint and keys come from the environment
/// (`CLOUDSTACK_ENDPOINT`, `CLOUDSTACK_KEY`, `CLOUDSTACK_SECRET`) or the INI file
/// `CLOUDSTACK_CONFIG` names, never from the command line.
#[derive(Debug, Clone, Args)]
pub struct LiveArgs {
    /// The CKS cluster's id (uuid).
    #[arg(long = "cluster-id", value_name = "ID")]
    pub cluster_id: String,
    /// The store of cluster records: `postgres://USER@HOST[:PORT]/DB` (password from the URL or
    /// PGPASSWORD; schema created and migrated), or `sqlite:PATH` / a file path (created if
    /// missing). The record is imported from CloudStack the first time.
    #[arg(
        long,
        env = "CKS_ROLLOUT_STORE",
        default_value = "cks-rollout.db",
        value_name = "URL"
    )]
    pub store: String,
    /// The cluster's kubeconfig, instead of the one CloudStack gives. A KUBECONFIG in the
    /// environment counts as this flag (one file path); the flag beats it.
    #[arg(long, env = "KUBECONFIG", value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context (default: its current-context).
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
    /// A control node's own API server, `NODE=https://IP:6443`; repeat per control node.
    #[arg(long = "control-endpoint", value_name = "NODE=URL")]
    pub control_endpoints: Vec<String>,
    /// An etcd member's client URL, `NAME=https://IP:2379`; repeat per member.
    #[arg(long = "etcd-endpoint", value_name = "NAME=URL")]
    pub etcd_endpoints: Vec<String>,
    /// The etcd CA certificate (PEM).
    #[arg(long = "etcd-cacert", value_name = "FILE")]
    pub etcd_ca: Option<PathBuf>,
    /// The etcd client certificate (PEM).
    #[arg(long = "etcd-cert", value_name = "FILE", requires = "etcd_key")]
    pub etcd_cert: Option<PathBuf>,
    /// The etcd client key (PEM).
    #[arg(long = "etcd-key", value_name = "FILE", requires = "etcd_cert")]
    pub etcd_key: Option<PathBuf>,
    /// Time allowed for one batch, e.g. 30m (a bare number: seconds, with a warning).
    #[arg(long = "batch-timeout", default_value = "30m", value_name = "DURATION", value_parser = super::duration::seconds_or_units)]
    pub batch_timeout: OldUnit,
    /// Time allowed to drain one node, e.g. 10m (a bare number: seconds, with a warning).
    #[arg(long = "drain-timeout", default_value = "10m", value_name = "DURATION", value_parser = super::duration::seconds_or_units)]
    pub drain_timeout: OldUnit,
    /// Time between two polls, e.g. 10s or 500ms (a bare number: milliseconds, with a warning).
    #[arg(long = "poll-interval", default_value = "10s", value_name = "DURATION", value_parser = super::duration::millis_or_units)]
    pub poll_interval_ms: OldUnit,
    /// How long a lease not renewed means its owner is gone, e.g. 5m (a bare number: seconds,
    /// with a warning): `scan` takes the cluster over, and a rollout that finds its own lease
    /// so old stops. At least twice the poll interval.
    #[arg(long = "lease-timeout", default_value = "5m", value_name = "DURATION", value_parser = super::duration::seconds_or_units)]
    pub lease_timeout: OldUnit,
    /// The most of one CloudStack, Kubernetes API or etcd answer that is read (B, KiB, MiB,
    /// GiB): a larger answer is refused, so no server can grow this process's memory.
    #[arg(long = "max-answer-size", default_value = "32MiB", value_name = "SIZE", value_parser = cks_pinning::limits::parse_size)]
    pub max_answer_size: u64,
    /// SSH to the nodes, and overrides of what is found through CloudStack.
    #[command(flatten)]
    pub ssh: SshArgs,
}

impl LiveArgs {
    /// Checks the values of the flags alone (endpoint URLs, SSH servers, the store URL) before
    /// anything is reached; a bad one is bad input (exit status 2).
    pub fn check(&self) -> Result<()> {
        self.options().map(|_| ())
    }

    /// The store `--store` names, parsed here rather than by clap so that a value that does not
    /// parse is never echoed with its password.
    pub fn store_url(&self) -> Result<StoreUrl> {
        Ok(self.store.parse::<StoreUrl>()?)
    }

    /// A warning for each duration flag given as a bare number in its old unit.
    pub fn duration_warnings(&self) -> Vec<String> {
        [
            ("--batch-timeout", &self.batch_timeout),
            ("--drain-timeout", &self.drain_timeout),
            ("--poll-interval", &self.poll_interval_ms),
            ("--lease-timeout", &self.lease_timeout),
        ]
        .into_iter()
        .filter_map(|(flag, value)| value.warning(flag))
        .collect()
    }

    /// The options as the library's live entry takes them, parsed: a value that does not
    /// parse is refused naming its flag.
    pub fn options(&self) -> Result<LiveOptions> {
        Ok(LiveOptions {
            cluster_id: self.cluster_id.clone(),
            store: self.store_url()?,
            store_secret: cks_rollout::adapters::gate_command::url_password(&self.store),
            kubeconfig: self.kubeconfig.clone(),
            context: self.context.clone(),
            control_endpoints: pairs("control-endpoint", &self.control_endpoints)?,
            etcd_endpoints: pairs("etcd-endpoint", &self.etcd_endpoints)?,
            etcd_ca: self.etcd_ca.clone(),
            etcd_cert: self.etcd_cert.clone(),
            etcd_key: self.etcd_key.clone(),
            batch_timeout: Duration::from_secs(self.batch_timeout.secs()),
            drain_timeout: Duration::from_secs(self.drain_timeout.secs()),
            poll_interval: Duration::from_millis(self.poll_interval_ms.millis()),
            lease_timeout: Duration::from_secs(self.lease_timeout.secs()),
            max_answer_size: self.max_answer_size,
            ssh: SshOptions {
                ssh_key: self.ssh.ssh_key.clone(),
                known_hosts: self.ssh.known_hosts.clone(),
                host_key_fingerprints: self.ssh.host_key_fingerprints.clone(),
                ssh_user: self.ssh.ssh_user.clone(),
                ssh_endpoints: cks_discovery::ssh_access::parse_endpoints(&self.ssh.ssh_endpoints)?,
                etcd_pki_dir: self.ssh.etcd_pki_dir.clone(),
                etcdctl: self.ssh.etcdctl.clone(),
            },
        })
    }

    /// The engine settings the options ask for.
    pub fn engine_config(&self) -> Result<EngineConfig> {
        Ok(cks_rollout::live::engine_config(&self.options()?))
    }
}

/// Endpoint URLs by node or type name.
type NamedUrls = BTreeMap<String, String>;

/// Parses repeated `NAME=URL` options (`--option`) into a map.
fn pairs(option: &str, items: &[String]) -> Result<NamedUrls> {
    let mut out = BTreeMap::new();
    for text in items {
        let (name, url) = text.split_once('=').with_context(|| {
            format!("--{option} {text:?}: expected TYPE=VALUE, e.g. --{option} worker=...")
        })?;
        if !url.starts_with("http://") && !url.starts_with("https://") {
            bail!("--{option} {text:?}: the URL must start with https:// (or http://)");
        }
        out.insert(name.to_string(), url.to_string());
    }
    Ok(out)
}

/// How to reach the nodes over SSH, and the overrides of what discovery finds.
#[derive(Debug, Clone, Args)]
pub struct SshArgs {
    /// The cluster's SSH private key (the key pair CKS gave the nodes): etcd is checked over
    /// SSH on a control node with it.
    #[arg(long = "ssh-key", value_name = "FILE")]
    pub ssh_key: Option<PathBuf>,
    /// A known_hosts file trusting the nodes' host keys (`[host]:port` entries).
    #[arg(long = "known-hosts", value_name = "FILE")]
    pub known_hosts: Option<PathBuf>,
    /// Trust the host key with this fingerprint instead (`ssh-keygen -l` prints it),
    /// `[NODE=]SHA256:...`; repeat per node, or give one for every node.
    #[arg(long = "host-key-fingerprint", value_name = "[NODE=]SHA256:...")]
    pub host_key_fingerprints: Vec<String>,
    /// Override: the SSH login user on the nodes.
    #[arg(long = "ssh-user", default_value = "cloud", value_name = "USER")]
    pub ssh_user: String,
    /// Override: a node's SSH server, `NODE=HOST:PORT`, instead of its port-forwarding rule;
    /// repeat per node.
    #[arg(long = "ssh-endpoint", value_name = "NODE=HOST:PORT")]
    pub ssh_endpoints: Vec<String>,
    /// Override: where the etcd CA and client certificate are on the nodes.
    #[arg(long = "etcd-pki-dir", default_value = KUBEADM_ETCD_PKI, value_name = "DIR")]
    pub etcd_pki_dir: String,
    /// Override: the etcdctl program on the nodes.
    #[arg(long = "etcdctl", default_value = "etcdctl", value_name = "PATH")]
    pub etcdctl: String,
}
