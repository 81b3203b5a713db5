//! The hooks port over the simulated world: the described gates run in virtual time, and the
//! nodes waiting for a reboot.

use super::SimHandle;
use crate::ports::{GateCall, GateRun, GateStatus, Hooks, PortResult};
use crate::sim::gates::SimGate;
use std::time::Duration;

impl Hooks for SimHandle {
    fn start_gate(&mut self, call: &GateCall<'_>) -> PortResult<GateRun> {
        let what = format!("hooks.start_gate({}, batch {})", call.command, call.batch);
        self.call(what, |w| {
            let now = w.now;
            let g = &mut w.gates;
            let answer = g.spec.iter().find(|s| {
                s.batch == call.batch
                    && s.command
                        .as_ref()
                        .is_none_or(|c| call.command.contains(c.as_str()))
            });
            let gate = match answer {
                Some(s) => SimGate {
                    ends_at: now + Duration::from_secs(s.seconds),
                    exit: s.exit,
                    output: s.output.clone(),
                },
                None => SimGate {
                    ends_at: now,
                    exit: 0,
                    output: "ok".into(),
                },
            };
            g.next += 1;
            g.running.insert(g.next, gate);
            g.started
                .push((call.batch, call.command.to_string(), call.nodes.to_vec()));
            Ok(g.next)
        })
        .map(|id| GateRun {
            id,
            command: call.command.to_string(),
        })
    }

    fn gate_status(&mut self, run: &GateRun) -> PortResult<GateStatus> {
        self.call(format!("hooks.gate_status({})", run.command), |w| {
            let now = w.now;
            let Some(g) = w.gates.running.get(&run.id).cloned() else {
                return Err(crate::ports::PortError::not_found("no such gate"));
            };
            if now < g.ends_at {
                return Ok(GateStatus::Running);
            }
            w.gates.running.remove(&run.id);
            Ok(GateStatus::Exited {
                code: Some(g.exit),
                last_line: g.output,
            })
        })
    }

    fn reboot_required(&mut self, node: &str) -> PortResult<bool> {
        self.call(format!("hooks.reboot_required({node})"), |w| {
            Ok(w.reboot_required.contains(node))
        })
    }

    fn stop_gate(&mut self, run: &GateRun) {
        let _ = self.call(format!("hooks.stop_gate({})", run.command), |w| {
            w.gates.running.remove(&run.id);
            Ok(())
        });
    }
}
