//! The engine's [`Cloud`] port on the CloudStack client: a cluster's VMs with their node types
//! (from CKS's VM names, `<cluster>-control-…`, `<cluster>-etcd-…`, workers `<cluster>-node-…`),
//! their volumes, and the calls that change them, with errors classed for the engine.

use super::types;
use super::{CloudStackClient, CloudStackError};
use crate::model::{
    AffinityGroup, DiskOffering, NodeType, ServiceOffering, Vm, VmState, Volume, VolumeKind,
};
use crate::ports::{Cloud, PortError, PortErrorKind, PortResult};

/// The [`Cloud`] port over CloudStack.
#[derive(Debug, Clone)]
pub struct CloudStackCloud {
    client: CloudStackClient,
}

impl CloudStackCloud {
    /// The port over `client`.
    pub fn new(client: CloudStackClient) -> Self {
        CloudStackCloud { client }
    }
}

/// The node type CKS gave a VM, read from its name.
pub fn node_type_of(cluster_name: &str, vm_name: &str) -> NodeType {
    let rest = vm_name.strip_prefix(cluster_name).unwrap_or(vm_name);
    if rest.contains("-control-")
        || rest.contains("-master-")
        || rest.ends_with("-control")
        || rest.ends_with("-master")
    {
        NodeType::Control
    } else if rest.contains("-etcd-") || rest.ends_with("-etcd") {
        NodeType::Etcd
    } else {
        NodeType::Worker
    }
}

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
    fn vms(&self, cluster_id: &str) -> Result<Vec<Vm>, CloudStackError> {
        let (name, ids) = self.client.kubernetes_cluster(cluster_id)?;
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let vms = self.client.list_vms_by_id(&ids)?;
        Ok(vms
            .into_iter()
            .map(|v: types::VirtualMachine| Vm {
                node_type: node_type_of(&name, &v.name),
                node_name: v.name.to_lowercase(),
                state: state(&v.state),
                service_offering_id: v.service_offering_id,
                affinity_group_ids: v.affinity_groups.into_iter().map(|g| g.id).collect(),
                id: v.id,
                name: v.name,
            })
            .collect())
    }
}

impl Cloud for CloudStackCloud {
    fn list_vms(&mut self, cluster_id: &str) -> PortResult<Vec<Vm>> {
        self.vms(cluster_id).map_err(port_error)
    }

    fn list_volumes(&mut self, cluster_id: &str) -> PortResult<Vec<Volume>> {
        let vms = self.vms(cluster_id).map_err(port_error)?;
        let mut volumes = Vec::new();
        for vm in vms {
            for v in self.client.list_volumes(&vm.id).map_err(port_error)? {
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

    fn stop_vm(&mut self, vm_id: &str) -> PortResult<()> {
        self.client.stop_vm(vm_id).map(|_| ()).map_err(port_error)
    }

    fn start_vm(&mut self, vm_id: &str) -> PortResult<()> {
        self.client.start_vm(vm_id).map(|_| ()).map_err(port_error)
    }

    fn change_offering(&mut self, vm_id: &str, offering_id: &str) -> PortResult<()> {
        self.client
            .change_service_offering(vm_id, offering_id)
            .map(|_| ())
            .map_err(port_error)
    }

    fn resize_volume(&mut self, volume_id: &str, size_gb: u64) -> PortResult<()> {
        self.client
            .resize_volume(volume_id, size_gb)
            .map(|_| ())
            .map_err(port_error)
    }

    fn update_affinity_groups(&mut self, vm_id: &str, group_ids: &[String]) -> PortResult<()> {
        self.client
            .update_vm_affinity_groups(vm_id, group_ids)
            .map(|_| ())
            .map_err(port_error)
    }

    fn list_service_offerings(&mut self) -> PortResult<Vec<ServiceOffering>> {
        Ok(self
            .client
            .list_service_offerings()
            .map_err(port_error)?
            .into_iter()
            .map(|o| ServiceOffering {
                id: o.id,
                name: o.name,
                cpu_cores: o.cpus,
                memory_mb: o.memory_mib,
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
