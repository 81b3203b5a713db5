//! The command line's arguments, shared by `plan` and `run`.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use cks_rollout::cli::duration;

/// Where the fleet's record lives.
#[derive(Debug, Clone, Args)]
pub struct StoreArgs {
    /// The fleet's name: every worker of one fleet gives the same.
    #[arg(long, value_name = "NAME")]
    pub fleet: String,
    /// The store: a SQLite file for one machine, `postgres://USER@HOST/DB` for workers on
    /// several (the password in PGPASSWORD); the rollout's store, shared.
    #[arg(
        long,
        env = "CKS_ROLLOUT_STORE",
        default_value = "cks-rollout.db",
        value_name = "URL"
    )]
    pub store: String,
}

/// Which clusters, what to do, and in which stages.
#[derive(Debug, Clone, Args)]
pub struct PlanArgs {
    /// A fleet file (TOML): `to`, `settings`, `[select]`, `[[stage]]`, `halt_after`, `gates`,
    /// `windows`; flags given too take precedence.
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Upgrade every cluster to this version: its id, name or semantic version.
    #[arg(long, value_name = "VERSION")]
    pub to: Option<String>,
    /// Node settings, as `cks-rollout run` takes them (repeatable).
    #[arg(long = "offering", value_name = "TYPE=ID")]
    pub offerings: Vec<String>,
    /// Root disk size per node type (repeatable).
    #[arg(long = "root-disk-size", value_name = "TYPE=GB")]
    pub root_disk_sizes: Vec<String>,
    /// Affinity groups per node type (repeatable).
    #[arg(long = "affinity-groups", value_name = "TYPE=IDS")]
    pub affinity_groups: Vec<String>,
    /// Only clusters in this zone (id or name).
    #[arg(long, value_name = "ZONE")]
    pub zone: Option<String>,
    /// Only clusters of this project (id or name).
    #[arg(long, value_name = "PROJECT")]
    pub project: Option<String>,
    /// Only clusters of this account.
    #[arg(long, value_name = "ACCOUNT")]
    pub account: Option<String>,
    /// Only clusters of this domain (id or name).
    #[arg(long, value_name = "DOMAIN")]
    pub domain: Option<String>,
    /// Only clusters whose Kubernetes version is in this range (`<1.33`, `>=1.31,<1.33`).
    #[arg(long, value_name = "RANGE")]
    pub version: Option<String>,
    /// Only clusters whose name matches this pattern (`*` and `?`).
    #[arg(long = "cluster-name", value_name = "PATTERN")]
    pub cluster_name: Option<String>,
    /// Only clusters in this CKS state.
    #[arg(long, value_name = "STATE")]
    pub state: Option<String>,
    /// Only these clusters (repeatable).
    #[arg(long = "cluster-id", value_name = "ID")]
    pub cluster_ids: Vec<String>,
    /// A stage, in order (repeatable): `name=canary,clusters=1,soak=30m`, `percent=10,parallelism=2`;
    /// keys name, clusters, percent, parallelism, soak, halt_after; the last without clusters
    /// or percent takes the rest.
    #[arg(long = "stage", value_name = "SPEC")]
    pub stages: Vec<String>,
    /// Failed clusters in a stage that halt the fleet (default 1).
    #[arg(long = "halt-after", value_name = "N")]
    pub halt_after: Option<u32>,
    /// A command that must exit 0 before each stage (repeatable).
    #[arg(long = "gate", value_name = "CMD")]
    pub gates: Vec<String>,
    /// A variable of this environment passed on to the gates (repeatable).
    #[arg(long = "gate-env", value_name = "NAME")]
    pub gate_env: Vec<String>,
    /// Time allowed for one gate.
    #[arg(long = "gate-timeout", default_value = "5m", value_parser = duration::parse, value_name = "DURATION")]
    pub gate_timeout: Duration,
    /// No cluster starts outside these windows (repeatable), as `cks-rollout run --window`.
    #[arg(long = "window", value_name = "SPEC")]
    pub windows: Vec<String>,
    /// A worker's hold on a cluster lapses this long after its last renewal; another worker
    /// then takes the cluster over.
    #[arg(long = "lease-timeout", default_value = "5m", value_parser = duration::parse, value_name = "DURATION")]
    pub lease_timeout: Duration,
    /// Every answer of CloudStack read at most this much.
    #[arg(long = "max-answer-size", default_value = "32MiB", value_parser = cks_pinning::limits::parse_size, value_name = "SIZE")]
    pub max_answer_size: u64,
}

/// How this worker acts on each cluster.
#[derive(Debug, Clone, Args)]
pub struct WorkerArgs {
    /// This worker's name, unique among the fleet's workers (default HOST-PID).
    #[arg(long, value_name = "NAME")]
    pub worker: Option<String>,
    /// Clusters this process acts on at once (each a lease owner of its own, named
    /// WORKER/1..N); the stage's parallelism bounds the whole fleet.
    #[arg(long, default_value_t = 4, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub concurrency: u32,
    /// How often a running action is looked at.
    #[arg(long = "poll-interval", default_value = "10s", value_parser = duration::parse, value_name = "DURATION")]
    pub poll_interval: Duration,
    /// The cluster's SSH key (passed to the one-cluster tools).
    #[arg(long = "ssh-key", value_name = "FILE")]
    pub ssh_key: Option<PathBuf>,
    /// The nodes' host keys (passed on).
    #[arg(long = "known-hosts", value_name = "FILE")]
    pub known_hosts: Option<PathBuf>,
    /// The SSH user on the nodes (passed on).
    #[arg(long = "ssh-user", value_name = "USER")]
    pub ssh_user: Option<String>,
    /// The new ISO, preloaded on every node before the upgrade (passed to `upgrade --iso`).
    #[arg(long, value_name = "FILE")]
    pub iso: Option<PathBuf>,
    /// Upgrade without preloading the images.
    #[arg(long = "no-preload")]
    pub no_preload: bool,
    /// Another argument for every `cks-upgrade-hook upgrade`/`redeploy` (repeatable).
    #[arg(long = "upgrade-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub upgrade_args: Vec<String>,
    /// Another argument for every `cks-rollout run` (repeatable).
    #[arg(long = "rollout-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub rollout_args: Vec<String>,
    /// The `cks-upgrade-hook` program (default: beside this one, else on PATH).
    #[arg(long = "upgrade-hook", value_name = "PATH")]
    pub upgrade_hook: Option<PathBuf>,
    /// The `cks-rollout` program (default: beside this one, else on PATH).
    #[arg(long = "rollout", value_name = "PATH")]
    pub rollout: Option<PathBuf>,
    /// Append one JSON line per event to this file.
    #[arg(long, value_name = "FILE")]
    pub events: Option<PathBuf>,
    /// POST each event to this URL.
    #[arg(long, value_name = "URL")]
    pub webhook: Option<String>,
}
