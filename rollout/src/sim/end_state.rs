//! The state a rollout's result is judged by, for comparing runs.

use super::world::World;
use crate::model::{ClusterState, Readiness};

/// The state of the cluster that a rollout's result is judged by (boot IDs and timing aside).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndState {
    /// Cluster state, cores, memory, last error, settings.
    pub record: (ClusterState, u64, u64, Option<String>, String),
    /// Per VM.
    pub vms: Vec<VmEndState>,
}

/// One VM's part of an [`EndState`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VmEndState {
    /// Node name.
    pub name: String,
    /// Power state.
    pub state: String,
    /// Offering id.
    pub offering: String,
    /// Affinity groups.
    pub groups: Vec<String>,
    /// Root disk (GB).
    pub root_gb: u64,
    /// Node cordoned.
    pub unschedulable: bool,
    /// Node carries annotations.
    pub annotated: bool,
    /// Node Ready.
    pub ready: bool,
}

impl World {
    /// This world's [`EndState`].
    pub fn end_state(&self) -> EndState {
        EndState {
            record: (
                self.record.state,
                self.record.cores,
                self.record.memory_mb,
                self.record.last_error.clone(),
                format!("{:?}", self.record.settings),
            ),
            vms: self
                .vms
                .values()
                .map(|v| {
                    let n = v.node.as_ref();
                    VmEndState {
                        name: v.name.clone(),
                        state: format!("{:?}", v.state),
                        offering: v.offering.clone(),
                        groups: v.groups.clone(),
                        root_gb: v.root_gb,
                        unschedulable: n.is_some_and(|n| n.unschedulable),
                        annotated: n.is_some_and(|n| !n.annotations.is_empty()),
                        ready: n.is_some_and(|n| n.ready == Readiness::True),
                    }
                })
                .collect(),
        }
    }
}
