//! One batch: preflight, annotate and cordon, drain, change while stopped, start, verify,
//! uncordon.

use super::observe::{Snapshot, observe_cloud, observe_live};
use super::outdated::{Change, capacity_matches, changes_for, dedication_ids};
use super::plan::{Batch, is_finished};
use super::preflight::{Verdict, is_member_type, preflight};
use super::progress::StepKind;
use super::run::Runner;
use super::safety::quorum;
use crate::model::{Endpoint, MemberHealth, NodeType, ROLLOUT_ANNOTATION, ReadyzCheck, VmState};
use std::time::Duration;

/// A node of the batch as the engine tracks it.
#[derive(Debug, Clone)]
struct Work {
    node: String,
    vm_id: String,
    /// Boot ID before the restart (None: not a Kubernetes node, or never registered).
    old_boot: Option<String>,
    /// True when the engine annotated it (and so may uncordon it).
    ours: bool,
    /// True once the engine stopped its VM (or found it stopped).
    went_down: bool,
}

impl Runner<'_, '_> {
    pub(super) fn run_batch(&mut self, t: NodeType, batch: &Batch) -> Result<Vec<String>, String> {
        let n = batch.number;
        let deadline = self.ports.clock.now() + self.cfg.batch_timeout;
        let snap = self.observe().map_err(|e| e.to_string())?;
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
            return Err(format!(
                "batch {n} ({}): preflight failed: {}",
                names.join(", "),
                reasons.join("; ")
            ));
        }
        let avoid = if t == NodeType::Control {
            names.clone()
        } else {
            Vec::new()
        };
        let ep = snap.endpoint_avoiding(&avoid);
        let mut work = Vec::new();
        for name in &names {
            work.push(self.mark(n, t, &snap, &ep, name)?);
        }
        if t != NodeType::Etcd {
            let drain_deadline = deadline.min(self.ports.clock.now() + self.cfg.drain_timeout);
            for i in 0..work.len() {
                if work[i].went_down {
                    continue;
                }
                let node = work[i].node.clone();
                if let Err(e) = self.drain(&ep, &node, drain_deadline) {
                    for w in work.iter().filter(|w| w.ours && !w.went_down) {
                        let _ = self.uncordon_ours(&ep, &w.node);
                    }
                    return Err(format!(
                        "batch {n}: {e}; the node was uncordoned, it never went down"
                    ));
                }
                self.emit(Some(n), Some(&node), StepKind::Drain, "drained");
            }
        }
        for i in 0..work.len() {
            if !work[i].went_down
                && let Err(e) = self.recheck(t, &work[i].node, &ep)
            {
                for w in work.iter().filter(|w| w.ours && !w.went_down) {
                    let _ = self.uncordon_ours(&ep, &w.node);
                }
                return Err(format!("batch {n}: {e}; not stopped, uncordoned"));
            }
            self.change(n, &mut work[i])?;
        }
        self.verify(n, t, &mut work, &ep, deadline)?;
        for w in &work {
            if w.ours {
                self.uncordon_ours(&ep, &w.node)
                    .map_err(|e| format!("batch {n}: {e}"))?;
            }
            self.emit(
                Some(n),
                Some(&w.node),
                StepKind::Uncordon,
                if w.ours {
                    "uncordoned"
                } else {
                    "left cordoned: cordoned by someone else"
                },
            );
        }
        Ok(work.into_iter().map(|w| w.node).collect())
    }

    /// Record the boot ID, annotate and cordon (Kubernetes nodes only).
    fn mark(
        &mut self,
        n: usize,
        t: NodeType,
        snap: &Snapshot,
        ep: &Endpoint,
        name: &str,
    ) -> Result<Work, String> {
        let vm = snap
            .vm_by_node(name)
            .ok_or_else(|| format!("batch {n}: VM of {name} is gone"))?;
        let stopped = vm.state == VmState::Stopped;
        let mut w = Work {
            node: name.to_string(),
            vm_id: vm.id.clone(),
            old_boot: None,
            ours: false,
            went_down: stopped,
        };
        if t == NodeType::Etcd {
            return Ok(w);
        }
        let Some(node) = snap.node(name) else {
            if stopped {
                return Ok(w);
            }
            return Err(format!(
                "batch {n}: node {name} is not registered in the API"
            ));
        };
        let kube_err = |e: crate::ports::PortError| format!("batch {n}: node {name}: {e}");
        match node.rollout_boot_id() {
            Some(old) => {
                w.ours = true;
                if stopped || old == node.boot_id {
                    w.old_boot = Some(old.to_string());
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
    fn recheck(&mut self, t: NodeType, node: &str, ep: &Endpoint) -> Result<(), String> {
        if t == NodeType::Worker {
            return Ok(());
        }
        if t == NodeType::Control && self.ports.kube.readyz(ep, ReadyzCheck::All) != Ok(true) {
            return Err(format!(
                "no other control node serves the API before stopping {node}"
            ));
        }
        let members = self
            .ports
            .etcd
            .members()
            .map_err(|e| format!("etcd health before stopping {node}: {e}"))?;
        let voting: Vec<_> = members.iter().filter(|m| !m.learner).collect();
        let healthy = voting
            .iter()
            .filter(|m| m.name != node && m.health == MemberHealth::Healthy)
            .count();
        let need = quorum(voting.len());
        if voting.is_empty() || healthy < need || members.iter().any(|m| m.learner) {
            return Err(format!(
                "etcd quorum before stopping {node}: {healthy} other members healthy, {need} of {} needed",
                voting.len()
            ));
        }
        Ok(())
    }

    /// Stop (if running), apply every change while stopped, start.
    fn change(&mut self, n: usize, w: &mut Work) -> Result<(), String> {
        let name = w.node.clone();
        let vm_id = w.vm_id.clone();
        if !w.went_down {
            self.ports
                .cloud
                .stop_vm(&vm_id)
                .map_err(|e| format!("batch {n}: stop VM of {name}: {e}"))?;
            w.went_down = true;
            self.emit(Some(n), Some(&name), StepKind::Stop, "stopped");
        }
        if let Err(e) = self.apply_changes(n, &name) {
            // Bring the node back as it was; the next run finds it still out of date.
            let restarted = self.ports.cloud.start_vm(&vm_id).is_ok();
            return Err(format!(
                "batch {n}: {e}{}",
                if restarted {
                    "; the VM was started again unchanged"
                } else {
                    ""
                }
            ));
        }
        self.ports
            .cloud
            .start_vm(&vm_id)
            .map_err(|e| format!("batch {n}: start VM of {name}: {e}"))?;
        self.emit(Some(n), Some(&name), StepKind::StartVm, "started");
        Ok(())
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

    /// Wait until every node is Running, up to date, Ready with a new boot ID and the capacity
    /// of its offering (etcd nodes: member healthy).
    fn verify(
        &mut self,
        n: usize,
        t: NodeType,
        work: &mut [Work],
        ep: &Endpoint,
        deadline: Duration,
    ) -> Result<(), String> {
        let mut pending: Vec<usize> = (0..work.len()).collect();
        let mut ep = ep.clone();
        loop {
            let mut why = Vec::new();
            match observe_cloud(self.ports, &self.cluster) {
                Err(e) => why.push(e.to_string()),
                Ok(mut snap) => {
                    observe_live(self.ports, &mut snap);
                    if !snap
                        .api_up
                        .iter()
                        .any(|a| matches!(&ep, Endpoint::Control(c) if c == a))
                    {
                        let avoid: Vec<String> = if t == NodeType::Control {
                            work.iter().map(|w| w.node.clone()).collect()
                        } else {
                            Vec::new()
                        };
                        ep = snap.endpoint_avoiding(&avoid);
                    }
                    let mut still = Vec::new();
                    for &i in &pending {
                        match node_verdict(&snap, t, &work[i]) {
                            Ok(()) => {
                                self.emit(
                                    Some(n),
                                    Some(&work[i].node),
                                    StepKind::Verify,
                                    "up to date, Ready with a new boot ID",
                                );
                            }
                            Err(e) => {
                                why.push(e);
                                still.push(i);
                            }
                        }
                    }
                    pending = still;
                }
            }
            if pending.is_empty() {
                return Ok(());
            }
            if self.ports.clock.now() >= deadline {
                return Err(format!(
                    "batch {n}: not verified within {} s: {}",
                    self.cfg.batch_timeout.as_secs(),
                    why.join("; ")
                ));
            }
            self.pause()?;
        }
    }
}

fn node_verdict(snap: &Snapshot, t: NodeType, w: &Work) -> Result<(), String> {
    let name = &w.node;
    let vm = snap
        .vm_by_node(name)
        .ok_or_else(|| format!("VM of {name} is gone"))?;
    if vm.state != VmState::Running {
        return Err(format!("VM of {name} is {:?}", vm.state));
    }
    let dedication = dedication_ids(&snap.groups);
    let left = changes_for(&snap.record, vm, &snap.volumes, &dedication);
    if !left.is_empty() {
        return Err(format!("VM of {name} still differs: {left:?}"));
    }
    if is_member_type(snap, t) {
        let healthy = snap
            .members
            .iter()
            .any(|m| &m.name == name && m.health == MemberHealth::Healthy);
        if !healthy {
            return Err(format!("etcd member {name} is not healthy"));
        }
    }
    if t == NodeType::Etcd {
        return Ok(());
    }
    let node = snap
        .node(name)
        .ok_or_else(|| format!("node {name} not reported by the API"))?;
    if !node.is_ready() {
        return Err(format!("node {name} is not Ready"));
    }
    if w.old_boot.as_deref() == Some(node.boot_id.as_str()) {
        return Err(format!(
            "node {name} still reports the boot ID {} from before the restart",
            node.boot_id
        ));
    }
    let offering = snap
        .offering(&vm.service_offering_id)
        .ok_or_else(|| format!("offering {} of {name} not listed", vm.service_offering_id))?;
    if !capacity_matches(offering, node) {
        return Err(format!(
            "node {name} reports {} CPU / {} KiB, offering {} has {} CPU / {} MiB",
            node.capacity_cpu,
            node.capacity_memory_kib,
            offering.name,
            offering.cpu_cores,
            offering.memory_mb
        ));
    }
    Ok(())
}
