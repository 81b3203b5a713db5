//! The engine's [`Cloud`] port on the CloudStack client: a cluster's VMs with their node types
//! (from CKS's VM names, `<cluster>-control-…`, `<cluster>-etcd-…`, workers `<cluster>-node-…`),
//! their volumes, and the calls that change them, with errors classed for the engine.

use std::collections::BTreeMap;

use crate::model::{
    AffinityGroup, CksCluster, CloudStackVersion, DiskOffering, KubernetesVersion, NodeType,
    ServiceOffering, Vm, VmState, Volume, VolumeKind,
};
use crate::ports::{Cloud, Job, JobCall, JobStatus, PortError, PortErrorKind, PortResult};
use cks_cloudstack::CloudStackClient;
use cks_cloudstack::CloudStackError;
use cks_cloudstack::JobState;
use serde_json::Value;

/// The [`Cloud`] port over CloudStack.
#[derive(Debug, Clone)]
pub struct CloudStackCloud {
    client: CloudStackClient,
    /// VM id → the name of the Kubernetes node discovery matched to it.
    node_names: BTreeMap<String, String>,
    /// Why the nodes of a type could not all be matched.
    unmatched: BTreeMap<NodeType, Vec<String>>,
}

impl CloudStackCloud {
    /// The port over `client`, each VM named after itself.
    pub fn new(client: CloudStackClient) -> Self {
        CloudStackCloud {
            client,
            node_names: BTreeMap::new(),
            unmatched: BTreeMap::new(),
        }
    }

    /// The port with each VM id in `node_names` reported under the name of the Kubernetes node
    /// matched to it (a node whose name differs from its VM's is found), and why the nodes of a
    /// type could not all be matched (`unmatched`, [`Cloud::unmatched`]).
    pub fn with_nodes(
        mut self,
        node_names: BTreeMap<String, String>,
        unmatched: BTreeMap<NodeType, Vec<String>>,
    ) -> Self {
        self.node_names = node_names;
        self.unmatched = unmatched;
        self
    }
}

pub use cks_discovery::node_type_of;

fn state(s: &str) -> VmState {
    match s {
        "Running" => VmState::Running,
        "Stopped" => VmState::Stopped,
        "Starting" => VmState::Starting,
        "Stopping" => VmState::Stopping,
        other => VmState::Other(other.to_string()),
    }
}

/// Classes a client error for the engine.
pub fn port_error(e: CloudStackError) -> PortError {
    let kind = match &e {
        CloudStackError::Http { .. } | CloudStackError::JobTimeout { .. } => {
            PortErrorKind::Unavailable
        }
        CloudStackError::Api { status: 503, .. } => PortErrorKind::Unavailable,
        CloudStackError::Answer { reason, .. } if !reason.is_too_large() => {
            PortErrorKind::Unavailable
        }
        CloudStackError::Api { text, .. }
            if text.contains("does not exist") || text.contains("Unable to find") =>
        {
            PortErrorKind::NotFound
        }
        CloudStackError::Api {
            code: 431 | 530, ..
        }
        | CloudStackError::Job { .. } => PortErrorKind::Refused,
        _ => PortErrorKind::Other,
    };
    PortError::new(kind, e.to_string())
}

impl CloudStackCloud {
    /// The cluster's VMs and the project that owns them, if one does.
    fn vms(&self, cluster_id: &str) -> Result<(Vec<Vm>, Option<String>), CloudStackError> {
        let cluster = self.client.kubernetes_cluster(cluster_id)?;
        let ids = cluster.vm_ids();
        let project = cluster.project_id.clone();
        if ids.is_empty() {
            return Ok((Vec::new(), project));
        }
        // With their NICs: the IP addresses tell etcd members apart.
        let vms = self
            .client
            .list_vms_by_id(&ids, project.as_deref())?
            .into_iter()
            .map(|v| Vm {
                node_type: node_type_of(&cluster.name, &v.name),
                node_name: self
                    .node_names
                    .get(&v.id)
                    .cloned()
                    .unwrap_or_else(|| v.name.to_lowercase()),
                state: state(&v.state),
                service_offering_id: v.service_offering_id.clone(),
                affinity_group_ids: v.affinity_groups.iter().map(|g| g.id.clone()).collect(),
                ip_addresses: v.addresses(),
                id: v.id,
                name: v.name,
            })
            .collect();
        Ok((vms, project))
    }
}

impl Cloud for CloudStackCloud {
    fn unmatched(&self) -> BTreeMap<NodeType, Vec<String>> {
        self.unmatched.clone()
    }

    fn list_vms(&mut self, cluster_id: &str) -> PortResult<Vec<Vm>> {
        self.vms(cluster_id).map(|(vms, _)| vms).map_err(port_error)
    }

    fn list_volumes(&mut self, cluster_id: &str) -> PortResult<Vec<Volume>> {
        let (vms, project) = self.vms(cluster_id).map_err(port_error)?;
        let mut volumes = Vec::new();
        for vm in vms {
            let listed = self.client.list_volumes(&vm.id, project.as_deref());
            for v in listed.map_err(port_error)? {
                volumes.push(Volume {
                    size_gb: v.size_gb(),
                    kind: if v.kind.eq_ignore_ascii_case("ROOT") {
                        VolumeKind::Root
                    } else {
                        VolumeKind::DataDisk
                    },
                    vm_id: v.vm_id.unwrap_or_else(|| vm.id.clone()),
                    disk_offering_id: v.disk_offering_id,
                    id: v.id,
                });
            }
        }
        Ok(volumes)
    }

    fn change_offering(&mut self, vm_id: &str, offering_id: &str) -> PortResult<()> {
        self.client
            .change_service_offering(vm_id, offering_id)
            .map(|_| ())
            .map_err(port_error)
    }

    fn list_service_offerings(&mut self) -> PortResult<Vec<ServiceOffering>> {
        Ok(self
            .client
            .list_service_offerings()
            .map_err(port_error)?
            .into_iter()
            .filter(|o| !o.id.is_empty())
            .map(|o| ServiceOffering {
                inactive: o.is_inactive(),
                id: o.id,
                name: o.name,
                cpu_cores: o.cpus,
                memory_mb: o.memory_mib,
                customized: o.customized,
            })
            .collect())
    }

    fn list_disk_offerings(&mut self) -> PortResult<Vec<DiskOffering>> {
        Ok(self
            .client
            .list_disk_offerings()
            .map_err(port_error)?
            .into_iter()
            .map(|o| DiskOffering {
                id: o.id,
                name: o.name,
                size_gb: o.size_gb,
                customized: o.customized,
            })
            .collect())
    }

    fn list_affinity_groups(&mut self) -> PortResult<Vec<AffinityGroup>> {
        Ok(self
            .client
            .list_affinity_groups()
            .map_err(port_error)?
            .into_iter()
            .map(|g| AffinityGroup {
                id: g.id,
                name: g.name,
                kind: g.kind,
            })
            .collect())
    }

    fn cks_cluster(&mut self, cluster_id: &str) -> PortResult<CksCluster> {
        let c = self
            .client
            .kubernetes_cluster(cluster_id)
            .map_err(port_error)?;
        Ok(CksCluster {
            id: cluster_id.to_string(),
            vm_ids: c.vm_ids(),
            state: if c.state.is_empty() {
                "Unknown".to_string()
            } else {
                c.state
            },
            kubernetes_version_id: Some(c.kubernetes_version_id).filter(|id| !id.is_empty()),
            service_offering_id: c.service_offering_id,
            autoscaling_enabled: c.autoscaling_enabled,
        })
    }

    fn cloudstack_version(&mut self) -> PortResult<Option<CloudStackVersion>> {
        let capabilities = self.client.capabilities().map_err(port_error)?;
        Ok(CloudStackVersion::parse(&capabilities.cloudstack_version))
    }

    fn begin_job(&mut self, call: JobCall<'_>) -> PortResult<Job> {
        let (command, params): (&str, Vec<(&str, String)>) = match call {
            JobCall::StopVm(vm) => ("stopVirtualMachine", vec![("id", vm.to_string())]),
            JobCall::StartVm(vm) => ("startVirtualMachine", vec![("id", vm.to_string())]),
            JobCall::ResizeVolume { volume_id, size_gb } => (
                "resizeVolume",
                vec![
                    ("id", volume_id.to_string()),
                    ("size", size_gb.to_string()),
                    ("shrinkok", "false".into()),
                ],
            ),
            JobCall::UpdateAffinityGroups { vm_id, group_ids } => {
                // An empty `affinitygroupids` would strip every group from the VM: never sent.
                if group_ids.is_empty() {
                    return Err(PortError::new(
                        PortErrorKind::Refused,
                        format!(
                            "updateVMAffinityGroup {vm_id}: refusing to send an empty affinitygroupids, which would remove every affinity group"
                        ),
                    ));
                }
                (
                    "updateVMAffinityGroup",
                    vec![
                        ("id", vm_id.to_string()),
                        ("affinitygroupids", group_ids.join(",")),
                    ],
                )
            }
        };
        let started = self.client.call(command, &params).map_err(port_error)?;
        let id = started
            .get("jobid")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                port_error(CloudStackError::BadResponse {
                    command: command.to_string(),
                    detail: "an async command answered without a jobid".to_string(),
                })
            })?
            .to_string();
        Ok(Job {
            id,
            command: command.to_string(),
            finished: false,
            timeout: Some(self.client.config().job_timeout),
            poll: Some(self.client.config().poll_interval),
        })
    }

    fn job_status(&mut self, job: &Job) -> PortResult<JobStatus> {
        let state = self
            .client
            .job_state(&job.command, &job.id)
            .map_err(port_error)?;
        Ok(match state {
            JobState::Pending => JobStatus::Pending,
            JobState::Done(_) => JobStatus::Done,
            JobState::Failed(error) => JobStatus::Failed(port_error(error)),
        })
    }

    fn kubernetes_version(&mut self, version_id: &str) -> PortResult<KubernetesVersion> {
        let v = self
            .client
            .list_kubernetes_versions(Some(version_id))
            .map_err(port_error)?
            .into_iter()
            .next()
            .ok_or_else(|| {
                PortError::not_found(format!(
                    "listKubernetesSupportedVersions: no Kubernetes version with id {version_id}"
                ))
            })?;
        let name = [v.semantic_version, v.name]
            .into_iter()
            .find(|n| !n.is_empty())
            .unwrap_or_else(|| version_id.to_string());
        Ok(KubernetesVersion {
            id: version_id.to_string(),
            name,
            min_cpu: v.min_cpus,
            min_memory_mb: v.min_memory_mib,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_types_from_cks_vm_names() {
        assert_eq!(node_type_of("k1", "k1-control-18a2f"), NodeType::Control);
        assert_eq!(node_type_of("k1", "k1-master-18a2f"), NodeType::Control);
        assert_eq!(node_type_of("k1", "k1-etcd-1"), NodeType::Etcd);
        assert_eq!(node_type_of("k1", "k1-node-18a2f"), NodeType::Worker);
        // A cluster named like a role does not confuse it.
        assert_eq!(
            node_type_of("etcd-control", "etcd-control-node-1"),
            NodeType::Worker
        );
    }
}
