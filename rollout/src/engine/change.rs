//! A node's restart: stop (judging a failed stop by the VM read again), every change while
//! stopped, start.

use super::batch::Work;
use super::error::ChangeError;
use super::error::EngineError;
use super::observe::observe_cloud_or;
use super::outdated::Change;
use super::progress::StepKind;
use super::run::Runner;
use crate::model::{ClusterRecord, VmState};
use crate::ports::JobCall;
use std::time::Duration;

impl Runner<'_, '_> {
    /// Stop (if running), apply every change while stopped, start. A stop that fails is
    /// judged by the VM's state read again: still Running, it never went down; Stopping or
    /// Stopped (or unknown), it is down and never uncordoned while so. `known` is the record
    /// as the batch read it, standing in when the store does not answer.
    pub(super) fn change(
        &mut self,
        n: usize,
        w: &mut Work,
        deadline: Duration,
        known: &ClusterRecord,
    ) -> Result<(), EngineError> {
        if w.verify_only {
            return Ok(());
        }
        let name = w.node.clone();
        let vm_id = w.vm_id.clone();
        if !w.went_down {
            match self.job(JobCall::StopVm(&vm_id))? {
                Ok(()) => {
                    w.went_down = true;
                    self.emit(Some(n), Some(&name), StepKind::Stop, "stopped");
                }
                Err(source) => {
                    let seen = self.after_failed_stop(&name, deadline)?;
                    match seen {
                        Some(VmState::Stopped) => {
                            w.went_down = true;
                            self.emit(
                                Some(n),
                                Some(&name),
                                StepKind::Stop,
                                format!("the stop call failed ({source}) but the VM is Stopped: finishing the change"),
                            );
                        }
                        Some(VmState::Running) => {
                            return Err(EngineError::StopFailedStillUp {
                                batch: n,
                                node: name,
                                source,
                            });
                        }
                        other => {
                            w.went_down = true;
                            return Err(EngineError::StopFailedDown {
                                batch: n,
                                node: name,
                                source,
                                seen: other.map_or("not readable".to_string(), |s| {
                                    format!("{s:?} after the stop timed out")
                                }),
                            });
                        }
                    }
                }
            }
        }
        if let Err(cause) = self.apply_changes(n, &name, known)? {
            // Bring the node back as it was; the next run finds it still out of date.
            let restarted = self.job(JobCall::StartVm(&vm_id))?.is_ok();
            return Err(EngineError::ChangeFailed {
                batch: n,
                node: name,
                cause,
                restarted,
            });
        }
        self.job(JobCall::StartVm(&vm_id))?
            .map_err(|source| EngineError::StartFailed {
                batch: n,
                node: name.clone(),
                source,
            })?;
        self.emit(Some(n), Some(&name), StepKind::StartVm, "started");
        Ok(())
    }

    /// The VM's state after a failed stop: read again, waiting (within the batch) while it is
    /// Stopping; `None` when it cannot be read.
    fn after_failed_stop(
        &mut self,
        name: &str,
        deadline: Duration,
    ) -> Result<Option<VmState>, EngineError> {
        loop {
            let state = self
                .ports
                .cloud
                .list_vms(&self.cluster)
                .ok()
                .and_then(|vms| vms.into_iter().find(|v| v.node_name == name))
                .map(|v| v.state);
            match state {
                Some(VmState::Stopping | VmState::Starting)
                    if self.ports.clock.now() < deadline =>
                {
                    self.pause()?;
                }
                other => return Ok(other),
            }
        }
    }

    /// Every change the stopped VM still needs, each under a lease the store confirms. The
    /// outer error stops the rollout (the lease is lost); the inner one is a failed change.
    /// The settings of a running rollout do not change: when the store does not answer for a
    /// moment, `known` stands in for the record (the lease still bounds how long).
    fn apply_changes(
        &mut self,
        n: usize,
        name: &str,
        known: &ClusterRecord,
    ) -> Result<Result<(), ChangeError>, EngineError> {
        let snap = match observe_cloud_or(self.ports, &self.cluster, known) {
            Ok(snap) => snap,
            Err(e) => return Ok(Err(ChangeError::Read(Box::new(e)))),
        };
        let Some(vm) = snap.vm_by_node(name) else {
            return Ok(Err(ChangeError::VmGone {
                node: name.to_string(),
            }));
        };
        if vm.state != VmState::Stopped {
            return Ok(Err(ChangeError::NotStopped {
                node: name.to_string(),
                state: vm.state.clone(),
            }));
        }
        let vm_id = vm.id.clone();
        for c in snap.changes_of(vm).to_vec() {
            match c {
                Change::Offering { to, .. } => {
                    self.hold()?;
                    if let Err(source) = self.ports.cloud.change_offering(&vm_id, &to) {
                        return Ok(Err(ChangeError::Offering {
                            node: name.to_string(),
                            to: to.clone(),
                            source,
                        }));
                    }
                    self.emit(Some(n), Some(name), StepKind::ChangeOffering, to);
                }
                Change::RootDisk {
                    volume_id, to_gb, ..
                } => {
                    let call = JobCall::ResizeVolume {
                        volume_id: &volume_id,
                        size_gb: to_gb,
                    };
                    if let Err(source) = self.job(call)? {
                        return Ok(Err(ChangeError::RootDisk {
                            node: name.to_string(),
                            to_gb,
                            source,
                        }));
                    }
                    self.emit(
                        Some(n),
                        Some(name),
                        StepKind::ResizeDisk,
                        format!("{to_gb} GB"),
                    );
                }
                Change::AffinityGroups { to, .. } => {
                    let call = JobCall::UpdateAffinityGroups {
                        vm_id: &vm_id,
                        group_ids: &to,
                    };
                    if let Err(source) = self.job(call)? {
                        return Ok(Err(ChangeError::AffinityGroups {
                            node: name.to_string(),
                            source,
                        }));
                    }
                    self.emit(Some(n), Some(name), StepKind::UpdateAffinity, to.join(","));
                }
            }
        }
        Ok(Ok(()))
    }
}
