//! One batch: preflight, annotate and cordon, drain, change while stopped, start, verify,
//! uncordon. The steps on one node live beside it: [`super::mark`] (annotate, cordon),
//! [`super::recheck`] (safe to stop), [`super::change`] (stop, change, start).

use super::error::EngineError;
use super::plan::{Batch, is_finished};
use super::preflight::{Verdict, preflight};
use super::progress::StepKind;
use super::run::Runner;
use crate::model::{Endpoint, NodeType, ROLLOUT_ANNOTATION, VmState};

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
    /// Run batch `batch` of type `t`: the nodes it finished, or `None` when a cancel was asked
    /// before it took any node.
    pub(super) fn run_batch(
        &mut self,
        t: NodeType,
        batch: &Batch,
    ) -> Result<Option<Vec<String>>, EngineError> {
        let n = batch.number;
        let deadline = self.ports.clock.now() + self.cfg.batch_timeout;
        let snap = self.observe()?;
        let mut names = Vec::new();
        for np in &batch.nodes {
            let Some(vm) = snap.vm_by_node(&np.node) else {
                continue;
            };
            let annotated = snap
                .node(&np.node)
                .is_some_and(|x| x.annotations.contains_key(ROLLOUT_ANNOTATION));
            let differs = snap.out_of_date(vm);
            if is_finished(&snap, &np.node) && !differs && vm.state == VmState::Running {
                continue;
            }
            let forced = vm.state == VmState::Running
                && self
                    .restart
                    .as_ref()
                    .is_some_and(|set| set.contains(&np.node));
            if vm.state == VmState::Stopped || annotated || differs || forced {
                names.push(np.node.clone());
            }
        }
        self.settle(&snap);
        if names.is_empty() {
            return Ok(Some(Vec::new()));
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
        // The last look before a node is taken: a cancel asked while the batch was being
        // checked stops it with nothing touched.
        if self.cancel_asked()? {
            return Ok(None);
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
        self.verify(n, t, &mut work, deadline, &snap.record)?;
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
        Ok(Some(work.into_iter().map(|w| w.node).collect()))
    }

    /// A batch stops early: the nodes it cordoned that never went down go back into service; the
    /// others stay cordoned for `release()` and the next run.
    fn abandon(&mut self, ep: &Endpoint, work: &[Work]) {
        for w in work.iter().filter(|w| w.ours && !w.went_down) {
            let _ = self.uncordon_ours(ep, &w.node, 0);
        }
    }
}
