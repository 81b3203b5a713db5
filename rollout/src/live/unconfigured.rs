//! Ports for systems the command was not given the means to reach: every call fails with a
//! message saying what to configure, so commands that need only the store still work.

use std::collections::BTreeMap;

use crate::model::{
    AffinityGroup, CksCluster, CloudStackVersion, DiskOffering, Endpoint, EtcdMember,
    EvictionOutcome, KubernetesVersion, NodeStatus, NodeType, Pod, ReadyzCheck, ServiceOffering,
    Vm, Volume,
};
use crate::ports::{Cloud, Etcd, Job, JobCall, JobStatus, Kube, PortError, PortResult};

/// A port that answers every call with `Unavailable` and the hint it holds.
#[derive(Debug, Clone)]
pub struct Unconfigured(pub String);

impl Unconfigured {
    fn fail<T>(&self) -> PortResult<T> {
        Err(PortError::unavailable(self.0.clone()))
    }
}

impl Cloud for Unconfigured {
    fn unmatched(&self) -> BTreeMap<NodeType, Vec<String>> {
        BTreeMap::new()
    }
    fn cloudstack_version(&mut self) -> PortResult<Option<CloudStackVersion>> {
        self.fail()
    }
    fn begin_job(&mut self, _: JobCall<'_>) -> PortResult<Job> {
        self.fail()
    }
    fn job_status(&mut self, _: &Job) -> PortResult<JobStatus> {
        self.fail()
    }
    fn list_vms(&mut self, _: &str) -> PortResult<Vec<Vm>> {
        self.fail()
    }
    fn list_volumes(&mut self, _: &str) -> PortResult<Vec<Volume>> {
        self.fail()
    }
    fn change_offering(&mut self, _: &str, _: &str) -> PortResult<()> {
        self.fail()
    }
    fn cks_cluster(&mut self, _: &str) -> PortResult<CksCluster> {
        self.fail()
    }
    fn kubernetes_version(&mut self, _: &str) -> PortResult<KubernetesVersion> {
        self.fail()
    }
    fn list_service_offerings(&mut self) -> PortResult<Vec<ServiceOffering>> {
        self.fail()
    }
    fn list_disk_offerings(&mut self) -> PortResult<Vec<DiskOffering>> {
        self.fail()
    }
    fn list_affinity_groups(&mut self) -> PortResult<Vec<AffinityGroup>> {
        self.fail()
    }
}

impl Kube for Unconfigured {
    fn list_nodes(&mut self, _: &Endpoint) -> PortResult<Vec<NodeStatus>> {
        self.fail()
    }
    fn get_node(&mut self, _: &Endpoint, _: &str) -> PortResult<Option<NodeStatus>> {
        self.fail()
    }
    fn set_annotation(
        &mut self,
        _: &Endpoint,
        _: &str,
        _: &str,
        _: Option<&str>,
    ) -> PortResult<()> {
        self.fail()
    }
    fn set_unschedulable(&mut self, _: &Endpoint, _: &str, _: bool) -> PortResult<()> {
        self.fail()
    }
    fn list_pods(&mut self, _: &Endpoint, _: &str) -> PortResult<Vec<Pod>> {
        self.fail()
    }
    fn evict(&mut self, _: &Endpoint, _: &Pod) -> PortResult<EvictionOutcome> {
        self.fail()
    }
    fn readyz(&mut self, _: &Endpoint, _: ReadyzCheck) -> PortResult<bool> {
        self.fail()
    }
}

impl Etcd for Unconfigured {
    fn members(&mut self) -> PortResult<Vec<EtcdMember>> {
        self.fail()
    }
}
