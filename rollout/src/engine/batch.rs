//! One batch: preflight, annotate and cordon, drain, change while stopped, start, verify,
//! uncordon.

use super::EngineError;
use super::members::member_of;
use super::observe::{Snapshot, observe_cloud};
use super::outdated::{Change, changes_for, dedication_ids};
use super::plan::{Batch, is_finished};
use super::preflight::{Verdict, preflight};
use super::progress::StepKind;
use super::run::Runner;
use super::safety::quorum;
use crate::model::{Endpoint, MemberHealth, NodeType, ROLLOUT_ANNOTATION, ReadyzCheck, VmState};
use std::time::Duration;

/// Longest wait for a node found annotated and Ready with its annotated boot ID (perhaps started
/// again by an earlier run before its kubelet posted) to report a new boot, before the rollout
/// takes it for a node that never went down and restarts it.
pub const BOOT_WAIT: Duration = Duration::from_secs(600);

/// A node of the batch as the engine tracks it.
#[derive(Debug, Clone)]
pub(super) struct Work {
    pub(super) node: String,
    pub(super) vm_id: String,
    /// Boot ID before the restart (None: not a Kubernetes node, or never registered).
    pub(super) old_boot: Option<String>,
    /// True when the engine annotated it (and so may uncordon it).
    pub(super) ours: bool,
    /// True once the engine stopped its VM (or found it stopped, or cannot tell).
    pub(super) went_down: bool,
    /// True when an earlier run already restarted and changed it: only verify.
    pub(super) verify_only: bool,
}

impl Runner<'_, '_> {
    pub(super) fn run_batch(
        &mut self,
        t: NodeType,
        batch: &Batch,
    ) -> Result<Vec<String>, EngineError> {
        let n = batch.number;
        let deadline = self.ports.clock.now() + self.cfg.batch_timeout;
        let snap = self.observe()?;
        let dedication = dedication_ids(&snap.groups);
        let mut names = Vec::new();
        for np in &batch.nodes {
            let Some(vm) = snap.vm_by_node(&np.node) else {
                continue;
            };
            let annotated = snap
                .node(&np.node)
                .is_some_and(|x| x.annotations.contains_key(ROLLOUT_ANNOTATION));
            let differs = !changes_for(&snap.record, vm, &snap.volumes, &dedication).is_empty();
            if is_finished(&snap, &np.node) && !differs && vm.state == VmState::Running {
                continue;
            }
            if vm.state == VmState::Stopped || annotated || differs {
                names.push(np.node.clone());
            }
        }
        self.settle(&snap);
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let verdict = preflight(&snap, t, &names);
        self.emit(
            Some(n),
            None,
            StepKind::Preflight,
            format!("{} {verdict:?}", names.join(",")),
        );
        if let Verdict::Fail { reasons } = verdict {
            return Err(EngineError::PreflightFailed {
                batch: n,
                nodes: names,
                reasons,
            });
        }
        let avoid = if t == NodeType::Control {
            names.clone()
        } else {
            Vec::new()
        };
        let mut ep = snap.endpoint_avoiding(&avoid);
        let mut work = Vec::new();
        for name in &names {
            match self.mark(n, t, &snap, &ep, name, deadline) {
                Ok(w) => work.push(w),
                Err(e) => {
                    self.abandon(&ep, &work);
                    return Err(e);
                }
            }
        }
        if t != NodeType::Etcd {
            let drain_deadline = deadline.min(self.ports.clock.now() + self.cfg.drain_timeout);
            for i in 0..work.len() {
                if work[i].went_down {
                    continue;
                }
                let node = work[i].node.clone();
                if let Err(e) = self.drain(n, &ep, &node, drain_deadline) {
                    self.abandon(&ep, &work);
                    return Err(e);
                }
                self.emit(Some(n), Some(&node), StepKind::Drain, "drained");
            }
        }
        for i in 0..work.len() {
            if !work[i].went_down
                && let Err(cause) = self.recheck(t, &snap, &avoid, &work[i].node, &mut ep)
            {
                self.abandon(&ep, &work);
                return Err(EngineError::NotSafeToStop {
                    batch: n,
                    node: work[i].node.clone(),
                    cause,
                });
            }
            if let Err(e) = self.change(n, &mut work[i], deadline) {
                self.abandon(&ep, &work);
                return Err(e);
            }
        }
        self.verify(n, t, &mut work, &ep, deadline, &snap.record)?;
        for w in &work {
            if w.ours {
                self.uncordon_ours(&ep, &w.node, n)?;
            }
            self.emit(
                Some(n),
                Some(&w.node),
                StepKind::Uncordon,
                if w.ours {
                    "uncordoned"
                } else if t == NodeType::Etcd {
                    "etcd member back"
                } else {
                    "left cordoned: cordoned by someone else"
                },
            );
        }
        Ok(work.into_iter().map(|w| w.node).collect())
    }

    /// A batch stops early: the nodes it cordoned that never went down go back into service; the
    /// others stay cordoned for `release()` and the next run.
    fn abandon(&mut self, ep: &Endpoint, work: &[Work]) {
        for w in work.iter().filter(|w| w.ours && !w.went_down) {
            let _ = self.uncordon_ours(ep, &w.node, 0);
        }
    }

    /// Wait (at most [`BOOT_WAIT`], within the batch) for `name` to report a boot ID other
    /// than `old`; true if it did.
    fn await_new_boot(
        &mut self,
        n: usize,
        ep: &Endpoint,
        name: &str,
        old: &str,
        deadline: Duration,
    ) -> Result<bool, EngineError> {
        self.emit(
            Some(n),
            Some(name),
            StepKind::Verify,
            "Ready with the annotated boot ID: waiting for a new boot before anything else",
        );
        let until = deadline.min(self.ports.clock.now() + BOOT_WAIT);
        loop {
            if let Ok(Some(node)) = self.ports.kube.get_node(ep, name)
                && node.boot_id != old
            {
                return Ok(true);
            }
            if self.ports.clock.now() >= until {
                return Ok(false);
            }
            self.pause()?;
        }
    }

    /// Record the boot ID, annotate and cordon (Kubernetes nodes only).
    fn mark(
        &mut self,
        n: usize,
        t: NodeType,
        snap: &Snapshot,
        ep: &Endpoint,
        name: &str,
        deadline: Duration,
    ) -> Result<Work, EngineError> {
        let vm = snap.vm_by_node(name).ok_or_else(|| EngineError::VmGone {
            batch: n,
            node: name.to_string(),
        })?;
        let stopped = vm.state == VmState::Stopped;
        let mut w = Work {
            node: name.to_string(),
            vm_id: vm.id.clone(),
            old_boot: None,
            ours: false,
            went_down: stopped,
            verify_only: false,
        };
        if t == NodeType::Etcd {
            return Ok(w);
        }
        let Some(node) = snap.node(name) else {
            if stopped {
                return Ok(w);
            }
            return Err(EngineError::NotRegistered {
                batch: n,
                node: name.to_string(),
            });
        };
        let kube_err = |source| EngineError::Mark {
            batch: n,
            node: name.to_string(),
            source,
        };
        match node.rollout_boot_id() {
            Some(old) => {
                w.ours = true;
                w.old_boot = Some(old.to_string());
                let differs = !changes_for(
                    &snap.record,
                    vm,
                    &snap.volumes,
                    &dedication_ids(&snap.groups),
                )
                .is_empty();
                if stopped {
                } else if old == node.boot_id {
                    // Same boot as annotated. Up to date and Running, an earlier run may have
                    // changed and started it before its kubelet posted: wait for a new boot ID
                    // rather than restart it twice; without one, it never went down.
                    if !differs && self.await_new_boot(n, ep, name, old, deadline)? {
                        w.went_down = true;
                        w.verify_only = true;
                        return Ok(w);
                    }
                } else if !differs {
                    // Restarted and changed by an earlier run, not yet Ready: only verify it.
                    w.went_down = true;
                    w.verify_only = true;
                    self.emit(
                        Some(n),
                        Some(name),
                        StepKind::Verify,
                        "restarted by an earlier run: waiting for it",
                    );
                    return Ok(w);
                } else {
                    // Rebooted since it was annotated but not yet changed: record this boot.
                    self.ports
                        .kube
                        .set_annotation(ep, name, ROLLOUT_ANNOTATION, Some(&node.boot_id))
                        .map_err(kube_err)?;
                    w.old_boot = Some(node.boot_id.clone());
                    self.emit(
                        Some(n),
                        Some(name),
                        StepKind::Annotate,
                        node.boot_id.clone(),
                    );
                }
            }
            None if node.unschedulable => {
                w.old_boot = Some(node.boot_id.clone());
                self.emit(
                    Some(n),
                    Some(name),
                    StepKind::Cordon,
                    "already cordoned by someone else: no annotation, stays cordoned",
                );
                return Ok(w);
            }
            None => {
                self.ports
                    .kube
                    .set_annotation(ep, name, ROLLOUT_ANNOTATION, Some(&node.boot_id))
                    .map_err(kube_err)?;
                w.ours = true;
                w.old_boot = Some(node.boot_id.clone());
                self.emit(
                    Some(n),
                    Some(name),
                    StepKind::Annotate,
                    node.boot_id.clone(),
                );
            }
        }
        self.ports
            .kube
            .set_unschedulable(ep, name, true)
            .map_err(kube_err)?;
        self.emit(Some(n), Some(name), StepKind::Cordon, "cordoned");
        Ok(w)
    }

    /// Just before stopping a control or etcd node: another API server still serves and the
    /// other etcd members still have quorum.
    /// For a control node, `ep` moves to another control node if the chosen one stopped serving.
    fn recheck(
        &mut self,
        t: NodeType,
        snap: &Snapshot,
        avoid: &[String],
        node: &str,
        ep: &mut Endpoint,
    ) -> Result<(), String> {
        if t == NodeType::Worker {
            return Ok(());
        }
        if t == NodeType::Control && self.ports.kube.readyz(ep, ReadyzCheck::All) != Ok(true) {
            let others: Vec<Endpoint> = snap
                .vms_of(NodeType::Control)
                .filter(|v| !avoid.contains(&v.node_name) && v.state == VmState::Running)
                .map(|v| Endpoint::Control(v.node_name.clone()))
                .filter(|e| e != ep)
                .collect();
            let serving = others
                .into_iter()
                .find(|e| self.ports.kube.readyz(e, ReadyzCheck::All) == Ok(true));
            match serving {
                Some(e) => *ep = e,
                None => {
                    return Err(format!(
                        "no other control node serves the API before stopping {node}"
                    ));
                }
            }
        }
        let members = self
            .ports
            .etcd
            .members()
            .map_err(|e| format!("etcd health before stopping {node}: {e}"))?;
        // The node's own member (stacked or external etcd) does not count: it is going down.
        let own = if super::preflight::is_member_type(snap, t) {
            let vm = snap
                .vm_by_node(node)
                .ok_or_else(|| format!("VM of {node} is gone"))?;
            Some(member_of(vm, &members)?)
        } else {
            None
        };
        let voting: Vec<_> = members.iter().filter(|m| !m.learner).collect();
        let healthy = voting
            .iter()
            .filter(|m| own.is_none_or(|o| !std::ptr::eq(**m, o)))
            .filter(|m| m.health == MemberHealth::Healthy)
            .count();
        let need = quorum(voting.len());
        if voting.is_empty() || healthy < need || members.iter().any(|m| m.learner) {
            return Err(format!(
                "etcd quorum before stopping {node}{}: {healthy} other members healthy, {need} of {} needed",
                own.map(|o| format!(" (member {})", o.name))
                    .unwrap_or_default(),
                voting.len()
            ));
        }
        Ok(())
    }

    /// Stop (if running), apply every change while stopped, start. A stop that fails is
    /// judged by the VM's state read again: still Running, it never went down; Stopping or
    /// Stopped (or unknown), it is down and never uncordoned while so.
    fn change(&mut self, n: usize, w: &mut Work, deadline: Duration) -> Result<(), EngineError> {
        if w.verify_only {
            return Ok(());
        }
        let name = w.node.clone();
        let vm_id = w.vm_id.clone();
        if !w.went_down {
            match self.ports.cloud.stop_vm(&vm_id) {
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
        if let Err(cause) = self.apply_changes(n, &name) {
            // Bring the node back as it was; the next run finds it still out of date.
            let restarted = self.ports.cloud.start_vm(&vm_id).is_ok();
            return Err(EngineError::ChangeFailed {
                batch: n,
                node: name,
                cause,
                restarted,
            });
        }
        self.ports
            .cloud
            .start_vm(&vm_id)
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

    fn apply_changes(&mut self, n: usize, name: &str) -> Result<(), String> {
        let snap = observe_cloud(self.ports, &self.cluster).map_err(|e| e.to_string())?;
        let vm = snap
            .vm_by_node(name)
            .ok_or_else(|| format!("VM of {name} is gone"))?;
        if vm.state != VmState::Stopped {
            return Err(format!(
                "VM of {name} is {:?}, expected Stopped; nothing changed",
                vm.state
            ));
        }
        let vm_id = vm.id.clone();
        let dedication = dedication_ids(&snap.groups);
        for c in changes_for(&snap.record, vm, &snap.volumes, &dedication) {
            match c {
                Change::Offering { to, .. } => {
                    self.ports
                        .cloud
                        .change_offering(&vm_id, &to)
                        .map_err(|e| format!("change offering of {name} to {to}: {e}"))?;
                    self.emit(Some(n), Some(name), StepKind::ChangeOffering, to);
                }
                Change::RootDisk {
                    volume_id, to_gb, ..
                } => {
                    self.ports
                        .cloud
                        .resize_volume(&volume_id, to_gb)
                        .map_err(|e| format!("resize root disk of {name} to {to_gb} GB: {e}"))?;
                    self.emit(
                        Some(n),
                        Some(name),
                        StepKind::ResizeDisk,
                        format!("{to_gb} GB"),
                    );
                }
                Change::AffinityGroups { to, .. } => {
                    self.ports
                        .cloud
                        .update_affinity_groups(&vm_id, &to)
                        .map_err(|e| format!("update affinity groups of {name}: {e}"))?;
                    self.emit(Some(n), Some(name), StepKind::UpdateAffinity, to.join(","));
                }
            }
        }
        Ok(())
    }
}
