//! What the Kubernetes API reports about nodes and pods, and how the engine addresses it.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The annotation the engine puts on a node it cordons; its value is the node's boot ID before
/// the restart.
pub const ROLLOUT_ANNOTATION: &str = "cloudstack.apache.org/rollout-boot-id";

/// The status of a node's `Ready` condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Readiness {
    /// `Ready=True`.
    True,
    /// `Ready=False`.
    False,
    /// `Ready=Unknown` (or no condition).
    Unknown,
}

/// One node as the API reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeStatus {
    /// Node name.
    pub name: String,
    /// The `Ready` condition.
    pub ready: Readiness,
    /// `status.nodeInfo.bootID`.
    pub boot_id: String,
    /// `status.capacity.cpu`, in whole cores.
    pub capacity_cpu: u32,
    /// `status.capacity.memory`, in KiB.
    pub capacity_memory_kib: u64,
    /// `spec.unschedulable`.
    pub unschedulable: bool,
    /// `metadata.annotations`.
    pub annotations: BTreeMap<String, String>,
}

impl NodeStatus {
    /// True when `Ready=True`.
    pub fn is_ready(&self) -> bool {
        self.ready == Readiness::True
    }

    /// The rollout annotation's value, if any.
    pub fn rollout_boot_id(&self) -> Option<&str> {
        self.annotations.get(ROLLOUT_ANNOTATION).map(String::as_str)
    }
}

/// A pod on a node, as far as a drain needs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pod {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// The node it is bound to.
    pub node: String,
    /// True when owned by a DaemonSet (left on the node by a drain).
    pub daemonset: bool,
    /// True for a mirror (static) pod (left on the node by a drain).
    pub mirror: bool,
}

/// What an eviction request returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum EvictionOutcome {
    /// 201: the pod is being evicted.
    Evicted,
    /// 404: the pod is already gone.
    Gone,
    /// 429: a PodDisruptionBudget does not allow it now.
    Blocked {
        /// The budget's name (`namespace/name`) when the API or a PDB lookup names it.
        budget: Option<String>,
        /// The API's message.
        message: String,
    },
}

/// Which API server a request goes to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Endpoint {
    /// The cluster's endpoint (as in its kubeconfig).
    Cluster,
    /// The API server on this control node (by node name).
    Control(String),
}

/// Which readiness check to ask an API server for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReadyzCheck {
    /// `/readyz`.
    All,
    /// `/readyz/etcd`.
    Etcd,
}
