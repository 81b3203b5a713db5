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
pub mod fetched_kubeconfig;
pub mod kube_node;
pub mod kubeconfig;
pub mod node_type;
pub mod nodes;
pub mod ssh_access;
pub mod ssh_route;

use cks_cloudstack::CloudStackError;

pub use cluster_api::{Autoscaling, ClusterInfo, ClusterVm, PortForward};
pub use kubeconfig::FetchedKubeconfig;
pub use node_type::{NodeType, UnknownNodeType, node_type_of};
pub use nodes::{KubeNode, MatchedNode, NodeMap};
pub use ssh_access::{HostKeys, SshLogin};
pub use ssh_route::SshRoute;

/// What could not be found. Each message names what is missing and the flag that supplies it.
#[derive(Debug, thiserror::Error)]
pub enum DiscoveryError {
    /// A CloudStack call failed.
    #[error("{what}: {source}")]
    CloudStack {
        /// What was being read.
        what: String,
        /// The client's error.
        source: CloudStackError,
    },
    /// CloudStack holds no kubeconfig for the cluster.
    #[error(
        "CloudStack has no kubeconfig for cluster {cluster} (getKubernetesClusterConfig answered {answer}); pass --kubeconfig FILE"
    )]
    NoKubeconfig {
        /// The cluster id.
        cluster: String,
        /// What the call answered instead.
        answer: String,
    },
    /// The kubeconfig could not be kept in a private temporary file.
    #[error("keeping the cluster's kubeconfig in a private temporary file: {0}")]
    TempFile(std::io::Error),
    /// The Kubernetes node list could not be read.
    #[error(
        "reading the Kubernetes nodes from {server}: {detail}; check the kubeconfig or pass --kubeconfig FILE"
    )]
    Nodes {
        /// The API server.
        server: String,
        /// Why.
        detail: String,
    },
    /// No port-forwarding rule leads to a node's SSH port.
    #[error(
        "no port-forwarding rule on {public_address} leads to port 22 of {node} (VM {vm}); add the rule in CloudStack or pass --ssh-endpoint {node}=HOST:PORT"
    )]
    NoPortForward {
        /// The node.
        node: String,
        /// The VM's id.
        vm: String,
        /// The cluster's public address.
        public_address: String,
    },
    /// A node on a direct network has no private address.
    #[error(
        "{node} (VM {vm}) has no NIC address in CloudStack to reach it over SSH; pass --ssh-endpoint {node}=HOST:PORT"
    )]
    NoAddress {
        /// The node.
        node: String,
        /// The VM's id.
        vm: String,
    },
    /// A `--ssh-endpoint` that is not `NODE=HOST:PORT`.
    #[error("--ssh-endpoint {0:?}: expected NODE=HOST:PORT")]
    BadEndpoint(String),
    /// A `--host-key-fingerprint` that does not parse.
    #[error("--host-key-fingerprint {text:?}: {error}")]
    BadFingerprint {
        /// The flag's value.
        text: String,
        /// Why it does not parse.
        error: String,
    },
    /// The `--known-hosts` file does not exist.
    #[error("--known-hosts {}: no such file", .0.display())]
    NoKnownHostsFile(std::path::PathBuf),
    /// No trusted host key applies to a node.
    #[error(
        "no trusted SSH host key for {node}: pass --known-hosts FILE or --host-key-fingerprint {node}=SHA256:..."
    )]
    NoHostKey {
        /// The node.
        node: String,
    },
}
