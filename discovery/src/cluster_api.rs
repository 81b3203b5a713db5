//! The CloudStack calls discovery needs beyond the rollout's own: the cluster's network and
//! public address, its VMs' NIC addresses, the stored kubeconfig and the port-forwarding rules,
//! each read into the client's wire types.

use crate::error::DiscoveryError;
use crate::node_type::{NodeType, node_type_of};
use cks_cloudstack::network::{ClusterConfigAnswer, Network, PortForwardingRule};
use cks_cloudstack::owner::owned_by;
use cks_cloudstack::{CloudStackClient, KubernetesCluster};

/// A CKS cluster as discovery sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterInfo {
    /// The cluster id.
    pub id: String,
    /// The cluster name.
    pub name: String,
    /// Its guest network's id, when CloudStack names it.
    pub network_id: Option<String>,
    /// The cluster's public address (the network's source NAT address), if any.
    pub public_address: Option<String>,
    /// That address's id, if any.
    pub public_address_id: Option<String>,
    /// The cluster's VMs.
    pub vms: Vec<ClusterVm>,
    /// Its state (`Running`, `Upgrading`, `Alert`, ...), when CloudStack names it.
    pub state: Option<String>,
    /// Its Kubernetes version's id, when CloudStack names it.
    pub kubernetes_version_id: Option<String>,
    /// Its autoscaling settings.
    pub autoscaling: Autoscaling,
    /// The project that owns it, when one does: its VMs, network and rules are listed with it.
    pub project_id: Option<String>,
}

/// A cluster's autoscaling settings as `listKubernetesClusters` reports them
/// (`autoscalingenabled`, `minsize`, `maxsize`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Autoscaling {
    /// Whether autoscaling is enabled.
    pub enabled: bool,
    /// The minimum size, when set.
    pub min_size: Option<u32>,
    /// The maximum size, when set.
    pub max_size: Option<u32>,
}

impl Autoscaling {
    /// The settings of one `listKubernetesClusters` entry.
    pub fn of_cluster(cluster: &KubernetesCluster) -> Self {
        Autoscaling {
            enabled: cluster.autoscaling_enabled,
            min_size: cluster.min_size,
            max_size: cluster.max_size,
        }
    }
}

/// One VM of the cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterVm {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its node type (from CKS's VM names).
    pub node_type: NodeType,
    /// Its NIC addresses (IPv4 and IPv6).
    pub addresses: Vec<String>,
}

/// A rule forwarding a public port to a VM's port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortForward {
    /// The public address.
    pub public_address: String,
    /// The first public port.
    pub public_port: u16,
    /// The first private port.
    pub private_port: u16,
    /// The VM.
    pub vm_id: String,
}

fn failed(what: String) -> impl FnOnce(cks_cloudstack::CloudStackError) -> DiscoveryError {
    move |source| DiscoveryError::CloudStack { what, source }
}

/// The cluster, its network and public address, and its VMs with their NIC addresses.
pub fn cluster_info(
    client: &CloudStackClient,
    cluster_id: &str,
) -> Result<ClusterInfo, DiscoveryError> {
    let what = format!("reading cluster {cluster_id} (listKubernetesClusters)");
    let Some(cluster) = client
        .find_kubernetes_cluster(cluster_id)
        .map_err(failed(what))?
    else {
        return Err(DiscoveryError::CloudStack {
            what: format!("reading cluster {cluster_id}"),
            source: cks_cloudstack::CloudStackError::BadResponse {
                command: "listKubernetesClusters".to_string(),
                detail: format!("no Kubernetes cluster with id {cluster_id}; check --cluster-id"),
            },
        });
    };
    let ids = cluster.vm_ids();
    let mut vms = Vec::new();
    if !ids.is_empty() {
        let project = cluster.project_id.as_deref();
        let listed = client
            .list_vms_by_id(&ids, project)
            .map_err(failed(format!(
                "reading the VMs of cluster {cluster_id} (listVirtualMachines)"
            )))?;
        for vm in listed {
            vms.push(ClusterVm {
                addresses: vm.addresses(),
                node_type: node_type_of(&cluster.name, &vm.name),
                id: vm.id,
                name: vm.name,
            });
        }
    }
    let present = |text: &str| Some(text.to_string()).filter(|t| !t.is_empty());
    Ok(ClusterInfo {
        id: cluster_id.to_string(),
        network_id: cluster.network_id.clone(),
        public_address: cluster.public_address.clone(),
        public_address_id: cluster.public_address_id.clone(),
        vms,
        state: present(&cluster.state),
        kubernetes_version_id: present(&cluster.kubernetes_version_id),
        autoscaling: Autoscaling::of_cluster(&cluster),
        project_id: cluster.project_id.clone(),
        name: cluster.name,
    })
}

/// The kubeconfig CloudStack stored for the cluster (`getKubernetesClusterConfig`'s
/// `configdata`); `Err(NoKubeconfig)` when it holds none.
pub fn kubeconfig_data(
    client: &CloudStackClient,
    cluster_id: &str,
) -> Result<String, DiscoveryError> {
    let command = "getKubernetesClusterConfig";
    let answer = client
        .call(command, &[("id", cluster_id.to_string())])
        .map_err(|source| match &source {
            cks_cloudstack::CloudStackError::Api { text, .. } => DiscoveryError::NoKubeconfig {
                cluster: cluster_id.to_string(),
                answer: format!("an error: {text}"),
            },
            _ => DiscoveryError::CloudStack {
                what: format!("reading the kubeconfig of cluster {cluster_id} ({command})"),
                source,
            },
        })?;
    let stored: ClusterConfigAnswer = serde_json::from_value(answer).unwrap_or_default();
    match stored.cluster_config.config_data {
        Some(data) if !data.trim().is_empty() => Ok(data),
        _ => Err(DiscoveryError::NoKubeconfig {
            cluster: cluster_id.to_string(),
            answer: "an empty configdata".to_string(),
        }),
    }
}

/// The guest type of a network (`Isolated`, `Shared`, `L2`) owned by the project `project_id`
/// or, when `None`, by an account, when CloudStack lists it.
pub fn network_kind(
    client: &CloudStackClient,
    network_id: &str,
    project_id: Option<&str>,
) -> Result<Option<String>, DiscoveryError> {
    let mut params = vec![("id", network_id.to_string())];
    params.extend(owned_by(project_id));
    let networks: Vec<Network> =
        client
            .list("listNetworks", "network", &params)
            .map_err(failed(format!(
                "reading network {network_id} (listNetworks)"
            )))?;
    Ok(networks.into_iter().next().and_then(|n| n.kind))
}

/// The port-forwarding rules on the public address `address_id`, owned by the project
/// `project_id` or, when `None`, by an account.
pub fn port_forwards(
    client: &CloudStackClient,
    address_id: &str,
    project_id: Option<&str>,
) -> Result<Vec<PortForward>, DiscoveryError> {
    let mut params = vec![("ipaddressid", address_id.to_string())];
    params.extend(owned_by(project_id));
    let rules: Vec<PortForwardingRule> = client
        .list("listPortForwardingRules", "portforwardingrule", &params)
        .map_err(failed(format!(
            "reading the port-forwarding rules of public address {address_id} (listPortForwardingRules)"
        )))?;
    Ok(rules
        .into_iter()
        .filter_map(|r| {
            Some(PortForward {
                public_address: r.public_address?,
                public_port: r.public_port?.parse().ok()?,
                private_port: r.private_port?.parse().ok()?,
                vm_id: r.vm_id?,
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The settings of a `listKubernetesClusters` entry given as JSON.
    fn of(entry: serde_json::Value) -> Autoscaling {
        Autoscaling::of_cluster(&serde_json::from_value(entry).expect("any entry reads"))
    }

    #[test]
    fn autoscaling_settings_read_as_cloudstack_writes_them() {
        let on = of(json!({"autoscalingenabled": true, "minsize": 1, "maxsize": "5"}));
        assert_eq!(
            on,
            Autoscaling {
                enabled: true,
                min_size: Some(1),
                max_size: Some(5)
            }
        );
        assert_eq!(of(json!({})), Autoscaling::default());
        let bad = of(json!({"autoscalingenabled": "true", "minsize": -1}));
        assert_eq!(
            bad,
            Autoscaling {
                enabled: true,
                min_size: None,
                max_size: None
            }
        );
    }
}
