//! How to log in to a cluster's nodes: the key, the user, which host keys to trust
//! (`--known-hosts FILE`, or `--host-key-fingerprint [NODE=]SHA256:...` per node or for all),
//! per-node endpoint overrides (`--ssh-endpoint NODE=HOST:PORT`), and where each node's SSH
//! server is, found through CloudStack when not overridden.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cks_cloudstack::CloudStackClient;
use cks_ssh::openssh::{Fingerprint, HostKeyPolicy, NodeAddress, SshConfig};

use super::cluster_api::{self, ClusterInfo};
use super::nodes::MatchedNode;
use super::ssh_route::SshRoute;
use crate::error::DiscoveryError;

/// Which host keys to trust: pinned fingerprints (per node name, or `""` for every node) before
/// a known_hosts file. Never "any key".
#[derive(Debug, Clone, Default)]
pub struct HostKeys {
    known_hosts: Option<PathBuf>,
    pins: BTreeMap<String, Fingerprint>,
}

impl HostKeys {
    /// From `--known-hosts` and the repeated `--host-key-fingerprint [NODE=]SHA256:...`.
    pub fn new(
        known_hosts: Option<&Path>,
        fingerprints: &[String],
    ) -> Result<Self, DiscoveryError> {
        if let Some(path) = known_hosts
            && !path.is_file()
        {
            return Err(DiscoveryError::NoKnownHostsFile(path.to_path_buf()));
        }
        let mut pins = BTreeMap::new();
        for text in fingerprints {
            let (node, pin) = match text.split_once('=') {
                Some((node, pin)) => (node.to_string(), pin),
                None => (String::new(), text.as_str()),
            };
            let pin = Fingerprint::parse(pin).map_err(|error| DiscoveryError::BadFingerprint {
                text: text.clone(),
                error: error.to_string(),
            })?;
            pins.insert(node, pin);
        }
        Ok(HostKeys {
            known_hosts: known_hosts.map(Path::to_path_buf),
            pins,
        })
    }

    /// Whether neither a known_hosts file nor any fingerprint was given.
    pub fn is_empty(&self) -> bool {
        self.known_hosts.is_none() && self.pins.is_empty()
    }

    /// The policy for `node`: its own pin, else the pin for every node, else the known_hosts
    /// file; an error naming the flags when none applies.
    pub fn policy_for(&self, node: &str) -> Result<HostKeyPolicy, DiscoveryError> {
        match (&self.known_hosts, self.pins.get(node).or(self.pins.get(""))) {
            (_, Some(pin)) => Ok(HostKeyPolicy::Pinned {
                fingerprint: pin.clone(),
            }),
            (Some(path), None) => Ok(HostKeyPolicy::KnownHosts { path: path.clone() }),
            (None, None) => Err(DiscoveryError::NoHostKey {
                node: node.to_string(),
            }),
        }
    }
}

/// Parses `--ssh-endpoint NODE=HOST:PORT` (`[v6]:PORT` for IPv6).
pub fn parse_endpoint(text: &str) -> Result<(String, NodeAddress), DiscoveryError> {
    let bad = || DiscoveryError::BadEndpoint(text.to_string());
    let (node, target) = text.split_once('=').ok_or_else(bad)?;
    let (host, port) = target.rsplit_once(':').ok_or_else(bad)?;
    let port: u16 = port.parse().map_err(|_| bad())?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    Ok((
        node.to_string(),
        NodeAddress::BehindNat {
            public_address: host.to_string(),
            port,
        },
    ))
}

/// Parses every `--ssh-endpoint`.
pub fn parse_endpoints(texts: &[String]) -> Result<BTreeMap<String, NodeAddress>, DiscoveryError> {
    texts.iter().map(|t| parse_endpoint(t)).collect()
}

/// The cluster's nodes from its VMs alone, for callers that need no Kubernetes node names (the
/// upgrade tools): each VM under its name, with its first NIC address.
pub fn nodes_from_vms(info: &ClusterInfo) -> Vec<MatchedNode> {
    info.vms
        .iter()
        .map(|vm| MatchedNode {
            vm_id: vm.id.clone(),
            vm_name: vm.name.clone(),
            node_name: vm.name.clone(),
            node_type: vm.node_type,
            address: vm.addresses.first().cloned().unwrap_or_default(),
        })
        .collect()
}

/// Where each of `nodes` is reached over SSH, in order: its `overrides` entry, else the
/// cluster's route (the port-forwarding rule to its port 22 behind the virtual router, or its
/// own address on port 22 on a Shared or L2 network). CloudStack is asked only when a node has
/// no override.
pub fn node_addresses(
    client: &CloudStackClient,
    info: &ClusterInfo,
    nodes: &[&MatchedNode],
    overrides: &BTreeMap<String, NodeAddress>,
) -> Result<Vec<NodeAddress>, DiscoveryError> {
    if nodes.iter().all(|n| overrides.contains_key(&n.node_name)) {
        return Ok(nodes
            .iter()
            .filter_map(|n| overrides.get(&n.node_name).cloned())
            .collect());
    }
    let kind = match &info.network_id {
        Some(id) => cluster_api::network_kind(client, id, info.project_id.as_deref())?,
        None => None,
    };
    let route = SshRoute::for_network(kind.as_deref(), info.public_address.as_deref());
    let rules = match (&route, &info.public_address_id) {
        (SshRoute::Nat { .. }, Some(id)) => {
            cluster_api::port_forwards(client, id, info.project_id.as_deref())?
        }
        _ => Vec::new(),
    };
    nodes
        .iter()
        .map(|node| match overrides.get(&node.node_name) {
            Some(address) => Ok(address.clone()),
            None if node.address.is_empty() && route == SshRoute::Direct => {
                Err(DiscoveryError::NoAddress {
                    node: node.node_name.clone(),
                    vm: node.vm_id.clone(),
                })
            }
            None => route.address(node, &rules),
        })
        .collect()
}

/// How to log in: the key, the user and the trusted host keys.
#[derive(Debug, Clone)]
pub struct SshLogin {
    /// The private key file (never printed).
    pub key: PathBuf,
    /// The login user (CKS uses `cloud`).
    pub user: String,
    /// The trusted host keys.
    pub host_keys: HostKeys,
}

impl SshLogin {
    /// The SSH configuration for `node` at `address`, with the default timeouts.
    pub fn config_for(
        &self,
        node: &str,
        address: NodeAddress,
    ) -> Result<SshConfig, DiscoveryError> {
        let policy = self.host_keys.policy_for(node)?;
        Ok(SshConfig::new(address, &self.user, &self.key, policy))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ssh_endpoints_parse_hosts_and_ports() {
        let (node, address) = parse_endpoint("k1-control-1=203.0.113.7:2223").expect("parses");
        assert_eq!(
            (node.as_str(), address.to_string()),
            ("k1-control-1", "203.0.113.7:2223".into())
        );
        let (_, v6) = parse_endpoint("n=[fd00::5]:22").expect("parses");
        assert_eq!(v6.to_string(), "[fd00::5]:22");
        let error = parse_endpoint("k1-control-1=203.0.113.7").expect_err("no port");
        assert_eq!(
            error.to_string(),
            "--ssh-endpoint \"k1-control-1=203.0.113.7\": expected NODE=HOST:PORT"
        );
    }

    #[test]
    fn a_node_pin_wins_over_the_pin_for_all_and_none_is_an_error_naming_the_flags() {
        let a = "SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU";
        let b = "SHA256:n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg";
        let keys = HostKeys::new(None, &[format!("n1={a}"), b.to_string()]).expect("pins");
        let pinned = |node: &str| match keys.policy_for(node).expect("policy") {
            HostKeyPolicy::Pinned { fingerprint } => fingerprint.to_string(),
            other => panic!("{other:?}"),
        };
        assert_eq!(pinned("n1"), a);
        assert_eq!(pinned("n2"), b);
        let none = HostKeys::new(None, &[]).expect("empty");
        assert!(none.is_empty());
        let error = none.policy_for("n1").expect_err("no key").to_string();
        assert!(
            error.contains("--known-hosts FILE") && error.contains("--host-key-fingerprint n1="),
            "{error}"
        );
        let error = HostKeys::new(None, &["n1=MD5:00".to_string()]).expect_err("bad pin");
        assert!(
            error
                .to_string()
                .starts_with("--host-key-fingerprint \"n1=MD5:00\"")
        );
        let error = HostKeys::new(Some(Path::new("/no/such/known_hosts")), &[]).expect_err("gone");
        assert_eq!(
            error.to_string(),
            "--known-hosts /no/such/known_hosts: no such file"
        );
    }
}
