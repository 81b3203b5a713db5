//! One fleet worker: a state machine that asks the store what to do ([`crate::rules::next`]),
//! acts on the cluster or the gates it was given through the ports, renews its hold while it
//! waits, and stops acting the moment the store says the hold is no longer its own. Each
//! [`Worker::step`] makes at most one act, so the simulator can interleave several workers.

mod events;
mod gates;
mod summary;

pub use events::{FleetEvent, FleetProgress, FleetStep, KeptEvents, NoEvents, SCHEMA};
pub use summary::{ClusterLine, Ending, Summary};

use std::time::Duration;

use cks_rollout::ports::{Clock, GateRun, PortErrorKind};

use crate::model::{FleetRecord, Lease, Phase, StageStatus};
use crate::ports::{Action, ActionStatus, ClusterOps, FleetGates, FleetStore};
use crate::rules::{self, Held, Next, WaitFor};

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
        outcome: Result<String, String>,
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

impl Worker {
    /// Chooses the cluster's next action from how far it got and what CloudStack says.
    fn decide(
        &mut self,
        p: &mut WorkerPorts<'_>,
        cluster: String,
        lease: Lease,
        phase: Phase,
    ) -> (State, Step) {
        let Some(actions) = self.record.as_ref().map(|r| r.plan.actions.clone()) else {
            return (State::Ask, Step::Again);
        };
        let stage = self.stage_of(&cluster);
        if let Some(target) = actions.upgrade.as_ref().filter(|_| phase < Phase::Upgraded) {
            let facts = match p.ops.observe(&cluster) {
                Ok(facts) => facts,
                Err(e) if e.kind == PortErrorKind::NotFound => {
                    return self.end(
                        p,
                        cluster,
                        lease,
                        Err(format!("CloudStack no longer knows the cluster: {e}")),
                    );
                }
                Err(e) => {
                    self.event(
                        p,
                        FleetStep::Retry,
                        stage,
                        Some(&cluster),
                        format!("CloudStack: {e}"),
                    );
                    return self.renew_then(p, cluster, lease, phase);
                }
            };
            let there = facts.version.as_ref().is_some_and(|v| *v >= target.semver);
            if facts.state == "Upgrading" {
                // An earlier claim's upgrade job still runs in CloudStack: wait for its end.
                return self.renew_then(p, cluster, lease, phase);
            }
            if facts.state != "Running" {
                return self.end(
                    p,
                    cluster,
                    lease,
                    Err(format!(
                        "the cluster is {}; it must be Running",
                        facts.state
                    )),
                );
            }
            let action = if there {
                Action::Refresh
            } else {
                Action::Upgrade(target.clone())
            };
            return self.start(p, cluster, lease, action, Phase::Upgraded);
        }
        if let Some(settings) = actions.settings.clone().filter(|_| phase < Phase::Settled) {
            return self.start(
                p,
                cluster,
                lease,
                Action::Settings(settings),
                Phase::Settled,
            );
        }
        let detail = match (&actions.upgrade, &actions.settings) {
            (Some(t), Some(_)) => {
                format!("upgraded to {} and its node settings rolled out", t.semver)
            }
            (Some(t), None) => format!("upgraded to {}", t.semver),
            (None, _) => "its node settings rolled out".to_string(),
        };
        self.end(p, cluster, lease, Ok(detail))
    }

    /// Renews the hold, then decides again after a poll.
    fn renew_then(
        &mut self,
        p: &mut WorkerPorts<'_>,
        cluster: String,
        mut lease: Lease,
        phase: Phase,
    ) -> (State, Step) {
        match self.change(p, |r, now| {
            let held = rules::renew_cluster(r, &cluster, &mut lease, now);
            (held, held == Held::Yes)
        }) {
            Ok(Held::Yes) => (
                State::Decide {
                    cluster,
                    lease,
                    phase,
                },
                Step::Sleep(self.poll),
            ),
            Ok(Held::Lost) => self.lost(p, &cluster, None),
            Err(step) => (
                State::Decide {
                    cluster,
                    lease,
                    phase,
                },
                step,
            ),
        }
    }

    fn start(
        &mut self,
        p: &mut WorkerPorts<'_>,
        cluster: String,
        lease: Lease,
        action: Action,
        reaches: Phase,
    ) -> (State, Step) {
        let stage = self.stage_of(&cluster);
        match p.ops.start(&cluster, &action) {
            Ok(run) => {
                let what = match &action {
                    Action::Upgrade(t) => format!("upgrade to {} started", t.semver),
                    Action::Refresh => {
                        "already upgraded; refreshing what the new ISO carries".to_string()
                    }
                    Action::Settings(_) => "node settings rollout started".to_string(),
                };
                self.event(p, FleetStep::Start, stage, Some(&cluster), what);
                let renew_at = p.clock.now().as_millis() as u64 + self.renew_every();
                let state = State::Acting {
                    cluster,
                    lease,
                    reaches,
                    action: action.name(),
                    run,
                    renew_at,
                };
                (state, Step::Sleep(self.poll))
            }
            Err(e) => self.end(
                p,
                cluster,
                lease,
                Err(format!("starting the {}: {e}", action.name())),
            ),
        }
    }

    /// How often a hold is renewed: a third of the lease, and at least every poll.
    fn renew_every(&self) -> u64 {
        let lease = self.record.as_ref().map_or(300_000, |r| r.plan.lease_ms);
        (lease / 3).max(1)
    }

    #[allow(clippy::too_many_arguments)]
    fn acting(
        &mut self,
        p: &mut WorkerPorts<'_>,
        cluster: String,
        mut lease: Lease,
        reaches: Phase,
        action: &'static str,
        run: u64,
        renew_at: u64,
    ) -> (State, Step) {
        let stage = self.stage_of(&cluster);
        let status = p
            .ops
            .poll(run)
            .unwrap_or_else(|e| ActionStatus::Failed(format!("the {action}: {e}")));
        match status {
            ActionStatus::Running => {
                let now = p.clock.now().as_millis() as u64;
                let mut renew_at = renew_at;
                if now >= renew_at {
                    match self.change(p, |r, t| {
                        let held = rules::renew_cluster(r, &cluster, &mut lease, t);
                        (held, held == Held::Yes)
                    }) {
                        Ok(Held::Yes) => renew_at = now + self.renew_every(),
                        Ok(Held::Lost) => {
                            p.ops.stop(run);
                            return self.lost(p, &cluster, Some(action));
                        }
                        Err(_) => {}
                    }
                }
                (
                    State::Acting {
                        cluster,
                        lease,
                        reaches,
                        action,
                        run,
                        renew_at,
                    },
                    Step::Sleep(self.poll),
                )
            }
            ActionStatus::Done(detail) => {
                self.event(
                    p,
                    FleetStep::Finish,
                    stage,
                    Some(&cluster),
                    format!("{action}: {detail}"),
                );
                self.reach(p, cluster, lease, reaches)
            }
            ActionStatus::Failed(error) => {
                self.end(p, cluster, lease, Err(format!("{action}: {error}")))
            }
        }
    }

    fn end(
        &mut self,
        p: &mut WorkerPorts<'_>,
        cluster: String,
        lease: Lease,
        outcome: Result<String, String>,
    ) -> (State, Step) {
        let stage = self.stage_of(&cluster);
        let before = self.record.clone();
        let shown = outcome.clone();
        let result = self.change(p, |r, now| {
            let held = rules::end_cluster(r, &cluster, &lease, outcome.clone(), now);
            (held, held == Held::Yes)
        });
        match result {
            Ok(Held::Yes) => {
                match shown {
                    Ok(detail) => self.event(p, FleetStep::Done, stage, Some(&cluster), detail),
                    Err(error) => self.event(p, FleetStep::Failed, stage, Some(&cluster), error),
                }
                self.report_transitions(p, before.as_ref());
                (State::Ask, Step::Again)
            }
            Ok(Held::Lost) => self.lost(p, &cluster, None),
            Err(step) => (
                State::Ending {
                    cluster,
                    lease,
                    outcome: shown,
                },
                step,
            ),
        }
    }

    fn reach(
        &mut self,
        p: &mut WorkerPorts<'_>,
        cluster: String,
        mut lease: Lease,
        reaches: Phase,
    ) -> (State, Step) {
        match self.change(p, |r, now| {
            let held = rules::set_phase(r, &cluster, &mut lease, reaches, now);
            (held, held == Held::Yes)
        }) {
            Ok(Held::Yes) => (
                State::Decide {
                    cluster,
                    lease,
                    phase: reaches,
                },
                Step::Again,
            ),
            Ok(Held::Lost) => self.lost(p, &cluster, None),
            Err(step) => (
                State::Reaching {
                    cluster,
                    lease,
                    reaches,
                },
                step,
            ),
        }
    }

    fn lost(
        &mut self,
        p: &mut WorkerPorts<'_>,
        cluster: &str,
        action: Option<&str>,
    ) -> (State, Step) {
        let detail = match action {
            Some(a) => format!("lost the hold on the cluster; the {a} was stopped"),
            None => "lost the hold on the cluster; acting no more on it".to_string(),
        };
        self.event(
            p,
            FleetStep::LeaseLost,
            self.stage_of(cluster),
            Some(cluster),
            detail,
        );
        (State::Ask, Step::Again)
    }
}
