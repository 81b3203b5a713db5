//! The gates before each batch: each `--gate` command runs with the cluster, batch and nodes
//! in its environment; exit 0 lets the batch go. The wait is polled with the clock and the
//! lease renewed as while a job runs; a gate past `--gate-timeout` is stopped and fails.

use super::error::EngineError;
use super::progress::StepKind;
use super::run::Runner;
use crate::ports::{GateCall, GateStatus, PortErrorKind, is_dns1123_subdomain};
use std::time::Duration;

/// The longest wait between two looks at a running gate.
const GATE_POLL: Duration = Duration::from_secs(1);

impl Runner<'_, '_> {
    /// Run every gate before batch `batch` of `nodes`, in order; the first that does not exit
    /// 0 stops the rollout (nothing of the batch is touched yet).
    pub(super) fn gates(&mut self, batch: usize, nodes: &[String]) -> Result<(), EngineError> {
        if self.cfg.gates.is_empty() {
            return Ok(());
        }
        // Node names come from the Kubernetes API: only DNS-1123 names reach a gate.
        if let Some(bad) = nodes.iter().find(|n| !is_dns1123_subdomain(n)) {
            return Err(EngineError::BadNodeName {
                batch,
                name: format!("{bad:?}"),
            });
        }
        for command in self.cfg.gates.clone() {
            self.gate(batch, nodes, &command)?;
        }
        Ok(())
    }

    fn gate(&mut self, batch: usize, nodes: &[String], command: &str) -> Result<(), EngineError> {
        // The command line as it may be shown: with every secret the port knows replaced.
        let shown = self
            .ports
            .hooks
            .as_ref()
            .map_or(command.to_string(), |h| h.shown(command));
        let failed = |why: String| EngineError::GateFailed {
            batch,
            command: shown.clone(),
            why,
        };
        let cluster = self.cluster.clone();
        let call = GateCall {
            command,
            cluster: &cluster,
            batch,
            nodes,
            pass_env: &self.cfg.gate_env,
        };
        let Some(hooks) = self.ports.hooks.as_mut() else {
            return Err(failed("this engine has no way to run gate commands".into()));
        };
        let run = hooks
            .start_gate(&call)
            .map_err(|e| failed(format!("it did not start: {e}")))?;
        let started = self.ports.clock.now();
        let limit = self.cfg.gate_timeout;
        let poll = gate_poll(self.cfg.poll_interval);
        loop {
            let status = match self.ports.hooks.as_mut() {
                Some(hooks) => hooks.gate_status(&run),
                None => return Err(failed("the gate port went away".into())),
            };
            match status {
                Ok(GateStatus::Running) => {}
                Ok(GateStatus::Exited { code: Some(0), .. }) => {
                    self.emit(
                        Some(batch),
                        None,
                        StepKind::Gate,
                        format!("{shown}: passed"),
                    );
                    return Ok(());
                }
                Ok(GateStatus::Exited { code, last_line }) => {
                    return Err(failed(exited(code, &last_line)));
                }
                Err(e) if e.kind == PortErrorKind::Unavailable => {}
                Err(e) => return Err(failed(e.to_string())),
            }
            let waited = self.ports.clock.now().saturating_sub(started);
            if waited >= limit {
                if let Some(hooks) = self.ports.hooks.as_mut() {
                    hooks.stop_gate(&run);
                }
                return Err(failed(format!(
                    "it did not finish within the gate timeout of {} s and was stopped",
                    limit.as_secs()
                )));
            }
            self.ports.clock.sleep(poll.min(limit - waited));
            if self.ports.clock.now().saturating_sub(self.confirmed) >= self.cfg.poll_interval
                && let Err(e) = self.renew()
            {
                if let Some(hooks) = self.ports.hooks.as_mut() {
                    hooks.stop_gate(&run);
                }
                return Err(e);
            }
        }
    }
}

/// How often a running gate is looked at: the engine's poll interval, at most [`GATE_POLL`],
/// at least a millisecond.
fn gate_poll(poll_interval: Duration) -> Duration {
    poll_interval.min(GATE_POLL).max(Duration::from_millis(1))
}

/// Why a gate that exited other than 0 failed: its exit code (or the signal) and its last line.
fn exited(code: Option<i32>, last_line: &str) -> String {
    let code = code.map_or("was killed by a signal".to_string(), |c| {
        format!("exited {c}")
    });
    let said = if last_line.is_empty() {
        "it printed nothing".to_string()
    } else {
        format!("its last line: {last_line}")
    };
    format!("{code}; {said}")
}
