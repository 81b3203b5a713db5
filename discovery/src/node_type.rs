//! The three kinds of CKS node.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The role of a node in a CKS cluster; each type has its own settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeType {
    /// An external etcd node (only when the cluster has `etcdnodes` > 0).
    Etcd,
    /// A control-plane node (API server; also an etcd member when etcd is stacked).
    Control,
    /// A worker node.
    Worker,
}

impl NodeType {
    /// All types, in rollout order (etcd, then control, then workers).
    pub const ALL: [NodeType; 3] = [NodeType::Etcd, NodeType::Control, NodeType::Worker];

    /// The lower-case name used in API parameters (`control`, `worker`, `etcd`).
    pub fn as_str(self) -> &'static str {
        match self {
            NodeType::Etcd => "etcd",
            NodeType::Control => "control",
            NodeType::Worker => "worker",
        }
    }
}

impl fmt::Display for NodeType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A node type name that is none of `control`, `worker`, `etcd`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown node type '{0}'; expected control, worker or etcd")]
pub struct UnknownNodeType(pub String);

impl FromStr for NodeType {
    type Err = UnknownNodeType;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "control" => Ok(NodeType::Control),
            "worker" => Ok(NodeType::Worker),
            "etcd" => Ok(NodeType::Etcd),
            _ => Err(UnknownNodeType(s.to_string())),
        }
    }
}

/// The node type CKS gave a VM, read from its name.
pub fn node_type_of(cluster_name: &str, vm_name: &str) -> NodeType {
    let rest = vm_name.strip_prefix(cluster_name).unwrap_or(vm_name);
    if rest.contains("-control-")
        || rest.contains("-master-")
        || rest.ends_with("-control")
        || rest.ends_with("-master")
    {
        NodeType::Control
    } else if rest.contains("-etcd-") || rest.ends_with("-etcd") {
        NodeType::Etcd
    } else {
        NodeType::Worker
    }
}
