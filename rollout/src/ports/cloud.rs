//! CloudStack: the cluster's VMs and volumes, and the calls that change them.

use std::collections::BTreeMap;

use super::error::{PortError, PortResult};
use crate::model::{
    AffinityGroup, CksCluster, CloudStackVersion, DiskOffering, KubernetesVersion, NodeType,
    ServiceOffering, Vm, Volume,
};

/// A CloudStack call that runs as an asynchronous job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobCall<'a> {
    /// `stopVirtualMachine` of a VM id.
    StopVm(&'a str),
    /// `startVirtualMachine` of a VM id.
    StartVm(&'a str),
    /// `resizeVolume` of a volume id to `size_gb` (grow only).
    ResizeVolume {
        /// Volume id.
        volume_id: &'a str,
        /// New size in GB.
        size_gb: u64,
    },
    /// `updateVMAffinityGroup` of a VM id with the full list of group ids.
    UpdateAffinityGroups {
        /// VM id.
        vm_id: &'a str,
        /// Every group the VM keeps.
        group_ids: &'a [String],
    },
}

/// A job a [`Cloud`] started: the engine polls it with [`Cloud::job_status`], renewing its
/// lease between polls, so no wait on CloudStack outlasts the lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// The job id (`jobid`).
    pub id: String,
    /// The command that made it, for messages.
    pub command: String,
    /// True when the job had already finished when it was started (nothing to poll).
    pub finished: bool,
    /// How long the port lets the job run (its configured job timeout), if it says.
    pub timeout: Option<std::time::Duration>,
    /// How often the port would look at the job (its configured poll interval), if it says.
    pub poll: Option<std::time::Duration>,
}

impl Job {
    /// A job that finished as it was started.
    pub fn finished(command: impl Into<String>) -> Self {
        Job {
            id: String::new(),
            command: command.into(),
            finished: true,
            timeout: None,
            poll: None,
        }
    }
}

/// Where a job is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobStatus {
    /// Still running.
    Pending,
    /// Finished successfully.
    Done,
    /// Finished with an error.
    Failed(PortError),
}

/// The CloudStack calls the engine makes, and nothing more. The engine starts the calls that
/// run as asynchronous jobs (stop, start, resize, affinity groups) with [`Cloud::begin_job`]
/// and polls them with [`Cloud::job_status`], renewing its lease between polls.
pub trait Cloud {
    /// The cluster's VMs (`listKubernetesClusters` + `listVirtualMachines`), with node types.
    fn list_vms(&mut self, cluster_id: &str) -> PortResult<Vec<Vm>>;

    /// Why the nodes of a type cannot be rolled out, as the port that matched each VM to its
    /// Kubernetes node found it (a VM without a node, a node without a VM), one line each; an
    /// update that changes such a type is refused ([`crate::engine::UpdateError::Unmatched`]),
    /// one that leaves it alone carries a note ([`crate::engine::Note::Blocked`]).
    /// Known once, when the port is made: no call.
    fn unmatched(&self) -> BTreeMap<NodeType, Vec<String>>;

    /// The volumes of the cluster's VMs (`listVolumes`).
    fn list_volumes(&mut self, cluster_id: &str) -> PortResult<Vec<Volume>>;

    /// `changeServiceForVirtualMachine` (the VM must be stopped; not a job).
    fn change_offering(&mut self, vm_id: &str, offering_id: &str) -> PortResult<()>;

    /// `listServiceOfferings`.
    fn list_service_offerings(&mut self) -> PortResult<Vec<ServiceOffering>>;

    /// `listDiskOfferings`.
    fn list_disk_offerings(&mut self) -> PortResult<Vec<DiskOffering>>;

    /// `listAffinityGroups` visible to the cluster's owner.
    fn list_affinity_groups(&mut self) -> PortResult<Vec<AffinityGroup>>;

    /// The CKS cluster as CloudStack reports it (`listKubernetesClusters`): its own state, its
    /// VMs, its default offering and whether it autoscales, read again before the rollout
    /// starts and before every batch.
    fn cks_cluster(&mut self, cluster_id: &str) -> PortResult<CksCluster>;

    /// A supported Kubernetes version and its node minimums (`listKubernetesSupportedVersions`).
    fn kubernetes_version(&mut self, version_id: &str) -> PortResult<KubernetesVersion>;

    /// The management server's release (`listCapabilities`), `None` when it does not say.
    fn cloudstack_version(&mut self) -> PortResult<Option<CloudStackVersion>>;

    /// Start `call` as a job and return at once (a job already finished when it was started
    /// says so: [`Job::finished`]).
    fn begin_job(&mut self, call: JobCall<'_>) -> PortResult<Job>;

    /// One look at `job` (`queryAsyncJobResult`).
    fn job_status(&mut self, job: &Job) -> PortResult<JobStatus>;
}
