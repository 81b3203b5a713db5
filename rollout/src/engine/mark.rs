//! Taking a node of a batch: its annotation with the boot ID before the restart, the cordon,
//! and a node an earlier run left annotated (wait for its new boot, or restart it).

use super::batch::Work;
use super::config::BOOT_WAIT;
use super::error::EngineError;
use super::observe::Snapshot;
use super::progress::StepKind;
use super::run::Runner;
use crate::model::{Endpoint, NodeType, ROLLOUT_ANNOTATION, VmState};
use std::time::Duration;

impl Runner<'_, '_> {
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
    pub(super) fn mark(
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
        match node.rollout_boot_id() {
            Some(old) => {
                w.ours = true;
                w.old_boot = Some(old.to_string());
                if self.resume_annotated(n, snap, ep, name, old, deadline, &mut w)? {
                    return Ok(w);
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
                // Never a node someone else cordoned: that one stays theirs (above).
                debug_assert!(!node.unschedulable, "{name} is cordoned by someone else");
                self.annotate(n, ep, name, &node.boot_id)?;
                w.ours = true;
                w.old_boot = Some(node.boot_id.clone());
            }
        }
        self.hold()?;
        self.ports
            .kube
            .set_unschedulable(ep, name, true)
            .map_err(|source| EngineError::Mark {
                batch: n,
                node: name.to_string(),
                source,
            })?;
        self.emit(Some(n), Some(name), StepKind::Cordon, "cordoned");
        Ok(w)
    }

    /// Annotate `name` with `boot`, the boot ID before its restart.
    fn annotate(
        &mut self,
        n: usize,
        ep: &Endpoint,
        name: &str,
        boot: &str,
    ) -> Result<(), EngineError> {
        self.hold()?;
        self.ports
            .kube
            .set_annotation(ep, name, ROLLOUT_ANNOTATION, Some(boot))
            .map_err(|source| EngineError::Mark {
                batch: n,
                node: name.to_string(),
                source,
            })?;
        self.emit(Some(n), Some(name), StepKind::Annotate, boot.to_string());
        Ok(())
    }

    /// A node an earlier run annotated with boot ID `old`: true when it needs no cordon (it
    /// restarted already: only verify it); otherwise `w` is ready for the cordon, its
    /// annotation renewed if it rebooted unchanged.
    #[allow(clippy::too_many_arguments)]
    fn resume_annotated(
        &mut self,
        n: usize,
        snap: &Snapshot,
        ep: &Endpoint,
        name: &str,
        old: &str,
        deadline: Duration,
        w: &mut Work,
    ) -> Result<bool, EngineError> {
        let (Some(vm), Some(node)) = (snap.vm_by_node(name), snap.node(name)) else {
            return Ok(false);
        };
        let differs = snap.out_of_date(vm);
        if vm.state == VmState::Stopped {
            return Ok(false);
        }
        if old == node.boot_id {
            // Same boot as annotated. Up to date and Running, an earlier run may have changed
            // and started it before its kubelet posted: wait for a new boot ID rather than
            // restart it twice; without one, it never went down.
            if !differs && self.await_new_boot(n, ep, name, old, deadline)? {
                w.went_down = true;
                w.verify_only = true;
                return Ok(true);
            }
            return Ok(false);
        }
        if !differs {
            // Restarted and changed by an earlier run, not yet Ready: only verify it.
            w.went_down = true;
            w.verify_only = true;
            self.emit(
                Some(n),
                Some(name),
                StepKind::Verify,
                "restarted by an earlier run: waiting for it",
            );
            return Ok(true);
        }
        // Rebooted since it was annotated but not yet changed: record this boot.
        self.annotate(n, ep, name, &node.boot_id)?;
        w.old_boot = Some(node.boot_id.clone());
        Ok(false)
    }
}
