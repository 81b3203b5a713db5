//! One CKS cluster as `listKubernetesClusters` answers it, read once into [`KubernetesCluster`]
//! by [`CloudStackClient::find_kubernetes_cluster`] (or all of them by
//! [`CloudStackClient::list_kubernetes_clusters`]): every reader of the answer takes this type,
//! so none can read an id, a count or the VM list its own way.

use serde::Deserialize;

use crate::{client::CloudStackClient, error::CloudStackError, scalar};

/// A CKS cluster: what the rollout, discovery, the upgrade hook and registration read of it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct KubernetesCluster {
    /// Its id.
    #[serde(default, deserialize_with = "scalar::text")]
    pub id: String,
    /// Its name.
    #[serde(default, deserialize_with = "scalar::text")]
    pub name: String,
    /// CloudStack's state name (`Running`, `Alert`, `Scaling`, ...); empty when not listed.
    #[serde(default, deserialize_with = "scalar::text")]
    pub state: String,
    /// The id of the Kubernetes version it runs; empty when not listed.
    #[serde(
        rename = "kubernetesversionid",
        default,
        deserialize_with = "scalar::text"
    )]
    pub kubernetes_version_id: String,
    /// The cluster's service offering.
    #[serde(
        rename = "serviceofferingid",
        default,
        deserialize_with = "scalar::text"
    )]
    pub service_offering_id: String,
    /// Control nodes.
    #[serde(rename = "controlnodes", default, deserialize_with = "scalar::count")]
    pub control_nodes: u64,
    /// Workers.
    #[serde(default, deserialize_with = "scalar::count")]
    pub size: u64,
    /// External etcd nodes.
    #[serde(rename = "etcdnodes", default, deserialize_with = "scalar::count")]
    pub etcd_nodes: u64,
    /// The cluster's vCPUs, all nodes together.
    #[serde(rename = "cpunumber", default, deserialize_with = "scalar::count")]
    pub cpus: u64,
    /// The cluster's memory, MiB, all nodes together.
    #[serde(default, deserialize_with = "scalar::count")]
    pub memory: u64,
    /// Its network.
    #[serde(
        rename = "networkid",
        default,
        deserialize_with = "scalar::optional_text"
    )]
    pub network_id: Option<String>,
    /// Its public address.
    #[serde(
        rename = "ipaddress",
        default,
        deserialize_with = "scalar::optional_text"
    )]
    pub public_address: Option<String>,
    /// The id of its public address.
    #[serde(
        rename = "ipaddressid",
        default,
        deserialize_with = "scalar::optional_text"
    )]
    pub public_address_id: Option<String>,
    /// Whether CloudStack runs the cluster autoscaler.
    #[serde(
        rename = "autoscalingenabled",
        default,
        deserialize_with = "scalar::flag"
    )]
    pub autoscaling_enabled: bool,
    /// The autoscaler's smallest size.
    #[serde(
        rename = "minsize",
        default,
        deserialize_with = "scalar::optional_size"
    )]
    pub min_size: Option<u32>,
    /// The autoscaler's largest size.
    #[serde(
        rename = "maxsize",
        default,
        deserialize_with = "scalar::optional_size"
    )]
    pub max_size: Option<u32>,
    /// Its zone's id.
    #[serde(rename = "zoneid", default, deserialize_with = "scalar::text")]
    pub zone_id: String,
    /// Its zone's name.
    #[serde(rename = "zonename", default, deserialize_with = "scalar::text")]
    pub zone_name: String,
    /// The account owning it (a project's clusters name the project's account).
    #[serde(default, deserialize_with = "scalar::text")]
    pub account: String,
    /// Its domain's id.
    #[serde(rename = "domainid", default, deserialize_with = "scalar::text")]
    pub domain_id: String,
    /// Its domain's name.
    #[serde(default, deserialize_with = "scalar::text")]
    pub domain: String,
    /// The name of the project owning it, if any.
    #[serde(default, deserialize_with = "scalar::optional_text")]
    pub project: Option<String>,
    /// The name of the Kubernetes version it runs.
    #[serde(
        rename = "kubernetesversionname",
        default,
        deserialize_with = "scalar::text"
    )]
    pub kubernetes_version_name: String,
    /// The project that owns it, when one does: its VMs, volumes, network and rules are
    /// listed with this `projectid` ([`crate::owner::owned_by`]).
    #[serde(
        rename = "projectid",
        default,
        deserialize_with = "scalar::optional_text"
    )]
    pub project_id: Option<String>,
    /// Its VMs, as newer servers list them.
    #[serde(rename = "virtualmachines", default)]
    vms: Vec<ClusterMember>,
    /// Its VM ids, as older servers list them.
    #[serde(
        rename = "virtualmachineids",
        default,
        deserialize_with = "scalar::ids"
    )]
    vm_ids: Vec<String>,
}

/// A VM in a cluster's `virtualmachines`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
struct ClusterMember {
    #[serde(default, deserialize_with = "scalar::text")]
    id: String,
}

impl KubernetesCluster {
    /// The ids of its VMs: from `virtualmachines`, else from `virtualmachineids` (older
    /// servers); each id a string or a number.
    pub fn vm_ids(&self) -> Vec<String> {
        let listed: Vec<String> = self
            .vms
            .iter()
            .map(|vm| vm.id.clone())
            .filter(|id| !id.is_empty())
            .collect();
        if listed.is_empty() {
            self.vm_ids.clone()
        } else {
            listed
        }
    }
}

impl CloudStackClient {
    /// The CKS cluster with `cluster_id` ([`Self::find_kubernetes_cluster`]); an error naming
    /// the id when CloudStack lists none.
    pub fn kubernetes_cluster(
        &self,
        cluster_id: &str,
    ) -> Result<KubernetesCluster, CloudStackError> {
        self.find_kubernetes_cluster(cluster_id)?
            .ok_or_else(|| CloudStackError::Api {
                command: "listKubernetesClusters".to_string(),
                status: 200,
                code: 431,
                text: format!("no Kubernetes cluster with id {cluster_id}"),
            })
    }

    /// The CKS cluster with `id`, `None` when CloudStack lists none.
    pub fn find_kubernetes_cluster(
        &self,
        id: &str,
    ) -> Result<Option<KubernetesCluster>, CloudStackError> {
        let clusters: Vec<KubernetesCluster> = self.list(
            "listKubernetesClusters",
            "kubernetescluster",
            &[("id", id.to_string())],
        )?;
        Ok(clusters.into_iter().next())
    }

    /// Every CKS cluster the key may see, the accounts' and the projects'.
    pub fn list_kubernetes_clusters(&self) -> Result<Vec<KubernetesCluster>, CloudStackError> {
        self.list_every_owner(
            "listKubernetesClusters",
            "kubernetescluster",
            &[],
            |c: &KubernetesCluster| c.id.as_str(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(value: serde_json::Value) -> KubernetesCluster {
        serde_json::from_value(value).expect("a cluster")
    }

    #[test]
    fn vm_ids_come_from_virtualmachines_else_virtualmachineids_string_or_number() {
        let objects = read(json!({"id": "k", "virtualmachines": [{"id": "a"}, {"id": 7}, {}]}));
        assert_eq!(objects.vm_ids(), ["a", "7"]);
        let older = read(json!({"id": "k", "virtualmachineids": ["b", "c"]}));
        assert_eq!(older.vm_ids(), ["b", "c"]);
        assert!(read(json!({})).vm_ids().is_empty());
    }

    #[test]
    fn a_real_shaped_answer_reads_whole() {
        let cluster = read(json!({
            "id": "c-1", "name": "k1", "state": "Running", "kubernetesversionid": "kv-1",
            "serviceofferingid": "so-1", "controlnodes": 3, "size": "4", "etcdnodes": 0,
            "cpunumber": 14, "memory": 28672, "networkid": "n-1", "ipaddress": "203.0.113.5",
            "ipaddressid": "ip-1", "autoscalingenabled": "true", "minsize": 2, "maxsize": "6",
            "virtualmachines": [{"id": "vm-1", "name": "k1-control-1"}]
        }));
        assert_eq!(
            (
                cluster.control_nodes,
                cluster.size,
                cluster.cpus,
                cluster.memory
            ),
            (3, 4, 14, 28672)
        );
        assert_eq!(cluster.public_address.as_deref(), Some("203.0.113.5"));
        assert!(cluster.autoscaling_enabled);
        assert_eq!((cluster.min_size, cluster.max_size), (Some(2), Some(6)));
        assert_eq!(cluster.vm_ids(), ["vm-1"]);
        assert_eq!(cluster.project_id, None);
        let owned = read(json!({"id": "c-3", "projectid": "p-1", "project": "team"}));
        assert_eq!(owned.project_id.as_deref(), Some("p-1"));
        let sparse = read(json!({"id": "c-2", "networkid": "", "minsize": "x"}));
        assert_eq!((sparse.network_id, sparse.min_size), (None, None));
        assert_eq!(sparse.state, "");
    }
}
