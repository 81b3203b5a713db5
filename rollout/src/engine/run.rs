//! Carrying out a plan batch by batch: cancel and lease checks between batches.

use super::config::EngineConfig;
use super::error::EngineError;
use super::observe::{Snapshot, observe};
use super::plan::{Plan, plan_with};
use super::progress::{Event, Progress, StepKind};
use crate::model::{Endpoint, Lease};
use crate::ports::{PortResult, Ports};
use serde::Serialize;
use std::collections::BTreeSet;

/// How a batch ended when it did not fail.
#[derive(Debug)]
pub(super) enum BatchEnd {
    /// Every node finished (in order).
    Done(Vec<String>),
    /// A cancel was asked before the batch took any node.
    Cancelled,
    /// The window closed before a node of it was to be stopped (`why`), or a cancel was asked
    /// while waiting for the next (`None`): the nodes not yet down went back into service, those
    /// that went down were finished (`done_now`).
    Halted {
        /// The nodes it finished.
        done_now: Vec<String>,
        /// The window's error, or `None` for a cancel.
        why: Option<EngineError>,
    },
}

/// Re-plans allowed when nodes are added or removed during one rollout.
const MAX_REPLANS: usize = 5;

/// How a rollout run ended (before `release()`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunOutcome {
    /// The plan that was carried out.
    pub plan: Plan,
    /// Nodes restarted and verified, in order.
    pub done: Vec<String>,
    /// True when a cancel stopped it.
    pub cancelled: bool,
    /// The error that stopped it (named in `lasterror`; the cluster ends in Alert only if it is
    /// not healthy).
    pub error: Option<EngineError>,
    /// The nodes skipped and why (reported in `lasterror`; the cluster may still be Running).
    pub notes: Option<String>,
    /// True when another engine instance took the lease: this one neither acts nor releases.
    pub lost_lease: bool,
}

/// One rollout in progress: the ports, settings and the events so far.
pub struct Runner<'r, 'a> {
    /// Ports.
    pub(super) ports: &'r mut Ports<'a>,
    /// Settings.
    pub(super) cfg: &'r EngineConfig,
    /// Cluster id.
    pub(super) cluster: String,
    /// Our lease.
    pub(super) lease: Lease,
    /// Progress receiver.
    pub(super) progress: &'r mut dyn Progress,
    /// Every event so far.
    pub(super) events: Vec<Event>,
    /// Set when a renewal found another owner.
    pub(super) lost_lease: bool,
    /// When the store last confirmed the lease (this engine's clock).
    pub(super) confirmed: std::time::Duration,
    /// The nodes `--restart` names that this run has not restarted yet (None until the first
    /// look at the cluster).
    pub(super) restart: Option<BTreeSet<String>>,
}

impl<'r, 'a> Runner<'r, 'a> {
    /// A runner for `cluster` holding `lease`.
    pub fn new(
        ports: &'r mut Ports<'a>,
        cfg: &'r EngineConfig,
        cluster: &str,
        lease: Lease,
        progress: &'r mut dyn Progress,
    ) -> Self {
        let confirmed = ports.clock.now();
        Runner {
            ports,
            cfg,
            cluster: cluster.to_string(),
            lease,
            progress,
            events: Vec::new(),
            lost_lease: false,
            confirmed,
            restart: None,
        }
    }

    /// Events recorded so far.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    pub(super) fn emit(
        &mut self,
        batch: Option<usize>,
        node: Option<&str>,
        step: StepKind,
        detail: impl Into<String>,
    ) {
        let event = Event {
            at_ms: self.ports.clock.now().as_millis() as u64,
            wall_ms: self.ports.clock.wall().as_millis() as u64,
            batch,
            node: node.map(str::to_string),
            step,
            detail: detail.into(),
        };
        self.progress.on_event(&event);
        self.events.push(event);
    }

    pub(super) fn observe(&mut self) -> Result<Snapshot, EngineError> {
        let snap = observe(self.ports, &self.cluster)?;
        // The heartbeat the store stamped when the rollout began, learnt from the first read
        // of the record: every renewal compares against it.
        if self.lease.heartbeat_ms == 0
            && snap.record.state == crate::model::ClusterState::Updating
            && let Some(held) = &snap.record.lease
            && held.owner == self.lease.owner
        {
            self.lease = held.clone();
        }
        Ok(snap)
    }

    /// Sleep one poll interval and renew the lease; an error if the lease was lost.
    pub(super) fn pause(&mut self) -> Result<(), EngineError> {
        self.ports.clock.sleep(self.cfg.poll_interval);
        self.renew()
    }

    /// Renew the lease in the store (a compare-and-set on owner and heartbeat, stamped with the
    /// store's clock); an error if it was lost. A store that does not answer is retried at the
    /// next renewal (and [`Runner::hold`] before the next act).
    pub(super) fn renew(&mut self) -> Result<(), EngineError> {
        match self.confirm() {
            Ok(false) => Err(self.lost()),
            Ok(true) | Err(_) => Ok(()),
        }
    }

    /// Asks the store to confirm and renew this engine's lease: held (the time noted), lost,
    /// or the store's error when it did not answer.
    fn confirm(&mut self) -> PortResult<bool> {
        let held =
            self.ports
                .store
                .hold_lease(&self.cluster, &mut self.lease, self.cfg.lease_timeout)?;
        if held {
            self.confirmed = self.ports.clock.now();
        }
        Ok(held)
    }

    /// Before every act on the cluster (cordon, drain, stop, change, start, uncordon): the
    /// store confirms, now, that this engine holds a fresh lease, and renews it. A store that
    /// does not answer leaves the lease as it last confirmed it: still this engine's while that
    /// confirmation is younger than the lease timeout less a poll interval (no other process
    /// can take it before it expires, so a node this engine stopped is still started again);
    /// after that the engine stops without acting.
    pub(super) fn hold(&mut self) -> Result<(), EngineError> {
        match self.confirm() {
            Ok(true) => Ok(()),
            Ok(false) => Err(self.lost()),
            Err(source) => {
                let since = self.ports.clock.now().saturating_sub(self.confirmed);
                if since + self.cfg.poll_interval < self.cfg.lease_timeout {
                    return Ok(());
                }
                self.lost_lease = true;
                Err(EngineError::LeaseUnconfirmed {
                    cluster: self.cluster.clone(),
                    seconds: since.as_secs(),
                    source,
                })
            }
        }
    }

    fn lost(&mut self) -> EngineError {
        self.lost_lease = true;
        EngineError::LeaseLost {
            cluster: self.cluster.clone(),
            owner: self.lease.owner.clone(),
        }
    }

    /// The lease as this engine holds it now.
    pub(super) fn lease(&self) -> &Lease {
        &self.lease
    }

    /// Uncordon, then remove the annotation (in this order, so a crash in between leaves the
    /// annotation that marks the node as ours).
    pub(super) fn uncordon_ours(
        &mut self,
        ep: &Endpoint,
        node: &str,
        batch: usize,
    ) -> Result<(), EngineError> {
        let fail = |action: &'static str| {
            move |source| EngineError::Uncordon {
                batch,
                action,
                node: node.to_string(),
                source,
            }
        };
        self.hold()?;
        self.ports
            .kube
            .set_unschedulable(ep, node, false)
            .map_err(fail("uncordon"))?;
        self.ports
            .kube
            .set_annotation(ep, node, crate::model::ROLLOUT_ANNOTATION, None)
            .map_err(fail("remove annotation of"))
    }

    /// CloudStack's own view of the cluster, before each batch: an error when CloudStack runs
    /// an operation of its own on it; the VM ids otherwise.
    fn guard(&mut self) -> Result<BTreeSet<String>, EngineError> {
        let c = self
            .ports
            .cloud
            .cks_cluster(&self.cluster)
            .map_err(EngineError::cloud)?;
        if !c.allows_rollout() {
            return Err(EngineError::CloudStackBusy {
                cluster: self.cluster.clone(),
                state: c.state,
            });
        }
        Ok(c.vm_ids.into_iter().collect())
    }

    /// Carry out the rollout of the settings already stored, `max_unavailable` workers at a time.
    pub fn execute(&mut self, max_unavailable: u32) -> RunOutcome {
        let mut done = Vec::new();
        let mut cancelled = false;
        let mut replans = 0;
        let mut last_plan = None;
        let error = loop {
            let snap = match self.observe() {
                Ok(s) => s,
                Err(e) => break Some(e),
            };
            if self.settle_unsure(&snap) {
                continue;
            }
            let planned: BTreeSet<String> = snap.vms.iter().map(|v| v.id.clone()).collect();
            let restart = match self.restart_once(&snap) {
                Ok(set) => set,
                Err(e) => break Some(e),
            };
            let the_plan = plan_with(&snap, max_unavailable, &restart);
            self.announce(&the_plan);
            self.settle(&snap);
            let step = self.batches(&the_plan, &planned, &mut done, &mut cancelled);
            last_plan = Some(the_plan);
            match step {
                Ok(false) => break None,
                Ok(true) if replans < MAX_REPLANS => {
                    replans += 1;
                }
                Ok(true) => {
                    break Some(EngineError::NodesKeepChanging {
                        cluster: self.cluster.clone(),
                        times: replans,
                    });
                }
                Err(e) => break Some(e),
            }
        };
        let the_plan = last_plan.unwrap_or_else(|| Plan {
            cluster_id: self.cluster.clone(),
            worker_batch_size: 1,
            finish: Vec::new(),
            phases: Vec::new(),
            skipped: Vec::new(),
            notes: Vec::new(),
        });
        RunOutcome {
            notes: the_plan.skip_message(),
            lost_lease: self.lost_lease,
            plan: the_plan,
            done,
            cancelled,
            error,
        }
    }

    /// True when an operator asked for a cancel (read from the store now).
    pub(super) fn cancel_asked(&mut self) -> Result<bool, EngineError> {
        let record =
            self.ports
                .store
                .load(&self.cluster)
                .map_err(|source| EngineError::ReadCluster {
                    cluster: self.cluster.clone(),
                    source,
                })?;
        Ok(record.cancel)
    }

    /// The nodes `run --restart` asked for that are still to restart, fixed at the first
    /// plan (each leaves the set as its batch finishes).
    fn restart_once(
        &mut self,
        snap: &super::observe::Snapshot,
    ) -> Result<BTreeSet<String>, EngineError> {
        if self.restart.is_none() {
            self.restart = Some(match self.cfg.restart {
                Some(scope) => self.restart_set(scope, snap)?,
                None => BTreeSet::new(),
            });
        }
        Ok(self.restart.clone().unwrap_or_default())
    }

    /// The start of a plan's run: its size, then each node it skips.
    fn announce(&mut self, the_plan: &Plan) {
        self.emit(
            None,
            None,
            StepKind::Start,
            format!(
                "{} batch(es), {} worker(s) at a time",
                the_plan
                    .phases
                    .iter()
                    .map(|p| p.batches.len())
                    .sum::<usize>(),
                the_plan.worker_batch_size
            ),
        );
        for s in &the_plan.skipped {
            self.emit(None, Some(&s.node), StepKind::Skip, s.reason.clone());
        }
    }

    /// The batches of `the_plan`, each after the cancel, lease and CloudStack checks. `Ok(true)`
    /// when nodes were added or removed since `planned` was seen: plan again.
    fn batches(
        &mut self,
        the_plan: &Plan,
        planned: &BTreeSet<String>,
        done: &mut Vec<String>,
        cancelled: &mut bool,
    ) -> Result<bool, EngineError> {
        for phase in &the_plan.phases {
            for batch in &phase.batches {
                if let Some(replan) = self.may_start(batch, planned, cancelled)? {
                    return Ok(replan);
                }
                let end = self.run_batch(phase.node_type, batch);
                if !self.after_batch(batch.number, end, done, cancelled)? {
                    return Ok(false);
                }
            }
        }
        Ok(false)
    }

    /// The checks before batch `batch`: a cancel (`Some(false)`: stop), the lease, CloudStack
    /// running no operation of its own, the same nodes as `planned` (`Some(true)`: plan
    /// again), the window and the gates. `None` to run it.
    fn may_start(
        &mut self,
        batch: &super::plan::Batch,
        planned: &BTreeSet<String>,
        cancelled: &mut bool,
    ) -> Result<Option<bool>, EngineError> {
        let n = batch.number;
        if self.cancel_asked()? {
            *cancelled = true;
            self.emit(Some(n), None, StepKind::Cancelled, "cancel asked");
            return Ok(Some(false));
        }
        self.renew()?;
        let now = match self.guard() {
            Ok(ids) => ids,
            Err(e) => {
                self.emit(Some(n), None, StepKind::Failed, e.to_string());
                return Err(e);
            }
        };
        if &now != planned {
            self.emit(
                Some(n),
                None,
                StepKind::Replan,
                "nodes were added or removed since the plan: planning again",
            );
            return Ok(Some(true));
        }
        let nodes: Vec<String> = batch.nodes.iter().map(|n| n.node.clone()).collect();
        if let Err(e) = self.window_and_gates(n, &nodes) {
            self.emit(Some(n), None, StepKind::Failed, e.to_string());
            return Err(e);
        }
        Ok(None)
    }

    /// What batch `n` ended with: its finished nodes added to `done` (and taken out of the
    /// nodes still to restart); `Ok(true)` to go on with the next batch, `Ok(false)` when a
    /// cancel stopped the run.
    fn after_batch(
        &mut self,
        n: usize,
        end: Result<BatchEnd, EngineError>,
        done: &mut Vec<String>,
        cancelled: &mut bool,
    ) -> Result<bool, EngineError> {
        let failed = |runner: &mut Self, e: EngineError| {
            runner.emit(Some(n), None, StepKind::Failed, e.to_string());
            Err(e)
        };
        match end {
            Ok(BatchEnd::Halted { done_now, why }) => {
                // The window closed (or a cancel came while waiting for one) before a node of
                // the batch was stopped: those that went down were finished.
                self.finished(done_now, done);
                match why {
                    Some(e) => failed(self, e),
                    None => {
                        *cancelled = true;
                        self.emit(
                            Some(n),
                            None,
                            StepKind::Cancelled,
                            "cancel asked while the batch waited for a window",
                        );
                        Ok(false)
                    }
                }
            }
            Ok(BatchEnd::Done(mut names)) => {
                if let Err(e) = self.soak(n, &names) {
                    done.append(&mut names);
                    return failed(self, e);
                }
                self.finished(names, done);
                Ok(true)
            }
            Ok(BatchEnd::Cancelled) => {
                *cancelled = true;
                self.emit(
                    Some(n),
                    None,
                    StepKind::Cancelled,
                    "cancel asked before the batch took a node",
                );
                Ok(false)
            }
            Err(e) => failed(self, e),
        }
    }

    /// `names` finished: no longer to restart, and added to `done`.
    fn finished(&mut self, mut names: Vec<String>, done: &mut Vec<String>) {
        if let Some(set) = self.restart.as_mut() {
            names.iter().for_each(|n| {
                set.remove(n);
            });
        }
        done.append(&mut names);
    }
}
