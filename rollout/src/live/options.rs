//! What the live commands are told: the cluster, the store, how to reach Kubernetes, etcd and
//! the nodes, and the engine's timings, as plain values (the command line fills them in).

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use crate::adapters::store::StoreUrl;

/// How to reach a real cluster. CloudStack's endpoint and keys come from the environment
/// (`CLOUDSTACK_ENDPOINT`, `CLOUDSTACK_KEY`, `CLOUDSTACK_SECRET`) or the INI file
/// `CLOUDSTACK_CONFIG` names.
#[derive(Debug, Clone)]
pub struct LiveOptions {
    /// The CKS cluster's id (uuid).
    pub cluster_id: String,
    /// The store of cluster records, as given (`postgres://...`, `sqlite:PATH` or a path).
    pub store: String,
    /// The cluster's kubeconfig.
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context (default: its current-context).
    pub context: Option<String>,
    /// Control nodes' own API servers, `NODE=https://IP:6443`.
    pub control_endpoints: Vec<String>,
    /// etcd members' client URLs, `NAME=https://IP:2379`.
    pub etcd_endpoints: Vec<String>,
    /// The etcd CA certificate (PEM).
    pub etcd_ca: Option<PathBuf>,
    /// The etcd client certificate (PEM).
    pub etcd_cert: Option<PathBuf>,
    /// The etcd client key (PEM).
    pub etcd_key: Option<PathBuf>,
    /// Time allowed for one batch, in seconds.
    pub batch_timeout: u64,
    /// Time allowed to drain one node, in seconds.
    pub drain_timeout: u64,
    /// Time between two polls, in milliseconds.
    pub poll_interval_ms: u64,
    /// Seconds after which a lease not renewed means its owner is gone.
    pub lease_timeout: u64,
    /// The most of one CloudStack, Kubernetes API or etcd answer that is read, in bytes.
    pub max_answer_size: u64,
    /// SSH to the nodes, and overrides of what is found through CloudStack.
    pub ssh: SshOptions,
}

impl LiveOptions {
    /// The overrides' forms checked on their own (`NODE=URL` endpoints, `NODE=HOST:PORT` SSH
    /// servers), before anything is asked of CloudStack: one that does not parse is refused
    /// at once rather than after the discovery it would have overridden.
    pub fn check(&self) -> Result<()> {
        pairs("control-endpoint", &self.control_endpoints)?;
        pairs("etcd-endpoint", &self.etcd_endpoints)?;
        cks_discovery::ssh_access::parse_endpoints(&self.ssh.ssh_endpoints)?;
        Ok(())
    }

    /// The store [`LiveOptions::store`] names, parsed so that a value that does not parse is
    /// never echoed with its password.
    pub fn store_url(&self) -> Result<StoreUrl> {
        Ok(self.store.parse::<StoreUrl>()?)
    }
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
    /// Nodes' SSH servers, `NODE=HOST:PORT`, instead of their port-forwarding rules.
    pub ssh_endpoints: Vec<String>,
    /// Where the etcd CA and client certificate are on the nodes.
    pub etcd_pki_dir: String,
    /// The etcdctl program on the nodes.
    pub etcdctl: String,
}

/// Parses repeated `NAME=URL` options (`--option`) into a map.
pub fn pairs(option: &str, items: &[String]) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for text in items {
        let (name, url) = text.split_once('=').with_context(|| {
            format!("--{option} {text:?}: expected TYPE=VALUE, e.g. --{option} worker=...")
        })?;
        if !url.starts_with("http://") && !url.starts_with("https://") {
            bail!("--{option} {text:?}: the URL must start with https:// (or http://)");
        }
        out.insert(name.to_string(), url.to_string());
    }
    Ok(out)
}
