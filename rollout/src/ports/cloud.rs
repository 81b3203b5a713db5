//! CloudStack: the cluster's VMs and volumes, and the calls that change them.

use super::PortResult;
use crate::model::{
    AffinityGroup, CksCluster, DiskOffering, KubernetesVersion, ServiceOffering, Vm, Volume,
};

/// The CloudStack calls the engine needs. Asynchronous jobs (stop, start, resize, ...) return
/// once the job has finished (the adapter polls `queryAsyncJobResult` with its own timeout).
pub trait Cloud {
    /// The cluster's VMs (`listKubernetesClusters` + `listVirtualMachines`), with node types.
    fn list_vms(&mut self, cluster_id: &str) -> PortResult<Vec<Vm>>;

    /// The volumes of the cluster's VMs (`listVolumes`).
    fn list_volumes(&mut self, cluster_id: &str) -> PortResult<Vec<Volume>>;

    /// `stopVirtualMachine`, waiting for the job.
    fn stop_vm(&mut self, vm_id: &str) -> PortResult<()>;

    /// `startVirtualMachine`, waiting for the job.
    fn start_vm(&mut self, vm_id: &str) -> PortResult<()>;

    /// `changeServiceForVirtualMachine` (the VM must be stopped).
    fn change_offering(&mut self, vm_id: &str, offering_id: &str) -> PortResult<()>;

    /// `resizeVolume` to `size_gb` (grow only), waiting for the job.
    fn resize_volume(&mut self, volume_id: &str, size_gb: u64) -> PortResult<()>;

    /// `updateVMAffinityGroup` with the full list of group ids (the VM must be stopped).
    fn update_affinity_groups(&mut self, vm_id: &str, group_ids: &[String]) -> PortResult<()>;

    /// `listServiceOfferings`.
    fn list_service_offerings(&mut self) -> PortResult<Vec<ServiceOffering>>;

    /// `listDiskOfferings`.
    fn list_disk_offerings(&mut self) -> PortResult<Vec<DiskOffering>>;

    /// `listAffinityGroups` visible to the cluster's owner.
    fn list_affinity_groups(&mut self) -> PortResult<Vec<AffinityGroup>>;

    /// The CKS cluster as CloudStack reports it (`listKubernetesClusters`): its own state and
    /// its VMs, read again before the rollout starts and before every batch.
    fn cks_cluster(&mut self, cluster_id: &str) -> PortResult<CksCluster>;

    /// A supported Kubernetes version and its node minimums (`listKubernetesSupportedVersions`).
    fn kubernetes_version(&mut self, version_id: &str) -> PortResult<KubernetesVersion>;
}
