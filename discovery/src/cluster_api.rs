//! The CloudStack calls discovery needs beyond the rollout's own: the cluster's network and
//! public address, its VMs' NIC addresses, the stored kubeconfig and the port-forwarding rules,
//! each through the client's generic `call` / `list`.

use serde_json::Value;

use super::DiscoveryError;
use crate::node_type::{NodeType, node_type_of};
use cks_cloudstack::CloudStackClient;

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
    /// Reads the settings from one `listKubernetesClusters` entry.
    pub fn of_cluster(cluster: &Value) -> Self {
        let size = |key: &str| text(cluster, key).and_then(|t| t.parse::<u32>().ok());
        Autoscaling {
            enabled: match &cluster["autoscalingenabled"] {
                Value::Bool(b) => *b,
                Value::String(s) => s.eq_ignore_ascii_case("true"),
                _ => false,
            },
            min_size: size("minsize"),
            max_size: size("maxsize"),
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

fn text(value: &Value, key: &str) -> Option<String> {
    match &value[key] {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The ids of a CKS cluster's VMs in a `listKubernetesClusters` entry: from `virtualmachines`
/// (objects with an `id`, string or number), else from `virtualmachineids` (older servers).
pub fn cluster_vm_ids(cluster: &Value) -> Vec<String> {
    let id = |v: &Value| match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    let listed: Vec<String> = cluster["virtualmachines"]
        .as_array()
        .map(|vms| vms.iter().filter_map(|v| id(&v["id"])).collect())
        .unwrap_or_default();
    if !listed.is_empty() {
        return listed;
    }
    cluster["virtualmachineids"]
        .as_array()
        .map(|vms| vms.iter().filter_map(id).collect())
        .unwrap_or_default()
}

/// The cluster, its network and public address, and its VMs with their NIC addresses.
pub fn cluster_info(
    client: &CloudStackClient,
    cluster_id: &str,
) -> Result<ClusterInfo, DiscoveryError> {
    let what = format!("reading cluster {cluster_id} (listKubernetesClusters)");
    let clusters: Vec<Value> = client
        .list(
            "listKubernetesClusters",
            "kubernetescluster",
            &[("id", cluster_id.to_string())],
        )
        .map_err(failed(what))?;
    let Some(cluster) = clusters.into_iter().next() else {
        return Err(DiscoveryError::CloudStack {
            what: format!("reading cluster {cluster_id}"),
            source: cks_cloudstack::CloudStackError::BadResponse {
                command: "listKubernetesClusters".to_string(),
                detail: format!("no Kubernetes cluster with id {cluster_id}; check --cluster-id"),
            },
        });
    };
    let name = text(&cluster, "name").unwrap_or_default();
    let ids = cluster_vm_ids(&cluster);
    let mut vms = Vec::new();
    if !ids.is_empty() {
        let listed: Vec<Value> = client
            .list(
                "listVirtualMachines",
                "virtualmachine",
                &[("ids", ids.join(",")), ("listall", "true".into())],
            )
            .map_err(failed(format!(
                "reading the VMs of cluster {cluster_id} (listVirtualMachines)"
            )))?;
        for vm in listed {
            let vm_name = text(&vm, "name").unwrap_or_default();
            let addresses = vm["nic"]
                .as_array()
                .map(|nics| {
                    nics.iter()
                        .flat_map(|nic| [text(nic, "ipaddress"), text(nic, "ip6address")])
                        .flatten()
                        .collect()
                })
                .unwrap_or_default();
            vms.push(ClusterVm {
                id: text(&vm, "id").unwrap_or_default(),
                node_type: node_type_of(&name, &vm_name),
                name: vm_name,
                addresses,
            });
        }
    }
    Ok(ClusterInfo {
        id: cluster_id.to_string(),
        name,
        network_id: text(&cluster, "networkid"),
        public_address: text(&cluster, "ipaddress"),
        public_address_id: text(&cluster, "ipaddressid"),
        vms,
        state: text(&cluster, "state"),
        kubernetes_version_id: text(&cluster, "kubernetesversionid"),
        autoscaling: Autoscaling::of_cluster(&cluster),
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
    match text(&answer["clusterconfig"], "configdata") {
        Some(data) if !data.trim().is_empty() => Ok(data),
        _ => Err(DiscoveryError::NoKubeconfig {
            cluster: cluster_id.to_string(),
            answer: "an empty configdata".to_string(),
        }),
    }
}

/// The guest type of a network (`Isolated`, `Shared`, `L2`), when CloudStack lists it.
pub fn network_kind(
    client: &CloudStackClient,
    network_id: &str,
) -> Result<Option<String>, DiscoveryError> {
    let networks: Vec<Value> = client
        .list(
            "listNetworks",
            "network",
            &[("id", network_id.to_string()), ("listall", "true".into())],
        )
        .map_err(failed(format!(
            "reading network {network_id} (listNetworks)"
        )))?;
    Ok(networks.first().and_then(|n| text(n, "type")))
}

/// The port-forwarding rules on the public address `address_id`.
pub fn port_forwards(
    client: &CloudStackClient,
    address_id: &str,
) -> Result<Vec<PortForward>, DiscoveryError> {
    let rules: Vec<Value> = client
        .list(
            "listPortForwardingRules",
            "portforwardingrule",
            &[("ipaddressid", address_id.to_string()), ("listall", "true".into())],
        )
        .map_err(failed(format!(
            "reading the port-forwarding rules of public address {address_id} (listPortForwardingRules)"
        )))?;
    Ok(rules
        .iter()
        .filter_map(|r| {
            Some(PortForward {
                public_address: text(r, "ipaddress")?,
                public_port: text(r, "publicport")?.parse().ok()?,
                private_port: text(r, "privateport")?.parse().ok()?,
                vm_id: text(r, "virtualmachineid")?,
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn autoscaling_settings_read_as_cloudstack_writes_them() {
        let on = Autoscaling::of_cluster(
            &json!({"autoscalingenabled": true, "minsize": 1, "maxsize": "5"}),
        );
        assert_eq!(
            on,
            Autoscaling {
                enabled: true,
                min_size: Some(1),
                max_size: Some(5)
            }
        );
        assert_eq!(Autoscaling::of_cluster(&json!({})), Autoscaling::default());
        let bad = Autoscaling::of_cluster(&json!({"autoscalingenabled": "true", "minsize": -1}));
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
