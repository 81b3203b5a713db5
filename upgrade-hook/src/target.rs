//! Which nodes the hook logs in to and the cluster's autoscaling settings: from the command
//! line where given, else found through CloudStack from the cluster id alone (the discovery
//! `cks-rollout` uses, [`cks_discovery`]). What cannot be found is one line naming the flag
//! that supplies it; no secret is ever part of a message.

use std::collections::BTreeMap;
use std::path::PathBuf;

use cks_cloudstack::{CloudStackClient, CloudStackConfig, CloudStackError};
use cks_discovery::cluster_api::{self, Autoscaling, ClusterInfo};
use cks_discovery::{DiscoveryError, HostKeys, NodeType, ssh_access};
use cks_ssh::openssh::{HostKeyPolicy, NodeAddress, SshConfig};

/// What the command line gives; each `Some` overrides what CloudStack says.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    /// `--cluster-id`.
    pub cluster_id: String,
    /// `--host`: the first control node's SSH host (the public address behind NAT).
    pub host: Option<String>,
    /// `--port`: its SSH port.
    pub port: Option<u16>,
    /// `--direct`: `--host` is the node's private address, port 22.
    pub direct: bool,
    /// `--user`.
    pub user: String,
    /// `--ssh-key` (or `--key`).
    pub key: Option<PathBuf>,
    /// `--known-hosts`.
    pub known_hosts: Option<PathBuf>,
    /// `--host-key-fingerprint [NODE=]SHA256:...`, repeated.
    pub fingerprints: Vec<String>,
    /// `--insecure-host-key`.
    pub insecure: bool,
    /// `--min`.
    pub min: Option<u32>,
    /// `--max`.
    pub max: Option<u32>,
    /// `--disabled`.
    pub disabled: bool,
}

impl Flags {
    /// Whether the autoscaling settings come from the command line (any of `--min`, `--max`,
    /// `--disabled` given), so CloudStack is not asked for them.
    pub fn gives_autoscaling(&self) -> bool {
        self.min.is_some() || self.max.is_some() || self.disabled
    }
}

/// What could not be found or used.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    /// No private key.
    #[error("no SSH key: pass --ssh-key FILE (the private key of the cluster's SSH key pair)")]
    NoKey,
    /// The key file is not there.
    #[error("--ssh-key {}: no such file; give the private key CKS uses for the cluster", .0.display())]
    KeyMissing(PathBuf),
    /// No host key to trust.
    #[error(
        "no trusted SSH host key for the nodes: pass --known-hosts FILE or --host-key-fingerprint [NODE=]SHA256:..."
    )]
    NoHostKeys,
    /// No CloudStack credentials, and something must be read from CloudStack.
    #[error("{needed} must come from CloudStack, but {source}; or pass {flags}")]
    NoCloudStack {
        /// What was needed.
        needed: &'static str,
        /// The flags that supply it instead.
        flags: &'static str,
        /// Why there is no client.
        source: CloudStackError,
    },
    /// Discovery failed.
    #[error(transparent)]
    Discovery(#[from] DiscoveryError),
    /// No port-forwarding rule leads to the first control node's SSH port.
    #[error(
        "no port-forwarding rule on {public_address} leads to port 22 of {node} (VM {vm}); add the rule in CloudStack or pass --host HOST --port PORT"
    )]
    NoPortForward {
        /// The node.
        node: String,
        /// Its VM's id.
        vm: String,
        /// The cluster's public address.
        public_address: String,
    },
    /// The cluster lists no control node.
    #[error(
        "cluster {cluster} lists no control node VM in CloudStack; pass --host HOST (and --port PORT) of its first control node"
    )]
    NoControlNode {
        /// The cluster id.
        cluster: String,
    },
}

/// A node to log in to.
#[derive(Debug, Clone)]
pub struct NodeLogin {
    /// Its name (the VM's name, or `--host`).
    pub name: String,
    /// Its type.
    pub node_type: NodeType,
    /// How to reach it.
    pub ssh: SshConfig,
}

/// The cluster as found: its settings (when read) and its nodes.
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// The cluster, when CloudStack was asked.
    pub cluster: Option<ClusterInfo>,
    /// The autoscaling settings, from the flags or CloudStack.
    pub autoscaling: Autoscaling,
}

/// A CloudStack client from the environment reading at most `max_answer` bytes of one answer,
/// for the commands that read the cluster. What the configuration warns about (a plain
/// `http://` endpoint off this host) is printed once per run.
pub fn client_from_env(max_answer: u64) -> Result<CloudStackClient, CloudStackError> {
    let mut config = CloudStackConfig::from_env()?;
    config.max_answer_size = max_answer;
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| {
        for warning in config.warnings() {
            eprintln!("cks-upgrade-hook: warning: {warning}");
        }
    });
    CloudStackClient::new(config)
}

fn no_cloudstack(
    needed: &'static str,
    flags: &'static str,
) -> impl FnOnce(CloudStackError) -> TargetError {
    move |source| TargetError::NoCloudStack {
        needed,
        flags,
        source,
    }
}

/// The cluster's autoscaling settings and CloudStack's view of it, reading CloudStack only
/// when the flags do not give the settings or `need_cluster` is set.
pub fn find(
    flags: &Flags,
    need_cluster: bool,
    client: &dyn Fn() -> Result<CloudStackClient, CloudStackError>,
) -> Result<(Found, Option<CloudStackClient>), TargetError> {
    let mut found = Found::default();
    if flags.gives_autoscaling() {
        found.autoscaling = Autoscaling {
            enabled: !flags.disabled,
            min_size: flags.min,
            max_size: flags.max,
        };
    }
    if flags.gives_autoscaling() && !need_cluster {
        return Ok((found, None));
    }
    let needed = if need_cluster {
        "the cluster's nodes"
    } else {
        "the cluster's autoscaling settings"
    };
    let flags_text = if need_cluster {
        "--host HOST for the first control node"
    } else {
        "--min N --max M (or --disabled)"
    };
    let client = client().map_err(no_cloudstack(needed, flags_text))?;
    let info = cluster_api::cluster_info(&client, &flags.cluster_id)?;
    if !flags.gives_autoscaling() {
        found.autoscaling = info.autoscaling;
    }
    found.cluster = Some(info);
    Ok((found, Some(client)))
}

/// The trusted host keys the flags give; an error naming the flags when none (unless
/// `--insecure-host-key`).
fn host_keys(flags: &Flags) -> Result<Option<HostKeys>, TargetError> {
    if flags.insecure {
        return Ok(None);
    }
    let keys = HostKeys::new(flags.known_hosts.as_deref(), &flags.fingerprints)?;
    if keys.is_empty() {
        return Err(TargetError::NoHostKeys);
    }
    Ok(Some(keys))
}

fn key(flags: &Flags) -> Result<PathBuf, TargetError> {
    let key = flags.key.clone().ok_or(TargetError::NoKey)?;
    if !key.is_file() {
        return Err(TargetError::KeyMissing(key));
    }
    Ok(key)
}

fn login(
    flags: &Flags,
    keys: &Option<HostKeys>,
    key: &std::path::Path,
    name: &str,
    node_type: NodeType,
    address: NodeAddress,
) -> Result<NodeLogin, TargetError> {
    let policy = match keys {
        Some(keys) => keys.policy_for(name)?,
        None => HostKeyPolicy::Insecure,
    };
    Ok(NodeLogin {
        name: name.to_string(),
        node_type,
        ssh: SshConfig::new(address, &flags.user, key, policy),
    })
}

/// The first control node: `--host` when given, else the cluster's first control VM and its
/// SSH route.
pub fn first_control_node(
    flags: &Flags,
    found: &Found,
    client: Option<&CloudStackClient>,
) -> Result<NodeLogin, TargetError> {
    let keys = host_keys(flags)?;
    let key = key(flags)?;
    if let Some(host) = &flags.host {
        let address = if flags.direct {
            NodeAddress::direct(host)
        } else {
            NodeAddress::BehindNat {
                public_address: host.clone(),
                port: flags
                    .port
                    .unwrap_or(cks_ssh::openssh::address::NAT_SSH_PORT),
            }
        };
        return login(flags, &keys, &key, host, NodeType::Control, address);
    }
    let (Some(info), Some(client)) = (&found.cluster, client) else {
        return Err(TargetError::NoControlNode {
            cluster: flags.cluster_id.clone(),
        });
    };
    let nodes = ssh_access::nodes_from_vms(info);
    let Some(first) = nodes.iter().find(|n| n.node_type == NodeType::Control) else {
        return Err(TargetError::NoControlNode {
            cluster: flags.cluster_id.clone(),
        });
    };
    let address = ssh_access::node_addresses(client, info, &[first], &BTreeMap::new())
        .map_err(|error| match error {
            DiscoveryError::NoPortForward {
                node,
                vm,
                public_address,
            } => TargetError::NoPortForward {
                node,
                vm,
                public_address,
            },
            other => TargetError::Discovery(other),
        })?
        .into_iter()
        .next()
        .ok_or(TargetError::NoControlNode {
            cluster: flags.cluster_id.clone(),
        })?;
    login(
        flags,
        &keys,
        &key,
        &first.node_name,
        first.node_type,
        address,
    )
}

/// Every node of the cluster (etcd nodes too) with its SSH route, overridden per node by
/// `endpoints` (`NODE=HOST:PORT`).
pub fn all_nodes(
    flags: &Flags,
    info: &ClusterInfo,
    client: &CloudStackClient,
    endpoints: &[String],
) -> Result<Vec<NodeLogin>, TargetError> {
    let keys = host_keys(flags)?;
    let key = key(flags)?;
    let overrides = ssh_access::parse_endpoints(endpoints)?;
    let nodes = ssh_access::nodes_from_vms(info);
    let refs: Vec<_> = nodes.iter().collect();
    let addresses = ssh_access::node_addresses(client, info, &refs, &overrides)?;
    nodes
        .iter()
        .zip(addresses)
        .map(|(node, address)| login(flags, &keys, &key, &node.node_name, node.node_type, address))
        .collect()
}
