//! What discovery could not find, each message naming what is missing and the flag that
//! supplies it.

use cks_cloudstack::CloudStackError;

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
