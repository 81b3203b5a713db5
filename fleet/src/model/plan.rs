//! What a fleet does, fixed when it is created: its stages and their clusters, what happens to
//! each cluster, when clusters may start, and the lease every worker holds a cluster by.

use cks_rollout::engine::window::Window;
use serde::{Deserialize, Serialize};

/// The Kubernetes version the fleet upgrades to, as CloudStack registered it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetVersion {
    /// The version's id (what `upgradeKubernetesCluster` takes).
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its semantic version.
    pub semver: semver::Version,
}

/// Node settings per node type, in the rollout's own flag forms (`worker=OFFERING_ID`,
/// `control=40`, `worker=GROUP1,GROUP2`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeSettings {
    /// `--offering TYPE=ID`.
    #[serde(default)]
    pub offerings: Vec<String>,
    /// `--root-disk-size TYPE=GB`.
    #[serde(default)]
    pub root_disk_sizes: Vec<String>,
    /// `--affinity-groups TYPE=IDS`.
    #[serde(default)]
    pub affinity_groups: Vec<String>,
}

impl NodeSettings {
    /// True when no setting is given.
    pub fn is_empty(&self) -> bool {
        self.offerings.is_empty()
            && self.root_disk_sizes.is_empty()
            && self.affinity_groups.is_empty()
    }
}

/// What happens to each cluster, in the design's order: the upgrade, then the node settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Actions {
    /// Upgrade to this version (`upgradeKubernetesCluster`, with the preload before and the
    /// refresh after, as `cks-upgrade-hook upgrade` does).
    pub upgrade: Option<TargetVersion>,
    /// Roll these node settings out (as `cks-rollout run` does).
    pub settings: Option<NodeSettings>,
}

/// One stage: its clusters, how many run at once, the wait after it, its gates, and how many
/// failures halt the fleet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedStage {
    /// Its name (`canary`, `10%`, `rest`).
    pub name: String,
    /// Its clusters' ids, in the order they start.
    pub clusters: Vec<String>,
    /// How many of its clusters are acted on at once (at least 1).
    pub parallelism: u32,
    /// How long to wait once every cluster of the stage ended, before the next stage.
    pub soak_ms: u64,
    /// Commands that must exit 0 before the stage starts.
    pub gates: Vec<String>,
    /// This many failed clusters in the stage halt the fleet (at least 1).
    pub halt_after: u32,
}

/// A cluster selected but refused when the fleet was planned, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedCluster {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Why nothing is done to it.
    pub reason: String,
}

/// Everything fixed when a fleet is created.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FleetPlan {
    /// The stages, in order.
    pub stages: Vec<PlannedStage>,
    /// What happens to each cluster.
    pub actions: Actions,
    /// No cluster starts outside these windows (none: always).
    #[serde(default)]
    pub windows: Vec<Window>,
    /// A worker's hold on a cluster lapses this long after its last renewal.
    pub lease_ms: u64,
    /// How long one gate command may run.
    pub gate_timeout_ms: u64,
    /// Variables of the worker's environment passed on to gates.
    #[serde(default)]
    pub gate_env: Vec<String>,
    /// Clusters selected but refused, with the reason.
    #[serde(default)]
    pub skipped: Vec<SkippedCluster>,
}
