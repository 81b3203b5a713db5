//! Finding the way into a CKS cluster from its id, as CKS itself finds it: the kubeconfig
//! CloudStack holds (`getKubernetesClusterConfig`), which VM is which Kubernetes node (matched
//! by address), each control node's own API server (`https://<InternalIP>:6443`), and where to
//! reach each node over SSH (the cluster's public address and the port its port-forwarding rule
//! gives, or the private address on port 22 on a directly reachable network).
//!
//! Each piece is a plain function over CloudStack's and Kubernetes' answers, so the rules are
//! tested without a cloud; the command line puts them together and lets flags override them.
//! `cks-rollout` and `cks-upgrade-hook` both find their clusters with it.
//!
//! ```no_run
//! use std::collections::BTreeMap;
//! use cks_cloudstack::{CloudStackClient, CloudStackConfig};
//! use cks_discovery::{cluster_api, ssh_access};
//!
//! let client = CloudStackClient::new(CloudStackConfig::from_env()?)?;
//! let info = cluster_api::cluster_info(&client, "2f9c1e3a-5b7d-4c1e-9a0b-1c2d3e4f5a6b")?;
//! let nodes = ssh_access::nodes_from_vms(&info);
//! let refs: Vec<_> = nodes.iter().collect();
//! for (node, address) in nodes.iter().zip(ssh_access::node_addresses(&client, &info, &refs, &BTreeMap::new())?) {
//!     println!("{} ({}): ssh to {address}", node.node_name, node.node_type);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod cluster_api;
pub mod error;
pub mod fetched_kubeconfig;
pub mod kube_node;
pub mod kubeconfig;
pub mod node_type;
pub mod nodes;
pub mod ssh_access;
pub mod ssh_route;

pub use cluster_api::{Autoscaling, ClusterInfo, ClusterVm, PortForward};
pub use error::DiscoveryError;
pub use kubeconfig::FetchedKubeconfig;
pub use node_type::{NodeType, UnknownNodeType, node_type_of};
pub use nodes::{KubeNode, MatchedNode, NodeMap};
pub use ssh_access::{HostKeys, SshLogin};
pub use ssh_route::SshRoute;
