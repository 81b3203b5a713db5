//! Finding the way into a CKS cluster from its id: the discovery both operator tools share
//! ([`cks_discovery`], re-exported under the paths the rollout has always used), the node list
//! read through the rollout's Kubernetes client.

mod node_list;

pub use cks_discovery::{
    ClusterInfo, ClusterVm, DiscoveryError, FetchedKubeconfig, KubeNode, MatchedNode, NodeMap,
    PortForward, SshRoute, cluster_api, fetched_kubeconfig, kubeconfig, ssh_route,
};

/// Which VM is which Kubernetes node, and the node list read for it.
pub mod nodes {
    pub use super::node_list::list_nodes;
    pub use cks_discovery::nodes::*;
}
