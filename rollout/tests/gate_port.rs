//! Gates as the engine sees them through its port: a status that does not answer is read
//! again, one that cannot be read fails the gate with the port's error, and a gate that never
//! exits is stopped at its timeout, not at the next look after it.

use crate::common::{cluster, offerings};
use crate::gate::{SEED, gated, update_with_hooks};
use cks_rollout::engine::{EngineConfig, UpdateOutcome};
use cks_rollout::ports::{GateCall, GateRun, GateStatus, Hooks, PortError};
use cks_rollout::sim::Simulation;
use std::time::Duration;

/// Gates whose status is read through a port that fails: `unavailable` reads fail as
/// unavailable (the gate then exits 0), or every read fails for good with `broken`.
struct StatusPort {
    unavailable: u32,
    broken: Option<&'static str>,
}

impl Hooks for StatusPort {
    fn start_gate(&mut self, call: &GateCall<'_>) -> cks_rollout::ports::PortResult<GateRun> {
        Ok(GateRun {
            id: call.batch as u64,
            command: call.command.to_string(),
        })
    }

    fn gate_status(&mut self, _run: &GateRun) -> cks_rollout::ports::PortResult<GateStatus> {
        if let Some(why) = self.broken {
            return Err(PortError::other(why));
        }
        if self.unavailable > 0 {
            self.unavailable -= 1;
            return Err(PortError::unavailable("the gate's status did not answer"));
        }
        Ok(GateStatus::Exited {
            code: Some(0),
            last_line: String::new(),
        })
    }

    fn stop_gate(&mut self, _run: &GateRun) {}

    fn reboot_required(&mut self, _node: &str) -> cks_rollout::ports::PortResult<bool> {
        Ok(false)
    }
}

/// The rollout of the workers of a 3+2 cluster gated by `hooks`: its error, and how many nodes
/// were restarted.
fn gated_through(hooks: &mut StatusPort) -> (Option<String>, u32) {
    let cfg = gated(&["slo-check"]);
    let req = offerings(&[("worker", "medium")]);
    let sim = Simulation::new(&cluster(3, 0, 2), SEED).expect("simulable");
    let outcome = update_with_hooks(&sim, hooks, &req, &cfg);
    assert!(
        sim.world().violation.is_none(),
        "{:?}",
        sim.world().violation
    );
    let error = match outcome.expect("the update ran") {
        UpdateOutcome::RolledOut(r) => r.run.error.map(|e| e.to_string()),
        other => panic!("expected a rollout: {other:?}"),
    };
    (error, sim.restarts())
}

#[test]
fn a_gate_status_that_does_not_answer_for_a_while_is_read_again() {
    let (error, restarts) = gated_through(&mut StatusPort {
        unavailable: 3,
        broken: None,
    });
    assert_eq!(error, None, "the gate passed once its status was read");
    assert_eq!(restarts, 2);
}

#[test]
fn a_gate_status_that_cannot_be_read_fails_the_gate_with_the_ports_error() {
    let (error, restarts) = gated_through(&mut StatusPort {
        unavailable: 0,
        broken: Some("the gate's status is not readable"),
    });
    let error = error.expect("the gate failed");
    assert!(
        error.contains("slo-check") && error.contains("the gate's status is not readable"),
        "{error}"
    );
    assert_eq!(restarts, 0, "no node is touched after a failed gate");
}

/// A gate that never exits, on the simulation's clock: when it was started and stopped.
struct Stuck {
    clock: cks_rollout::sim::SimHandle,
    started: Option<Duration>,
    stopped: Option<Duration>,
}

impl Hooks for Stuck {
    fn start_gate(&mut self, call: &GateCall<'_>) -> cks_rollout::ports::PortResult<GateRun> {
        use cks_rollout::ports::Clock;
        self.started = Some(self.clock.now());
        Ok(GateRun {
            id: 1,
            command: call.command.to_string(),
        })
    }

    fn gate_status(&mut self, _run: &GateRun) -> cks_rollout::ports::PortResult<GateStatus> {
        Ok(GateStatus::Running)
    }

    fn stop_gate(&mut self, _run: &GateRun) {
        use cks_rollout::ports::Clock;
        self.stopped = Some(self.clock.now());
    }

    fn reboot_required(&mut self, _node: &str) -> cks_rollout::ports::PortResult<bool> {
        Ok(false)
    }
}

#[test]
fn a_gate_is_stopped_at_its_timeout_not_at_the_next_look_after_it() {
    // Looked at every second; the timeout falls between two looks.
    let cfg = EngineConfig {
        gate_timeout: Duration::from_millis(2500),
        ..gated(&["./slo"])
    };
    let req = offerings(&[("worker", "medium")]);
    let sim = Simulation::new(&cluster(3, 0, 2), SEED).expect("simulable");
    let mut hooks = Stuck {
        clock: sim.ports().clock(),
        started: None,
        stopped: None,
    };
    let _ = update_with_hooks(&sim, &mut hooks, &req, &cfg);
    let (Some(started), Some(stopped)) = (hooks.started, hooks.stopped) else {
        panic!("the gate was started and stopped")
    };
    assert_eq!(stopped - started, Duration::from_millis(2500));
    assert_eq!(sim.restarts(), 0);
}
