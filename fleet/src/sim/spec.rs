//! The simulated fleet, described in a file (YAML): its clusters and their failures, the
//! stages, the workers and when some are killed. `fleet/examples/simulate-fleet.yaml` documents
//! every key.

use serde::Deserialize;

use crate::stages::{SettingsSpec, StageSpec};

/// One simulated cluster.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimClusterSpec {
    /// Its name.
    pub name: String,
    /// Its Kubernetes version.
    #[serde(default = "default_version")]
    pub version: String,
    /// Its CKS state when the fleet starts.
    #[serde(default = "running")]
    pub state: String,
    /// Its node count (the settings rollout takes 5 minutes a node).
    #[serde(default = "three")]
    pub nodes: u32,
    /// The project owning it.
    pub project: Option<String>,
    /// How long its upgrade job takes, in minutes.
    #[serde(default = "twenty")]
    pub upgrade_minutes: u64,
    /// Its upgrade job fails with this CloudStack error (the cluster ends in Alert).
    pub fail_upgrade: Option<String>,
    /// Its settings rollout fails with this error.
    pub fail_settings: Option<String>,
}

fn default_version() -> String {
    "1.32.4".into()
}
fn running() -> String {
    "Running".into()
}
fn three() -> u32 {
    3
}
fn twenty() -> u64 {
    20
}

/// Many alike clusters, named `c-01`...
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Generate {
    /// How many.
    pub count: usize,
    /// Their version.
    #[serde(default = "default_version")]
    pub version: String,
    /// Every n-th belongs to a project.
    pub project_every: Option<usize>,
}

/// A worker killed at a time.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kill {
    /// The worker's number, from 1.
    pub worker: usize,
    /// Minutes after the start.
    pub at_minutes: u64,
}

/// What a stage's gate answers in the simulation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimGate {
    /// The stage's number, from 1.
    pub stage: usize,
    /// Its exit code.
    #[serde(default)]
    pub exit: i32,
    /// How long it runs, in seconds.
    #[serde(default)]
    pub seconds: u64,
    /// Its last line of output.
    #[serde(default)]
    pub output: String,
}

/// A whole simulated fleet.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FleetSimSpec {
    /// The seed of every random choice.
    #[serde(default)]
    pub seed: u64,
    /// How many workers.
    #[serde(default = "one")]
    pub workers: usize,
    /// The lease, in seconds.
    #[serde(default = "lease")]
    pub lease_seconds: u64,
    /// How often a worker looks at what runs, in seconds.
    #[serde(default = "poll")]
    pub poll_seconds: u64,
    /// The version to upgrade to.
    pub to: Option<String>,
    /// Node settings to roll out.
    pub settings: Option<SettingsSpec>,
    /// Failed clusters in a stage that halt the fleet.
    #[serde(default = "one_u32")]
    pub halt_after: u32,
    /// The stages.
    #[serde(default)]
    pub stages: Vec<StageSpec>,
    /// The gates' answers.
    #[serde(default)]
    pub gates: Vec<SimGate>,
    /// The clusters, one by one.
    #[serde(default)]
    pub clusters: Vec<SimClusterSpec>,
    /// Or many alike.
    pub generate: Option<Generate>,
    /// Workers killed, and when.
    #[serde(default)]
    pub kills: Vec<Kill>,
    /// Cancel the fleet this many minutes after the start.
    pub cancel_at_minutes: Option<u64>,
}

fn one() -> usize {
    1
}
fn one_u32() -> u32 {
    1
}
fn lease() -> u64 {
    300
}
fn poll() -> u64 {
    30
}

impl FleetSimSpec {
    /// Every cluster, the generated ones after those listed.
    pub fn all_clusters(&self) -> Vec<SimClusterSpec> {
        let mut all = self.clusters.clone();
        if let Some(g) = &self.generate {
            for i in 1..=g.count {
                all.push(SimClusterSpec {
                    name: format!("c-{i:02}"),
                    version: g.version.clone(),
                    state: running(),
                    nodes: 3,
                    project: g
                        .project_every
                        .filter(|n| *n > 0 && i % n == 0)
                        .map(|_| "team".to_string()),
                    upgrade_minutes: 20,
                    fail_upgrade: None,
                    fail_settings: None,
                });
            }
        }
        all
    }
}
