//! One fleet worker: a state machine that asks the store what to do ([`crate::rules::next`]),
//! acts on the cluster or the gates it was given through the ports, renews its hold while it
//! waits, and stops acting the moment the store says the hold is no longer its own. Each
//! [`Worker::step`] makes at most one act, so the simulator can interleave several workers.

mod act;
mod events;
mod gates;
mod summary;

pub use events::{FleetEvent, FleetProgress, FleetStep, KeptEvents, NoEvents, SCHEMA};
pub use summary::{ClusterLine, Ending, Summary};

use std::time::Duration;

use cks_rollout::ports::{Clock, GateRun, PortErrorKind};

use crate::model::{FleetRecord, Lease, Phase, StageStatus};
use crate::ports::{ClusterOps, FleetGates, FleetStore};
use crate::rules::{self, Next, WaitFor};

/// The ports a worker drives.
pub struct WorkerPorts<'a> {
    /// The fleet store.
    pub store: &'a mut dyn FleetStore,
    /// The acts on clusters.
    pub ops: &'a mut dyn ClusterOps,
    /// The gate commands.
    pub gates: &'a mut dyn FleetGates,
    /// The worker's clock (waits; event times).
    pub clock: &'a mut dyn Clock,
    /// Where events go.
    pub events: &'a mut dyn FleetProgress,
}

/// What the caller does after a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Step again at once.
    Again,
    /// Wait this long, then step again.
    Sleep(Duration),
    /// The fleet ended.
    Finished,
}

/// Where the worker is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// Ask the store what to do.
    Ask,
    /// Run a stage's gates, one after the other.
    Gates {
        /// The stage.
        stage: usize,
        /// The hold on its gates.
        lease: Lease,
        /// The gate running now.
        index: usize,
        /// It, and when it started (worker clock, ms).
        run: Option<(GateRun, u64)>,
    },
    /// Look at the cluster and choose its next action.
    Decide {
        /// The cluster.
        cluster: String,
        /// The hold on it.
        lease: Lease,
        /// How far its actions got.
        phase: Phase,
    },
    /// An action runs.
    Acting {
        /// The cluster.
        cluster: String,
        /// The hold on it.
        lease: Lease,
        /// The phase reached when it ends well.
        reaches: Phase,
        /// What runs.
        action: &'static str,
        /// The port's handle.
        run: u64,
        /// When to renew the hold next (worker clock, ms).
        renew_at: u64,
    },
    /// An action ended well: record the phase it reached (again, when the store was away).
    Reaching {
        /// The cluster.
        cluster: String,
        /// The hold on it.
        lease: Lease,
        /// The phase reached.
        reaches: Phase,
    },
    /// The cluster ended: record it (again, when the store was away).
    Ending {
        /// The cluster.
        cluster: String,
        /// The hold on it.
        lease: Lease,
        /// Done with what, or failed with why.
        outcome: Result<String, crate::rules::ClusterFailure>,
    },
    /// The fleet ended.
    Finished,
}

/// One worker of one fleet.
pub struct Worker {
    /// Its name, unique among the fleet's workers (the lease owner).
    pub name: String,
    /// The fleet.
    pub fleet: String,
    /// Where it is.
    pub state: State,
    /// How often a running action or gate is looked at.
    pub poll: Duration,
    /// The fleet's plan, as last read from the store.
    record: Option<FleetRecord>,
    /// The last wait reported, so a long wait is one event.
    last_wait: Option<WaitFor>,
}

impl Worker {
    /// A worker named `name` of fleet `fleet`, polling actions every `poll`.
    pub fn new(name: &str, fleet: &str, poll: Duration) -> Self {
        Worker {
            name: name.to_string(),
            fleet: fleet.to_string(),
            state: State::Ask,
            poll,
            record: None,
            last_wait: None,
        }
    }

    /// The cluster this worker acts on now, if any.
    pub fn acting_on(&self) -> Option<&str> {
        match &self.state {
            State::Decide { cluster, .. }
            | State::Acting { cluster, .. }
            | State::Reaching { cluster, .. }
            | State::Ending { cluster, .. } => Some(cluster),
            _ => None,
        }
    }

    fn event(
        &self,
        p: &mut WorkerPorts<'_>,
        step: FleetStep,
        stage: Option<String>,
        cluster: Option<&str>,
        detail: String,
    ) {
        p.events.on_event(&FleetEvent {
            at_ms: p.clock.now().as_millis() as u64,
            worker: self.name.clone(),
            step,
            stage,
            cluster: cluster.map(str::to_string),
            detail,
        });
    }

    fn stage_name(&self, stage: usize) -> Option<String> {
        self.record
            .as_ref()
            .and_then(|r| r.plan.stages.get(stage))
            .map(|s| s.name.clone())
    }

    fn stage_of(&self, cluster: &str) -> Option<String> {
        let r = self.record.as_ref()?;
        r.clusters
            .get(cluster)
            .and_then(|c| self.stage_name(c.stage))
    }

    /// One step; a store or CloudStack that cannot be reached is waited for.
    pub fn step(&mut self, p: &mut WorkerPorts<'_>) -> Step {
        let state = std::mem::replace(&mut self.state, State::Ask);
        let (state, step) = match state {
            State::Ask => self.ask(p),
            State::Gates {
                stage,
                lease,
                index,
                run,
            } => self.gates(p, stage, lease, index, run),
            State::Decide {
                cluster,
                lease,
                phase,
            } => self.decide(p, cluster, lease, phase),
            State::Acting {
                cluster,
                lease,
                reaches,
                action,
                run,
                renew_at,
            } => self.acting(p, cluster, lease, reaches, action, run, renew_at),
            State::Reaching {
                cluster,
                lease,
                reaches,
            } => self.reach(p, cluster, lease, reaches),
            State::Ending {
                cluster,
                lease,
                outcome,
            } => self.end(p, cluster, lease, outcome),
            State::Finished => (State::Finished, Step::Finished),
        };
        self.state = state;
        step
    }

    /// Runs `change` on the record in the store; the store's answer, or an error event and a
    /// wait.
    fn change<T>(
        &mut self,
        p: &mut WorkerPorts<'_>,
        mut change: impl FnMut(&mut FleetRecord, u64) -> (T, bool),
    ) -> Result<T, Step> {
        let mut out = None;
        let mut seen = None;
        let result = p.store.change(&self.fleet, &mut |record, now| {
            let (value, write) = change(record, now);
            out = Some(value);
            seen = Some(record.clone());
            write
        });
        match (result, out) {
            (Ok(()), Some(value)) => {
                self.record = seen;
                Ok(value)
            }
            (Ok(()), None) => Err(Step::Sleep(self.poll)),
            (Err(e), _) => {
                self.event(p, FleetStep::Retry, None, None, format!("the store: {e}"));
                if e.kind == PortErrorKind::NotFound {
                    return Err(Step::Finished);
                }
                Err(Step::Sleep(self.poll))
            }
        }
    }

    fn ask(&mut self, p: &mut WorkerPorts<'_>) -> (State, Step) {
        let worker = self.name.clone();
        let before = self.record.clone();
        let next = match self.change(p, |record, now| {
            let before = record.clone();
            let next = rules::next(record, &worker, now);
            let changed = *record != before;
            (next, changed)
        }) {
            Ok(next) => next,
            Err(Step::Finished) => return (State::Finished, Step::Finished),
            Err(step) => return (State::Ask, step),
        };
        self.report_transitions(p, before.as_ref());
        match next {
            Next::Finished => {
                self.event(p, FleetStep::Ended, None, None, "the fleet ended".into());
                (State::Finished, Step::Finished)
            }
            Next::Wait { ms, why } => {
                if self.last_wait.as_ref() != Some(&why) {
                    if let WaitFor::Window { opens_ms } = &why {
                        let when = opens_ms.map_or("no window opens again".to_string(), |at| {
                            format!(
                                "the next opens at {}",
                                cks_rollout::engine::window::shown(Duration::from_millis(at))
                            )
                        });
                        self.event(
                            p,
                            FleetStep::Window,
                            None,
                            None,
                            format!("no window is open; {when}"),
                        );
                    }
                    self.last_wait = Some(why);
                }
                (State::Ask, Step::Sleep(Duration::from_millis(ms.max(1))))
            }
            Next::Gate { stage, lease } => {
                self.last_wait = None;
                (
                    State::Gates {
                        stage,
                        lease,
                        index: 0,
                        run: None,
                    },
                    Step::Again,
                )
            }
            Next::Act {
                cluster,
                lease,
                phase,
                takeover,
            } => {
                self.last_wait = None;
                let (step, detail) = if takeover {
                    (
                        FleetStep::Takeover,
                        format!(
                            "took over claim {} (the last holder's lease lapsed)",
                            lease.claim
                        ),
                    )
                } else {
                    (FleetStep::Claim, "claimed".to_string())
                };
                self.event(p, step, self.stage_of(&cluster), Some(&cluster), detail);
                (
                    State::Decide {
                        cluster,
                        lease,
                        phase,
                    },
                    Step::Again,
                )
            }
        }
    }

    /// Events for what this worker's own change moved: a stage soaking or passed, the fleet
    /// halted or cancelled.
    fn report_transitions(&self, p: &mut WorkerPorts<'_>, before: Option<&FleetRecord>) {
        let (Some(before), Some(after)) = (before, self.record.as_ref()) else {
            return;
        };
        for (i, (old, new)) in before.stages.iter().zip(&after.stages).enumerate() {
            if old.status == new.status {
                continue;
            }
            match &new.status {
                StageStatus::Soaking { until_ms } => self.event(
                    p,
                    FleetStep::Soak,
                    self.stage_name(i),
                    None,
                    format!(
                        "every cluster ended; soaking until {}",
                        cks_rollout::engine::window::shown(Duration::from_millis(*until_ms))
                    ),
                ),
                StageStatus::Passed => self.event(
                    p,
                    FleetStep::Passed,
                    self.stage_name(i),
                    None,
                    "passed".into(),
                ),
                _ => {}
            }
        }
        if before.halted.is_none()
            && let Some(why) = &after.halted
        {
            self.event(p, FleetStep::Halted, None, None, why.clone());
        }
    }
}
