//! What the live commands are told: the cluster, the store, how to reach Kubernetes, etcd and
//! the nodes, and the engine's timings, as typed values (the command line parses them).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use crate::adapters::store::StoreUrl;
use cks_ssh::openssh::NodeAddress;

/// How to reach a real cluster. CloudStack's endpoint and keys come from the environment
/// (`CLOUDSTACK_ENDPOINT`, `CLOUDSTACK_KEY`, `CLOUDSTACK_SECRET`) or the INI file
/// `CLOUDSTACK_CONFIG` names.
#[derive(Debug, Clone)]
pub struct LiveOptions {
    /// The CKS cluster's id (uuid).
    pub cluster_id: String,
    /// The store of cluster records.
    pub store: StoreUrl,
    /// The store's password, if its URL holds one (never shown by a gate command).
    pub store_secret: Option<String>,
    /// The cluster's kubeconfig.
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context (default: its current-context).
    pub context: Option<String>,
    /// Control nodes' own API servers: node name → `https://IP:6443`.
    pub control_endpoints: BTreeMap<String, String>,
    /// etcd members' client URLs: member name → `https://IP:2379`.
    pub etcd_endpoints: BTreeMap<String, String>,
    /// The etcd CA certificate (PEM).
    pub etcd_ca: Option<PathBuf>,
    /// The etcd client certificate (PEM).
    pub etcd_cert: Option<PathBuf>,
    /// The etcd client key (PEM).
    pub etcd_key: Option<PathBuf>,
    /// Time allowed for one batch.
    pub batch_timeout: Duration,
    /// Time allowed to drain one node.
    pub drain_timeout: Duration,
    /// Time between two polls.
    pub poll_interval: Duration,
    /// After this long a lease not renewed means its owner is gone.
    pub lease_timeout: Duration,
    /// The most of one CloudStack, Kubernetes API or etcd answer that is read, in bytes.
    pub max_answer_size: u64,
    /// SSH to the nodes, and overrides of what is found through CloudStack.
    pub ssh: SshOptions,
}

/// How to reach the nodes over SSH, and the overrides of what discovery finds.
#[derive(Debug, Clone)]
pub struct SshOptions {
    /// The cluster's SSH private key (the key pair CKS gave the nodes).
    pub ssh_key: Option<PathBuf>,
    /// A known_hosts file trusting the nodes' host keys (`[host]:port` entries).
    pub known_hosts: Option<PathBuf>,
    /// Host key fingerprints to trust, `[NODE=]SHA256:...`.
    pub host_key_fingerprints: Vec<String>,
    /// The SSH login user on the nodes.
    pub ssh_user: String,
    /// Nodes' SSH servers (node name → address) instead of their port-forwarding rules.
    pub ssh_endpoints: BTreeMap<String, NodeAddress>,
    /// Where the etcd CA and client certificate are on the nodes.
    pub etcd_pki_dir: String,
    /// The etcdctl program on the nodes.
    pub etcdctl: String,
}
