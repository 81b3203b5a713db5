//! The fleet's record in the store: where each stage and each cluster is, who holds what, and
//! whether the fleet was halted or cancelled. Every worker reads and changes it only through
//! the store's one-transaction change, so the rules in [`crate::rules`] see it whole.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::plan::FleetPlan;

/// A worker's hold on a cluster or a stage's gates: who, since when (the store's clock) and
/// which claim (every claim counts up, so a worker that lost a hold never mistakes a later one
/// for its own).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lease {
    /// The worker's name.
    pub owner: String,
    /// When it was last renewed, milliseconds since the Unix epoch by the store's clock.
    pub heartbeat_ms: u64,
    /// The claim's number.
    pub claim: u32,
}

impl Lease {
    /// True while the lease is younger than `lease_ms` at `now_ms`.
    pub fn live(&self, now_ms: u64, lease_ms: u64) -> bool {
        now_ms < self.heartbeat_ms.saturating_add(lease_ms)
    }
}

/// How far a cluster's actions got, so a worker that takes over goes on from there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Nothing done yet.
    Start,
    /// Upgraded (or no upgrade asked).
    Upgraded,
    /// The node settings rolled out too (or none asked).
    Settled,
}

/// Where a cluster is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum ClusterStatus {
    /// Not started.
    Pending,
    /// A worker acts on it.
    Active {
        /// The worker's hold.
        lease: Lease,
    },
    /// Done.
    Done {
        /// What was done.
        detail: String,
    },
    /// Failed.
    Failed {
        /// Why (CloudStack's own error where it gave one).
        error: String,
    },
}

impl ClusterStatus {
    /// True once the cluster ended (done or failed).
    pub fn ended(&self) -> bool {
        matches!(
            self,
            ClusterStatus::Done { .. } | ClusterStatus::Failed { .. }
        )
    }
}

/// One cluster of the fleet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterProgress {
    /// Its name.
    pub name: String,
    /// The project owning it, if any.
    #[serde(default)]
    pub project: Option<String>,
    /// Its stage (an index into the plan's stages).
    pub stage: usize,
    /// Its Kubernetes version when the fleet was planned.
    pub from_version: String,
    /// Where it is.
    #[serde(flatten)]
    pub status: ClusterStatus,
    /// How far its actions got.
    pub phase: Phase,
    /// How many times a worker claimed it.
    pub claims: u32,
    /// When it was first claimed (store clock, ms).
    #[serde(default)]
    pub started_ms: Option<u64>,
    /// When it ended (store clock, ms).
    #[serde(default)]
    pub ended_ms: Option<u64>,
}

/// Where a stage is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum StageStatus {
    /// Not started: the stages before it have not passed.
    Waiting,
    /// A worker runs its gates.
    Gating {
        /// The worker's hold.
        lease: Lease,
    },
    /// Its clusters may start.
    Running,
    /// Every cluster ended; waiting out the soak.
    Soaking {
        /// When the soak ends (store clock, ms).
        until_ms: u64,
    },
    /// Soaked and under its failure threshold: the next stage may start.
    Passed,
}

/// One stage's progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageProgress {
    /// Where it is.
    #[serde(flatten)]
    pub status: StageStatus,
    /// When its first cluster could start (store clock, ms).
    #[serde(default)]
    pub started_ms: Option<u64>,
    /// When it passed (store clock, ms).
    #[serde(default)]
    pub passed_ms: Option<u64>,
}

/// The whole fleet, as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FleetRecord {
    /// The fleet's name.
    pub id: String,
    /// When it was created (store clock, ms).
    pub created_ms: u64,
    /// What it does.
    pub plan: FleetPlan,
    /// Each stage's progress, as the plan's stages.
    pub stages: Vec<StageProgress>,
    /// Each cluster's progress, by id.
    pub clusters: BTreeMap<String, ClusterProgress>,
    /// Why the fleet halted (a stage's failures reached its threshold, or a gate failed).
    #[serde(default)]
    pub halted: Option<String>,
    /// Set by `cancel`: no new cluster starts.
    #[serde(default)]
    pub cancelled: bool,
    /// When the fleet ended (store clock, ms): nothing runs and nothing will start.
    #[serde(default)]
    pub ended_ms: Option<u64>,
    /// How many times a worker took a lapsed hold over.
    #[serde(default)]
    pub takeovers: u32,
}

impl FleetRecord {
    /// A new fleet: every cluster pending in its stage, the first stage waiting.
    pub fn new(
        id: &str,
        created_ms: u64,
        plan: FleetPlan,
        clusters: impl IntoIterator<Item = (String, String, Option<String>, String)>,
    ) -> Self {
        let mut by_id = BTreeMap::new();
        let stage_of: BTreeMap<&String, usize> = plan
            .stages
            .iter()
            .enumerate()
            .flat_map(|(i, s)| s.clusters.iter().map(move |c| (c, i)))
            .collect();
        for (cluster, name, project, from_version) in clusters {
            let Some(stage) = stage_of.get(&cluster).copied() else {
                continue;
            };
            by_id.insert(
                cluster,
                ClusterProgress {
                    name,
                    project,
                    stage,
                    from_version,
                    status: ClusterStatus::Pending,
                    phase: Phase::Start,
                    claims: 0,
                    started_ms: None,
                    ended_ms: None,
                },
            );
        }
        let stages = plan
            .stages
            .iter()
            .map(|_| StageProgress {
                status: StageStatus::Waiting,
                started_ms: None,
                passed_ms: None,
            })
            .collect();
        FleetRecord {
            id: id.to_string(),
            created_ms,
            plan,
            stages,
            clusters: by_id,
            halted: None,
            cancelled: false,
            ended_ms: None,
            takeovers: 0,
        }
    }

    /// The clusters of stage `stage`, in the plan's order.
    pub fn stage_clusters(
        &self,
        stage: usize,
    ) -> impl Iterator<Item = (&String, &ClusterProgress)> {
        self.plan
            .stages
            .get(stage)
            .into_iter()
            .flat_map(|s| s.clusters.iter())
            .filter_map(|id| self.clusters.get_key_value(id))
    }

    /// How many clusters of stage `stage` failed.
    pub fn failures_in(&self, stage: usize) -> u32 {
        self.stage_clusters(stage)
            .filter(|(_, c)| matches!(c.status, ClusterStatus::Failed { .. }))
            .count() as u32
    }

    /// True when no new cluster may start: halted or cancelled.
    pub fn stopping(&self) -> bool {
        self.halted.is_some() || self.cancelled
    }
}
