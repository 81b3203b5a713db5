//! A stage's gates, run one after the other by the worker holding them, its hold renewed while
//! each runs: all exit 0, the stage starts; one fails or runs past the gate timeout, the fleet
//! halts with the gate's last line.

use cks_rollout::ports::{GateRun, GateStatus};

use super::{FleetStep, State, Step, Worker, WorkerPorts};
use crate::model::Lease;
use crate::ports::FleetGateCall;
use crate::rules::{self, GateFailure, Held};

impl Worker {
    /// One step of the gates of `stage`.
    pub(super) fn gates(
        &mut self,
        p: &mut WorkerPorts<'_>,
        stage: usize,
        mut lease: Lease,
        index: usize,
        run: Option<(GateRun, u64)>,
    ) -> (State, Step) {
        let Some(record) = self.record.clone() else {
            return (State::Ask, Step::Again);
        };
        let Some(planned) = record.plan.stages.get(stage) else {
            return (State::Ask, Step::Again);
        };
        let name = planned.name.clone();
        let now = p.clock.now().as_millis() as u64;
        let verdict: Option<Result<(), GateFailure>> = match run {
            None => match planned.gates.get(index) {
                None => Some(Ok(())),
                Some(command) => {
                    let call = FleetGateCall {
                        command,
                        fleet: &self.fleet,
                        stage: &name,
                        number: stage + 1,
                        clusters: &planned.clusters,
                        pass_env: &record.plan.gate_env,
                    };
                    match p.gates.start(&call) {
                        Ok(gate) => {
                            self.event(
                                p,
                                FleetStep::Gate,
                                Some(name.clone()),
                                None,
                                format!("gate {:?} started", gate.command),
                            );
                            let state = State::Gates {
                                stage,
                                lease,
                                index,
                                run: Some((gate, now)),
                            };
                            return (state, Step::Sleep(self.poll));
                        }
                        Err(e) => Some(Err(GateFailure::NotStarted {
                            command: command.clone(),
                            detail: e.to_string(),
                        })),
                    }
                }
            },
            Some((gate, started)) => match p.gates.status(&gate) {
                Ok(GateStatus::Running)
                    if now.saturating_sub(started) < record.plan.gate_timeout_ms =>
                {
                    // Renew the hold on the gates while the gate runs.
                    match self.change(p, |r, t| {
                        let held = rules::end_gates(r, stage, &mut lease, None, t);
                        (held, held == Held::Yes)
                    }) {
                        Ok(Held::Lost) => {
                            p.gates.stop(&gate);
                            self.event(
                                p,
                                FleetStep::LeaseLost,
                                Some(name),
                                None,
                                "lost the hold on the gates; the gate was stopped".into(),
                            );
                            return (State::Ask, Step::Again);
                        }
                        Ok(Held::Yes) | Err(_) => {
                            return (
                                State::Gates {
                                    stage,
                                    lease,
                                    index,
                                    run: Some((gate, started)),
                                },
                                Step::Sleep(self.poll),
                            );
                        }
                    }
                }
                Ok(GateStatus::Running) => {
                    p.gates.stop(&gate);
                    Some(Err(GateFailure::TimedOut {
                        command: gate.command.clone(),
                        seconds: record.plan.gate_timeout_ms / 1000,
                    }))
                }
                Ok(GateStatus::Exited { code: Some(0), .. }) => {
                    self.event(
                        p,
                        FleetStep::Gate,
                        Some(name.clone()),
                        None,
                        format!("gate {:?} passed", gate.command),
                    );
                    return (
                        State::Gates {
                            stage,
                            lease,
                            index: index + 1,
                            run: None,
                        },
                        Step::Again,
                    );
                }
                Ok(GateStatus::Exited { code, last_line }) => Some(Err(GateFailure::Exited {
                    command: gate.command.clone(),
                    code,
                    last_line,
                })),
                Err(e) => Some(Err(GateFailure::Status {
                    command: gate.command.clone(),
                    detail: e.to_string(),
                })),
            },
        };
        let Some(verdict) = verdict else {
            return (State::Ask, Step::Again);
        };
        let before = self.record.clone();
        let shown = verdict.clone();
        match self.change(p, |r, t| {
            let held = rules::end_gates(r, stage, &mut lease, Some(verdict.clone()), t);
            (held, held == Held::Yes)
        }) {
            Ok(Held::Yes) => {
                if shown.is_ok() {
                    self.event(
                        p,
                        FleetStep::Gate,
                        Some(name),
                        None,
                        "every gate passed; the stage starts".into(),
                    );
                }
                self.report_transitions(p, before.as_ref());
                (State::Ask, Step::Again)
            }
            Ok(Held::Lost) => (State::Ask, Step::Again),
            // The store is away: the hold lapses and the gates run again.
            Err(step) => (State::Ask, step),
        }
    }
}
