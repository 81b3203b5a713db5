//! Carrying out a plan batch by batch: cancel and lease checks between batches.

use super::observe::{Snapshot, observe};
use super::plan::{Plan, is_finished, plan};
use super::progress::{Event, Progress, StepKind};
use super::{EngineConfig, EngineError};
use crate::model::{Endpoint, Lease, ROLLOUT_ANNOTATION};
use crate::ports::Ports;
use serde::{Deserialize, Serialize};

/// How a rollout run ended (before `release()`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunOutcome {
    /// The plan that was carried out.
    pub plan: Plan,
    /// Nodes restarted and verified, in order.
    pub done: Vec<String>,
    /// True when a cancel stopped it.
    pub cancelled: bool,
    /// The error that stopped it (the cluster then ends in Alert).
    pub error: Option<String>,
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
        Runner {
            ports,
            cfg,
            cluster: cluster.to_string(),
            lease,
            progress,
            events: Vec::new(),
            lost_lease: false,
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
            batch,
            node: node.map(str::to_string),
            step,
            detail: detail.into(),
        };
        self.progress.on_event(&event);
        self.events.push(event);
    }

    pub(super) fn observe(&mut self) -> Result<Snapshot, EngineError> {
        observe(self.ports, &self.cluster)
    }

    /// Sleep one poll interval and renew the lease; an error if the lease was lost.
    pub(super) fn pause(&mut self) -> Result<(), String> {
        self.ports.clock.sleep(self.cfg.poll_interval);
        self.renew()
    }

    pub(super) fn renew(&mut self) -> Result<(), String> {
        self.lease.heartbeat_ms = self.ports.clock.now().as_millis() as u64;
        match self.ports.store.renew_lease(&self.cluster, &self.lease) {
            Ok(false) => {
                self.lost_lease = true;
                Err(format!(
                    "lost the rollout lease of cluster {} (owner {}); another process owns it now",
                    self.cluster, self.lease.owner
                ))
            }
            // A store that does not answer is retried at the next renewal.
            Ok(true) | Err(_) => Ok(()),
        }
    }

    /// Uncordon annotated nodes that came back (or never went down and need nothing).
    pub(super) fn settle(&mut self, snap: &Snapshot) {
        let ep = snap.endpoint_avoiding(&[]);
        let names: Vec<String> = snap
            .nodes
            .iter()
            .filter(|n| n.annotations.contains_key(ROLLOUT_ANNOTATION))
            .map(|n| n.name.clone())
            .filter(|n| is_finished(snap, n))
            .collect();
        for name in names {
            if self.uncordon_ours(&ep, &name).is_ok() {
                self.emit(
                    None,
                    Some(&name),
                    StepKind::Settle,
                    "came back after an earlier run",
                );
            }
        }
    }

    /// Uncordon, then remove the annotation (in this order, so a crash in between leaves the
    /// annotation that marks the node as ours).
    pub(super) fn uncordon_ours(&mut self, ep: &Endpoint, node: &str) -> Result<(), String> {
        self.ports
            .kube
            .set_unschedulable(ep, node, false)
            .map_err(|e| format!("uncordon {node}: {e}"))?;
        self.ports
            .kube
            .set_annotation(ep, node, ROLLOUT_ANNOTATION, None)
            .map_err(|e| format!("remove annotation of {node}: {e}"))
    }

    /// Carry out the rollout of the settings already stored, `max_unavailable` workers at a time.
    pub fn execute(&mut self, max_unavailable: u32) -> RunOutcome {
        let snap = match self.observe() {
            Ok(s) => s,
            Err(e) => {
                return RunOutcome {
                    plan: Plan {
                        cluster_id: self.cluster.clone(),
                        worker_batch_size: 1,
                        finish: Vec::new(),
                        phases: Vec::new(),
                        skipped: Vec::new(),
                    },
                    done: Vec::new(),
                    cancelled: false,
                    error: Some(e.to_string()),
                    notes: None,
                    lost_lease: false,
                };
            }
        };
        let the_plan = plan(&snap, max_unavailable);
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
        self.settle(&snap);
        let mut done = Vec::new();
        let mut cancelled = false;
        let mut error = None;
        'phases: for phase in &the_plan.phases {
            for batch in &phase.batches {
                match self.ports.store.load(&self.cluster) {
                    Ok(r) if r.cancel => {
                        cancelled = true;
                        self.emit(
                            Some(batch.number),
                            None,
                            StepKind::Cancelled,
                            "cancel asked",
                        );
                        break 'phases;
                    }
                    Ok(_) => {}
                    Err(e) => {
                        error = Some(format!("reading cluster {}: {e}", self.cluster));
                        break 'phases;
                    }
                }
                if let Err(e) = self.renew() {
                    error = Some(e);
                    break 'phases;
                }
                match self.run_batch(phase.node_type, batch) {
                    Ok(mut names) => done.append(&mut names),
                    Err(e) => {
                        self.emit(Some(batch.number), None, StepKind::Failed, e.clone());
                        error = Some(e);
                        break 'phases;
                    }
                }
            }
        }
        let notes = the_plan.skip_message();
        RunOutcome {
            notes,
            lost_lease: self.lost_lease,
            plan: the_plan,
            done,
            cancelled,
            error,
        }
    }
}
