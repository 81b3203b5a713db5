//! A worker's acts on the cluster it holds: the next action chosen from how far the cluster got
//! and what CloudStack says, the action followed with its hold renewed, the phase it reached
//! and the cluster's end recorded, and a lost hold given up at once.

use cks_rollout::ports::PortErrorKind;

use super::{FleetStep, State, Step, Worker, WorkerPorts};
use crate::model::{Lease, Phase};
use crate::ports::{Action, ActionStatus};
use crate::rules::{self, ClusterFailure, Held};

impl Worker {
    /// Chooses the cluster's next action from how far it got and what CloudStack says.
    pub(super) fn decide(
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
                        Err(ClusterFailure::Gone {
                            detail: e.to_string(),
                        }),
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
                    Err(ClusterFailure::NotRunning {
                        state: facts.state.clone(),
                    }),
                );
            }
            let action = if there {
                Action::Refresh
            } else {
                Action::Upgrade(target.clone())
            };
            return self.start(p, cluster, lease, action, (phase, Phase::Upgraded));
        }
        if let Some(settings) = actions.settings.clone().filter(|_| phase < Phase::Settled) {
            return self.start(
                p,
                cluster,
                lease,
                Action::Settings(settings),
                (phase, Phase::Settled),
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

    /// Starts `action` on the cluster, which is at the first phase of `phases` and reaches the
    /// second when the action is done. The hold is renewed first: its last renewal may be a
    /// poll old, and an action started on a hold that lapses before the first poll would run
    /// beside the one a takeover starts.
    fn start(
        &mut self,
        p: &mut WorkerPorts<'_>,
        cluster: String,
        mut lease: Lease,
        action: Action,
        (phase, reaches): (Phase, Phase),
    ) -> (State, Step) {
        match self.change(p, |r, now| {
            let held = rules::renew_cluster(r, &cluster, &mut lease, now);
            (held, held == Held::Yes)
        }) {
            Ok(Held::Yes) => {}
            Ok(Held::Lost) => return self.lost(p, &cluster, None),
            Err(step) => {
                let state = State::Decide {
                    cluster,
                    lease,
                    phase,
                };
                return (state, step);
            }
        }
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
                Err(ClusterFailure::NotStarted {
                    action: action.name(),
                    detail: e.to_string(),
                }),
            ),
        }
    }

    /// How often a hold is renewed: a third of the lease, and at least every poll.
    fn renew_every(&self) -> u64 {
        let lease = self.record.as_ref().map_or(300_000, |r| r.plan.lease_ms);
        (lease / 3).max(1)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn acting(
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
            ActionStatus::Failed(error) => self.end(
                p,
                cluster,
                lease,
                Err(ClusterFailure::ActionFailed { action, error }),
            ),
        }
    }

    pub(super) fn end(
        &mut self,
        p: &mut WorkerPorts<'_>,
        cluster: String,
        lease: Lease,
        outcome: Result<String, ClusterFailure>,
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
                    Err(error) => self.event(
                        p,
                        FleetStep::Failed,
                        stage,
                        Some(&cluster),
                        error.to_string(),
                    ),
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

    pub(super) fn reach(
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

    pub(super) fn lost(
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
