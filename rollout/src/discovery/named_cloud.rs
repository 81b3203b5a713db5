//! The cloud port with each VM's node name taken from discovery (the node matched by address)
//! instead of the VM's name, so the engine finds a node whose name differs from its VM's.

use std::collections::BTreeMap;

use crate::model::{
    AffinityGroup, CksCluster, DiskOffering, KubernetesVersion, NodeType, ServiceOffering, Vm,
    Volume,
};
use crate::ports::{Cloud, Job, JobCall, JobStatus, PortResult};

/// A [`Cloud`] whose `list_vms` reports the discovered node names, and whose `unmatched`
/// says which VMs and nodes discovery could not match.
pub struct NamedCloud {
    inner: Box<dyn Cloud>,
    node_names: BTreeMap<String, String>,
    unmatched: BTreeMap<NodeType, Vec<String>>,
}

impl NamedCloud {
    /// `inner`, with the node name of each VM id in `node_names`, and why the nodes of a type
    /// could not be matched (`unmatched`).
    pub fn new(
        inner: Box<dyn Cloud>,
        node_names: BTreeMap<String, String>,
        unmatched: BTreeMap<NodeType, Vec<String>>,
    ) -> Self {
        NamedCloud {
            inner,
            node_names,
            unmatched,
        }
    }
}

impl Cloud for NamedCloud {
    fn unmatched(&self) -> BTreeMap<NodeType, Vec<String>> {
        self.unmatched.clone()
    }
    fn list_vms(&mut self, cluster_id: &str) -> PortResult<Vec<Vm>> {
        let mut vms = self.inner.list_vms(cluster_id)?;
        for vm in &mut vms {
            if let Some(name) = self.node_names.get(&vm.id) {
                vm.node_name = name.clone();
            }
        }
        Ok(vms)
    }
    fn list_volumes(&mut self, cluster_id: &str) -> PortResult<Vec<Volume>> {
        self.inner.list_volumes(cluster_id)
    }
    fn stop_vm(&mut self, vm_id: &str) -> PortResult<()> {
        self.inner.stop_vm(vm_id)
    }
    fn start_vm(&mut self, vm_id: &str) -> PortResult<()> {
        self.inner.start_vm(vm_id)
    }
    fn change_offering(&mut self, vm_id: &str, offering_id: &str) -> PortResult<()> {
        self.inner.change_offering(vm_id, offering_id)
    }
    fn resize_volume(&mut self, volume_id: &str, size_gb: u64) -> PortResult<()> {
        self.inner.resize_volume(volume_id, size_gb)
    }
    fn update_affinity_groups(&mut self, vm_id: &str, group_ids: &[String]) -> PortResult<()> {
        self.inner.update_affinity_groups(vm_id, group_ids)
    }
    fn begin_job(&mut self, call: JobCall<'_>) -> PortResult<Job> {
        self.inner.begin_job(call)
    }
    fn job_status(&mut self, job: &Job) -> PortResult<JobStatus> {
        self.inner.job_status(job)
    }
    fn list_service_offerings(&mut self) -> PortResult<Vec<ServiceOffering>> {
        self.inner.list_service_offerings()
    }
    fn list_disk_offerings(&mut self) -> PortResult<Vec<DiskOffering>> {
        self.inner.list_disk_offerings()
    }
    fn list_affinity_groups(&mut self) -> PortResult<Vec<AffinityGroup>> {
        self.inner.list_affinity_groups()
    }
    fn cks_cluster(&mut self, cluster_id: &str) -> PortResult<CksCluster> {
        self.inner.cks_cluster(cluster_id)
    }
    fn kubernetes_version(&mut self, version_id: &str) -> PortResult<KubernetesVersion> {
        self.inner.kubernetes_version(version_id)
    }
}
