//! One batch: preflight, annotate and cordon, drain, change while stopped, start, verify,
//! uncordon. The steps on one node live beside it: [`super::mark`] (annotate, cordon),
//! [`super::recheck`] (safe to stop), [`super::change`] (stop, change, start).

use super::error::EngineError;
use super::in_window::Opened;
use super::plan::{Batch, is_finished};
use super::preflight::{Verdict, preflight};
use super::progress::StepKind;
use super::run::{BatchEnd, Runner};
use crate::model::{Endpoint, NodeType, ROLLOUT_ANNOTATION, VmState};
use std::time::Duration;

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

/// The nodes of `batch` with work left as `snap` shows them: stopped, annotated by an earlier
/// run, out of date, or asked to restart; a node that came back unchanged and running is done.
fn with_work(
    snap: &super::observe::Snapshot,
    batch: &Batch,
    restart: Option<&std::collections::BTreeSet<String>>,
) -> Vec<String> {
    let mut names = Vec::new();
    for np in &batch.nodes {
        let Some(vm) = snap.vm_by_node(&np.node) else {
            continue;
        };
        let annotated = snap
            .node(&np.node)
            .is_some_and(|x| x.annotations.contains_key(ROLLOUT_ANNOTATION));
        let differs = snap.out_of_date(vm);
        if is_finished(snap, &np.node) && !differs && vm.state == VmState::Running {
            continue;
        }
        let forced =
            vm.state == VmState::Running && restart.is_some_and(|set| set.contains(&np.node));
        if vm.state == VmState::Stopped || annotated || differs || forced {
            names.push(np.node.clone());
        }
    }
    names
}

impl Runner<'_, '_> {
    /// Run batch `batch` of type `t`: the nodes it finished, or how it stopped early.
    pub(super) fn run_batch(
        &mut self,
        t: NodeType,
        batch: &Batch,
    ) -> Result<BatchEnd, EngineError> {
        let n = batch.number;
        let mut deadline = self.ports.clock.now() + self.cfg.batch_timeout;
        let snap = self.observe()?;
        let names = with_work(&snap, batch, self.restart.as_ref());
        self.settle(&snap);
        if names.is_empty() {
            return Ok(BatchEnd::Done(Vec::new()));
        }
        let verdict = preflight(&snap, t, &names);
        self.emit(
            Some(n),
            None,
            StepKind::Preflight,
            format!("{}: {verdict}", names.join(",")),
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
            return Ok(BatchEnd::Cancelled);
        }
        let avoid = if t == NodeType::Control {
            names.clone()
        } else {
            Vec::new()
        };
        let mut ep = snap.endpoint_avoiding(&avoid);
        let mut work = self.take_out(n, t, &snap, &ep, &names, deadline)?;
        let mut halted = None;
        for i in 0..work.len() {
            if !work[i].went_down {
                if halted.is_some() {
                    continue;
                }
                let node = work[i].node.clone();
                match self.before_stop(n, t, &snap, &avoid, &node, &mut ep) {
                    Ok(Ok(waited)) => deadline += waited,
                    Ok(Err(why)) => {
                        // No further stop; the nodes found down are still changed and started.
                        halted = Some(why);
                        continue;
                    }
                    Err(e) => {
                        self.abandon(&ep, &work);
                        return Err(e);
                    }
                }
            }
            if let Err(e) = self.change(n, &mut work[i], deadline, &snap.record) {
                self.abandon(&ep, &work);
                return Err(e);
            }
        }
        if halted.is_some() {
            // The nodes not yet down go back into service; those down are finished below.
            self.abandon(&ep, &work);
            work.retain(|w| w.went_down);
        }
        self.verify(n, t, &mut work, deadline, &snap.record)?;
        let finished = self.back_in_service(n, t, &ep, work)?;
        Ok(match halted {
            Some(why) => BatchEnd::Halted {
                done_now: finished,
                why,
            },
            None => BatchEnd::Done(finished),
        })
    }

    /// Annotate and cordon each of `names` (batch `n`), then drain those still up (etcd nodes
    /// run no workloads): the nodes as the batch tracks them. On an error the nodes taken so
    /// far go back into service.
    fn take_out(
        &mut self,
        n: usize,
        t: NodeType,
        snap: &super::observe::Snapshot,
        ep: &Endpoint,
        names: &[String],
        deadline: Duration,
    ) -> Result<Vec<Work>, EngineError> {
        let mut work = Vec::new();
        for name in names {
            match self.mark(n, t, snap, ep, name, deadline) {
                Ok(w) => work.push(w),
                Err(e) => {
                    self.abandon(ep, &work);
                    return Err(e);
                }
            }
        }
        if t == NodeType::Etcd {
            return Ok(work);
        }
        let drain_deadline = deadline.min(self.ports.clock.now() + self.cfg.drain_timeout);
        for w in work.iter().filter(|w| !w.went_down) {
            if let Err(e) = self.drain(n, ep, &w.node, drain_deadline) {
                self.abandon(ep, &work);
                return Err(e);
            }
            self.emit(Some(n), Some(&w.node), StepKind::Drain, "drained");
        }
        Ok(work)
    }

    /// The verified nodes of batch `n` back in service: those the engine annotated uncordoned,
    /// the others left as someone else cordoned them; their names, in order.
    fn back_in_service(
        &mut self,
        n: usize,
        t: NodeType,
        ep: &Endpoint,
        work: Vec<Work>,
    ) -> Result<Vec<String>, EngineError> {
        for w in &work {
            if w.ours {
                self.uncordon_ours(ep, &w.node, n)?;
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

    /// Just before `node` of batch `n` is stopped: safe to stop (as [`Runner::recheck`] sees
    /// it) and inside a window, both seen after any wait for the window. `Ok(Ok(waited))` to
    /// stop it (the batch's deadline moves by the wait); `Ok(Err(why))` when the window closed
    /// (the error) or a cancel came during the wait (`None`): no node is stopped.
    fn before_stop(
        &mut self,
        n: usize,
        t: NodeType,
        snap: &super::observe::Snapshot,
        avoid: &[String],
        node: &str,
        ep: &mut Endpoint,
    ) -> Result<Result<Duration, Option<EngineError>>, EngineError> {
        let mut waited = Duration::ZERO;
        loop {
            if let Err(cause) = self.recheck(t, snap, avoid, node, ep) {
                return Err(EngineError::NotSafeToStop {
                    batch: n,
                    node: node.to_string(),
                    cause,
                });
            }
            if self.window_open() {
                return Ok(Ok(waited));
            }
            match self.in_window(n, Some(node)) {
                Ok(Opened::Now) => {}
                Ok(Opened::AfterWait(d)) => waited += d,
                Ok(Opened::Cancelled) => return Ok(Err(None)),
                Err(e @ EngineError::WindowClosed { .. }) => return Ok(Err(Some(e))),
                Err(e) => return Err(e),
            }
        }
    }

    /// A batch stops early: the nodes it cordoned that never went down go back into service; the
    /// others stay cordoned for `release()` and the next run.
    fn abandon(&mut self, ep: &Endpoint, work: &[Work]) {
        for w in work.iter().filter(|w| w.ours && !w.went_down) {
            let _ = self.uncordon_ours(ep, &w.node, 0);
        }
    }
}
