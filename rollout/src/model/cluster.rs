//! The cluster record kept by the store: state, per-type settings, capacity and rollout flags.

use cks_discovery::node_type::NodeType;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The CKS cluster states, plus `Updating` for a running rollout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ClusterState {
    /// Created, never started.
    Created,
    /// Starting.
    Starting,
    /// Running and healthy.
    Running,
    /// Stopping.
    Stopping,
    /// Stopped.
    Stopped,
    /// Scaling.
    Scaling,
    /// Scaling a stopped cluster.
    ScalingStoppedCluster,
    /// Kubernetes version upgrade running.
    Upgrading,
    /// Importing (adding) nodes.
    Importing,
    /// Removing nodes.
    RemovingNodes,
    /// Something is wrong; operators look at `lasterror`.
    Alert,
    /// Recovering from Alert.
    Recovering,
    /// Destroyed.
    Destroyed,
    /// Being destroyed.
    Destroying,
    /// Failed to create.
    Error,
    /// A rollout of node settings is running.
    Updating,
}

impl ClusterState {
    /// True while an operation runs on the cluster or it is being destroyed (or is gone): no
    /// settings may be stored then.
    pub fn is_busy(self) -> bool {
        !matches!(
            self,
            ClusterState::Created
                | ClusterState::Running
                | ClusterState::Stopped
                | ClusterState::Alert
                | ClusterState::Error
        )
    }
}

/// Settings of one node type. `None` means "none of its own" (the cluster default applies for
/// the offering; root disk and groups are then left as they are).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeTypeSettings {
    /// Service offering id for nodes of this type.
    pub offering_id: Option<String>,
    /// Root disk size in GB for nodes of this type.
    pub root_disk_size_gb: Option<u64>,
    /// Affinity group ids recorded for this type (never dedication groups), sorted.
    pub affinity_group_ids: Option<Vec<String>>,
    /// The ids of this type's VMs when these settings were stored: a VM not among them was
    /// created since (by a scale or the autoscaler), with CloudStack's own settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vms_when_stored: Option<Vec<String>>,
}

/// Settings of every node type.
pub type TypeSettings = BTreeMap<NodeType, NodeTypeSettings>;

/// Who holds a cluster in `Updating` and when it last said it is alive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lease {
    /// Owner id (for example `host:pid:start-time`).
    pub owner: String,
    /// Last heartbeat, milliseconds since the Unix epoch (or the simulator's epoch).
    pub heartbeat_ms: u64,
}

/// The stored cluster record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterRecord {
    /// Cluster id.
    pub id: String,
    /// Cluster name.
    pub name: String,
    /// State.
    pub state: ClusterState,
    /// The cluster's own service offering (the default for node types without one).
    pub service_offering_id: String,
    /// Number of control nodes.
    pub control_count: u32,
    /// Number of worker nodes.
    pub worker_count: u32,
    /// Number of external etcd nodes (0: etcd is stacked on the control nodes).
    pub etcd_count: u32,
    /// Per-type settings.
    pub settings: TypeSettings,
    /// Recorded total CPU cores.
    pub cores: u64,
    /// Recorded total memory in MiB.
    pub memory_mb: u64,
    /// `rollout.cancel`: a cancel was asked.
    pub cancel: bool,
    /// `rollout.lasterror`.
    pub last_error: Option<String>,
    /// The owner of a running rollout.
    pub lease: Option<Lease>,
}

#[cfg(test)]
impl ClusterRecord {
    /// A record for unit tests: `id` in `state`, one control and one worker node on the
    /// cluster's offering `s`, no per-type settings, no error and no lease.
    pub(crate) fn sample(id: &str, state: ClusterState) -> Self {
        ClusterRecord {
            id: id.into(),
            name: id.into(),
            state,
            service_offering_id: "s".into(),
            control_count: 1,
            worker_count: 1,
            etcd_count: 0,
            settings: Default::default(),
            cores: 0,
            memory_mb: 0,
            cancel: false,
            last_error: None,
            lease: None,
        }
    }
}

impl ClusterRecord {
    /// True when etcd runs on its own nodes.
    pub fn external_etcd(&self) -> bool {
        self.etcd_count > 0
    }

    /// Settings of `t` (empty if none stored).
    pub fn settings_of(&self, t: NodeType) -> NodeTypeSettings {
        self.settings.get(&t).cloned().unwrap_or_default()
    }

    /// The offering nodes of type `t` should have: the type's own, else the cluster's.
    pub fn offering_for(&self, t: NodeType) -> &str {
        self.settings
            .get(&t)
            .and_then(|s| s.offering_id.as_deref())
            .unwrap_or(&self.service_offering_id)
    }
}
