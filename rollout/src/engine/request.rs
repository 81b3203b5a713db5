//! The update call's inputs and its refusals.

use crate::model::{ClusterState, NodeType};
use crate::ports::PortError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The inputs of the update call, keyed by node type name as the API receives them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct UpdateRequest {
    /// `nodeofferings`: node type → service offering id.
    pub node_offerings: BTreeMap<String, String>,
    /// `noderootdisksizes`: node type → root disk size in GB.
    pub node_root_disk_sizes: BTreeMap<String, i64>,
    /// `nodeaffinitygroups`: node type → affinity group ids.
    pub node_affinity_groups: BTreeMap<String, Vec<String>>,
    /// `rollout`: restart out-of-date nodes (default false: only store the settings).
    pub rollout: bool,
    /// `maxunavailable`: workers restarted at a time (default 1, only with `rollout=true`).
    pub max_unavailable: Option<i64>,
    /// `cancelrollout`: stop a running rollout between two batches.
    pub cancel_rollout: bool,
    /// Move nodes off the cluster's default offering even where CloudStack's autoscaler then
    /// fails (apache/cloudstack#11994; [`super::autoscaler_risk`]).
    pub accept_autoscaler_risk: bool,
}

impl UpdateRequest {
    /// True when no setting is given (a plain resume or cancel).
    pub fn has_settings(&self) -> bool {
        !(self.node_offerings.is_empty()
            && self.node_root_disk_sizes.is_empty()
            && self.node_affinity_groups.is_empty())
    }
}

/// Why an update call was refused or failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UpdateError {
    /// A parameter is invalid; the message names it and says what was expected.
    #[error("invalid parameter {parameter}: {message}")]
    InvalidParameter {
        /// The API parameter (`nodeofferings`, `maxunavailable`, ...).
        parameter: &'static str,
        /// What is wrong and what to do.
        message: String,
    },
    /// The cluster's state does not allow the call.
    #[error("cluster {cluster} is {state:?}: {message}")]
    WrongState {
        /// Cluster id.
        cluster: String,
        /// Its state.
        state: ClusterState,
        /// What the call needs.
        message: String,
    },
    /// Another operation changed the cluster's state between reading and writing it.
    #[error(
        "cluster {cluster} is no longer {expected:?} (another operation changed it); retry the call"
    )]
    Concurrent {
        /// Cluster id.
        cluster: String,
        /// The state it was read in.
        expected: ClusterState,
    },
    /// Storing the settings failed; the cluster went back to its previous state.
    #[error(
        "storing the settings of cluster {cluster} failed: {message}; the cluster is back to {restored:?}"
    )]
    StoreFailed {
        /// Cluster id.
        cluster: String,
        /// The cause.
        message: String,
        /// The state it went back to.
        restored: ClusterState,
    },
    /// A rollout control value is refused (before anything was asked of CloudStack).
    #[error(transparent)]
    Control(#[from] super::config::ControlError),
    /// The update changes a node type whose VMs and Kubernetes nodes could not all be matched.
    #[error(
        "cannot roll out the {node_type} nodes: {}; fix the cluster, or leave the {node_type} settings out to roll out the other types",
        reasons.join("; ")
    )]
    Unmatched {
        /// The node type.
        node_type: NodeType,
        /// Each VM without a node and node without a VM, one line each.
        reasons: Vec<String>,
    },
    /// The update moves nodes off the cluster's default offering where the autoscaler would
    /// then fail, and the risk was not accepted.
    #[error(transparent)]
    AutoscalerRisk(#[from] super::autoscaler_risk::AutoscalerRiskRefused),
    /// The engine stopped on an error of its own before anything was changed.
    #[error(transparent)]
    Engine(super::error::EngineError),
    /// A port call failed before anything was changed.
    #[error("{what}: {source}")]
    Port {
        /// The call.
        what: &'static str,
        /// Its error.
        source: PortError,
    },
}

impl UpdateError {
    /// An [`UpdateError::InvalidParameter`].
    pub fn param(parameter: &'static str, message: impl Into<String>) -> Self {
        UpdateError::InvalidParameter {
            parameter,
            message: message.into(),
        }
    }

    /// The named parameter, for refusals of one.
    pub fn parameter(&self) -> Option<&'static str> {
        match self {
            UpdateError::InvalidParameter { parameter, .. } => Some(parameter),
            _ => None,
        }
    }
}
