//! What an update that goes ahead says alongside: a risk the operator accepted, and node types
//! it leaves alone that could not be rolled out anyway.

use crate::model::NodeType;
use serde::{Deserialize, Serialize};
use std::fmt;

/// One note of an accepted update (shown before its plan or rollout).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "note", rename_all = "snake_case")]
pub enum Note {
    /// Nodes move off the cluster's default offering with autoscaling enabled on a CloudStack
    /// whose autoscaler then fails (apache/cloudstack#11994), and the operator accepted it.
    AutoscalerRiskAccepted {
        /// The server's version, as shown (`4.21`, or `(version unknown)`).
        version: String,
    },
    /// A node type the update leaves alone whose VMs and nodes could not all be matched: it
    /// could not be rolled out ([`super::UpdateError::Unmatched`] if it were changed).
    Blocked {
        /// The node type.
        node_type: NodeType,
        /// A VM without a node or a node without a VM.
        reason: String,
    },
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::AutoscalerRiskAccepted { version } => write!(
                f,
                "risk accepted: the autoscaler's scale calls may fail while any node is off the default offering (apache/cloudstack#11994), and the cluster goes to Alert when one does ({version})"
            ),
            Note::Blocked { node_type, reason } => write!(f, "{node_type} nodes: {reason}"),
        }
    }
}
