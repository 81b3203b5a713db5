//! CloudStack over the simulated world.

use super::SimHandle;
use crate::model::{
    AffinityGroup, CksCluster, CloudStackVersion, DiskOffering, KubernetesVersion, NodeType,
    ServiceOffering, Vm, VmState, Volume, VolumeKind,
};
use crate::ports::{Cloud, Job, JobCall, JobStatus, PortError, PortErrorKind, PortResult};
use crate::sim::spec::Fault;
use crate::sim::world::{SimVm, World};
use std::collections::BTreeMap;
use std::time::Duration;

fn vm_by_id<'a>(w: &'a mut World, id: &str) -> PortResult<&'a mut SimVm> {
    w.vms
        .values_mut()
        .find(|v| v.id == id)
        .ok_or_else(|| PortError::not_found(format!("no VM with id {id}")))
}

fn name_of(w: &World, id: &str) -> Option<String> {
    w.vms.values().find(|v| v.id == id).map(|v| v.name.clone())
}

fn refused(message: String) -> PortError {
    PortError::new(PortErrorKind::Refused, message)
}

/// The calls CloudStack runs as jobs, each one step; [`Cloud::begin_job`] makes them.
impl SimHandle {
    pub(crate) fn stop_vm(&mut self, vm_id: &str) -> PortResult<()> {
        self.call(format!("cloud.stop_vm({vm_id})"), |w| {
            let name = name_of(w, vm_id).ok_or_else(|| PortError::not_found(vm_id.to_string()))?;
            if w.take_fault(|f| matches!(f, Fault::StopFails { node, .. } if *node == name)) {
                return Err(PortError::other(format!(
                    "stopVirtualMachine {vm_id}: 530 job failed"
                )));
            }
            if w.vms[&name].state == VmState::Stopped {
                return Ok(());
            }
            let stopping = w.faults.iter().find_map(|f| match &f.fault {
                Fault::StopTimesOut {
                    node,
                    stopping,
                    stopping_seconds,
                    ..
                } if f.left > 0 && *node == name => Some(stopping.then_some(*stopping_seconds)),
                _ => None,
            });
            let timed_out = stopping.is_some()
                && w.take_fault(|f| matches!(f, Fault::StopTimesOut { node, .. } if *node == name));
            crate::sim::record::stop(w, &name);
            crate::sim::record::touch(w, &name);
            let boot = {
                let v = &w.vms[&name];
                v.node
                    .as_ref()
                    .map_or(v.boot_id.clone(), |n| n.boot_id.clone())
            };
            w.halt(&name);
            let v = vm_by_id(w, vm_id)?;
            v.engine_stopped = true;
            v.stopped_boot = Some(boot);
            v.engine_stops += 1;
            if timed_out {
                // The engine waits 30 s for the job, then gives up on it.
                w.advance(Duration::from_secs(30));
                if let Some(Some(seconds)) = stopping {
                    let until = w.now + Duration::from_secs(seconds);
                    let v = vm_by_id(w, vm_id)?;
                    v.state = VmState::Stopping;
                    v.stopping_until = Some(until);
                }
                return Err(PortError::unavailable(format!(
                    "stopVirtualMachine {vm_id}: queryAsyncJobResult: the job did not finish in time"
                )));
            }
            w.advance_random(5, 30);
            Ok(())
        })
    }

    pub(crate) fn start_vm(&mut self, vm_id: &str) -> PortResult<()> {
        self.call(format!("cloud.start_vm({vm_id})"), |w| {
            let name = name_of(w, vm_id).ok_or_else(|| PortError::not_found(vm_id.to_string()))?;
            if w.take_fault(|f| matches!(f, Fault::StartFails { node, .. } if *node == name)) {
                return Err(PortError::other(format!(
                    "startVirtualMachine {vm_id}: 533 insufficient capacity"
                )));
            }
            if w.vms[&name].state == VmState::Running {
                return Ok(());
            }
            w.boot(&name);
            w.advance_random(5, 30);
            Ok(())
        })
    }

    pub(crate) fn resize_volume(&mut self, volume_id: &str, size_gb: u64) -> PortResult<()> {
        self.call(
            format!("cloud.resize_volume({volume_id}, {size_gb})"),
            |w| {
                let name = w
                    .vms
                    .values()
                    .find(|v| v.root_id == volume_id)
                    .map(|v| v.name.clone())
                    .ok_or_else(|| PortError::not_found(format!("no volume {volume_id}")))?;
                crate::sim::record::change(w, &name, "resize_volume")?;
                if w.take_fault(|f| matches!(f, Fault::ResizeFails { node, .. } if *node == name)) {
                    return Err(PortError::other(format!(
                        "resizeVolume {volume_id}: 530 failed"
                    )));
                }
                let v = &w.vms[&name];
                if size_gb < v.root_gb {
                    return Err(refused(format!(
                        "resizeVolume {volume_id}: shrinking is not allowed"
                    )));
                }
                let fixed = v
                    .root_offering
                    .as_ref()
                    .and_then(|id| w.disk_offerings.iter().find(|d| &d.id == id))
                    .is_some_and(|d| d.is_fixed_size());
                if fixed {
                    return Err(refused(format!(
                        "resizeVolume {volume_id}: fixed-size disk offering"
                    )));
                }
                if let Some(v) = w.vms.get_mut(&name) {
                    v.root_gb = size_gb;
                }
                w.advance(Duration::from_secs(5));
                Ok(())
            },
        )
    }

    pub(crate) fn update_affinity_groups(
        &mut self,
        vm_id: &str,
        group_ids: &[String],
    ) -> PortResult<()> {
        self.call(
            format!("cloud.update_affinity_groups({vm_id}, {group_ids:?})"),
            |w| {
                let name =
                    name_of(w, vm_id).ok_or_else(|| PortError::not_found(vm_id.to_string()))?;
                crate::sim::record::change(w, &name, "update_affinity_groups")?;
                if w.take_fault(|f| matches!(f, Fault::AffinityFails { node, .. } if *node == name))
                {
                    return Err(PortError::other(format!(
                        "updateVMAffinityGroup {vm_id}: 530 failed"
                    )));
                }
                if group_ids.is_empty() {
                    return Err(refused(format!(
                        "updateVMAffinityGroup {vm_id}: an empty affinitygroupids would remove every group"
                    )));
                }
                vm_by_id(w, vm_id)?.groups = group_ids.to_vec();
                w.advance(Duration::from_secs(1));
                Ok(())
            },
        )
    }
}

impl Cloud for SimHandle {
    /// Known from the description, as discovery knows it before the engine runs: no step.
    fn unmatched(&self) -> BTreeMap<NodeType, Vec<String>> {
        let mut out: BTreeMap<NodeType, Vec<String>> = BTreeMap::new();
        for vm in self.0.borrow().vms.values().filter(|v| v.unmatched) {
            out.entry(vm.node_type).or_default().extend([
                format!(
                    "VM {} has no Kubernetes node (no node's InternalIP is one of its addresses)",
                    vm.name
                ),
                format!(
                    "node {} has no VM in the cluster (no VM has its InternalIP)",
                    vm.name
                ),
            ]);
        }
        out
    }

    fn list_vms(&mut self, _cluster_id: &str) -> PortResult<Vec<Vm>> {
        self.call("cloud.list_vms".into(), |w| {
            Ok(w.vms
                .values()
                .map(|v| Vm {
                    id: v.id.clone(),
                    name: v.name.clone(),
                    node_name: v.name.clone(),
                    node_type: v.node_type,
                    state: v.state.clone(),
                    service_offering_id: v.offering.clone(),
                    affinity_group_ids: v.groups.clone(),
                    ip_addresses: vec![v.ip.clone()],
                })
                .collect())
        })
    }

    fn list_volumes(&mut self, _cluster_id: &str) -> PortResult<Vec<Volume>> {
        self.call("cloud.list_volumes".into(), |w| {
            Ok(w.vms
                .values()
                .map(|v| Volume {
                    id: v.root_id.clone(),
                    vm_id: v.id.clone(),
                    kind: VolumeKind::Root,
                    size_gb: v.root_gb,
                    disk_offering_id: v.root_offering.clone(),
                })
                .collect())
        })
    }

    fn change_offering(&mut self, vm_id: &str, offering_id: &str) -> PortResult<()> {
        self.call(
            format!("cloud.change_offering({vm_id}, {offering_id})"),
            |w| {
                let name =
                    name_of(w, vm_id).ok_or_else(|| PortError::not_found(vm_id.to_string()))?;
                crate::sim::record::change(w, &name, "change_offering")?;
                if w.take_fault(|f| matches!(f, Fault::ScaleFails { node, .. } if *node == name)) {
                    return Err(PortError::other(format!(
                        "changeServiceForVirtualMachine {vm_id}: 530 failed"
                    )));
                }
                if !w.offerings.iter().any(|o| o.id == offering_id) {
                    return Err(PortError::not_found(format!("no offering {offering_id}")));
                }
                vm_by_id(w, vm_id)?.offering = offering_id.to_string();
                w.advance(Duration::from_secs(1));
                Ok(())
            },
        )
    }

    fn list_service_offerings(&mut self) -> PortResult<Vec<ServiceOffering>> {
        self.call("cloud.list_service_offerings".into(), |w| {
            Ok(w.offerings.clone())
        })
    }

    fn list_disk_offerings(&mut self) -> PortResult<Vec<DiskOffering>> {
        self.call("cloud.list_disk_offerings".into(), |w| {
            Ok(w.disk_offerings.clone())
        })
    }

    fn list_affinity_groups(&mut self) -> PortResult<Vec<AffinityGroup>> {
        self.call("cloud.list_affinity_groups".into(), |w| {
            Ok(w.groups.clone())
        })
    }

    fn cks_cluster(&mut self, cluster_id: &str) -> PortResult<CksCluster> {
        self.call("cloud.cks_cluster".into(), |w| {
            Ok(CksCluster {
                id: cluster_id.to_string(),
                state: w.cks_state.clone(),
                vm_ids: w.vms.values().map(|v| v.id.clone()).collect(),
                kubernetes_version_id: w.kubernetes_version.as_ref().map(|_| "kv-1".into()),
                service_offering_id: w.record.service_offering_id.clone(),
                autoscaling_enabled: w.autoscaling,
            })
        })
    }

    fn cloudstack_version(&mut self) -> PortResult<Option<CloudStackVersion>> {
        self.call("cloud.cloudstack_version".into(), |w| {
            Ok(w.cloudstack_version)
        })
    }

    fn begin_job(&mut self, call: JobCall<'_>) -> PortResult<Job> {
        // The call itself is the step it always was; its job then runs as long as the
        // description says.
        let (command, span) = {
            let w = self.0.borrow();
            let d = &w.jobs.durations;
            match call {
                JobCall::StopVm(_) => ("stopVirtualMachine", d.stop),
                JobCall::StartVm(_) => ("startVirtualMachine", d.start),
                JobCall::ResizeVolume { .. } => ("resizeVolume", d.resize_volume),
                JobCall::UpdateAffinityGroups { .. } => {
                    ("updateVMAffinityGroup", d.update_affinity_groups)
                }
            }
        };
        match call {
            JobCall::StopVm(vm) => self.stop_vm(vm)?,
            JobCall::StartVm(vm) => self.start_vm(vm)?,
            JobCall::ResizeVolume { volume_id, size_gb } => {
                self.resize_volume(volume_id, size_gb)?
            }
            JobCall::UpdateAffinityGroups { vm_id, group_ids } => {
                self.update_affinity_groups(vm_id, group_ids)?
            }
        }
        let mut w = self.0.borrow_mut();
        let w = &mut *w;
        let now = w.now;
        Ok(w.jobs.start(command, span, &mut w.rng, now))
    }

    fn job_status(&mut self, job: &Job) -> PortResult<JobStatus> {
        self.call(format!("cloud.job_status({})", job.id), |w| {
            let failing = w.faults.iter().find_map(|f| match f.fault {
                Fault::JobLookFails { unavailable, .. } if f.left > 0 => Some(unavailable),
                _ => None,
            });
            if let Some(unavailable) = failing {
                w.take_fault(|f| matches!(f, Fault::JobLookFails { .. }));
                let what = format!("queryAsyncJobResult {}", job.id);
                return Err(if unavailable {
                    PortError::unavailable(format!("{what}: the answer did not get through"))
                } else {
                    PortError::other(format!("{what}: 431 the job id is not valid"))
                });
            }
            match w.jobs.running.get(&job.id) {
                Some(done_at) if w.now >= *done_at => {
                    w.jobs.running.remove(&job.id);
                    Ok(JobStatus::Done)
                }
                Some(_) => Ok(JobStatus::Pending),
                None => Err(PortError::not_found(format!("no job {}", job.id))),
            }
        })
    }

    fn kubernetes_version(&mut self, version_id: &str) -> PortResult<KubernetesVersion> {
        self.call(format!("cloud.kubernetes_version({version_id})"), |w| {
            let v = w
                .kubernetes_version
                .as_ref()
                .filter(|_| version_id == "kv-1")
                .ok_or_else(|| {
                    PortError::not_found(format!("no Kubernetes version {version_id}"))
                })?;
            Ok(KubernetesVersion {
                id: version_id.to_string(),
                name: v.name.clone(),
                min_cpu: v.min_cpu,
                min_memory_mb: v.min_memory_mb,
            })
        })
    }
}
