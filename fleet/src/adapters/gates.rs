//! Fleet gates as the rollout runs its own: `sh -c CMD` in a process group of its own, with a
//! cleared environment, the secrets this process knows replaced in what is shown; plus the
//! fleet's context, `CKS_FLEET`, `CKS_STAGE`, `CKS_STAGE_NUMBER` and `CKS_CLUSTERS`.

use std::collections::BTreeMap;

use cks_rollout::adapters::gate_command::CommandHooks;
use cks_rollout::ports::{GateCall, GateRun, GateStatus, Hooks, PortError, PortResult};

use crate::ports::{FleetGateCall, FleetGates};

/// [`FleetGates`] over local processes.
#[derive(Default)]
pub struct CommandGates {
    next: u64,
    running: BTreeMap<u64, (CommandHooks, GateRun)>,
    secrets: Vec<String>,
}

impl CommandGates {
    /// No gate running; `secrets` (besides this environment's) replaced where shown.
    pub fn new(secrets: Vec<String>) -> Self {
        CommandGates {
            secrets,
            ..CommandGates::default()
        }
    }
}

impl FleetGates for CommandGates {
    fn start(&mut self, call: &FleetGateCall<'_>) -> PortResult<GateRun> {
        let env = vec![
            ("CKS_FLEET".to_string(), call.fleet.to_string()),
            ("CKS_STAGE".to_string(), call.stage.to_string()),
            ("CKS_STAGE_NUMBER".to_string(), call.number.to_string()),
            ("CKS_CLUSTERS".to_string(), call.clusters.join(",")),
        ];
        let mut hooks = CommandHooks::new()
            .with_secrets(self.secrets.clone())
            .with_env(env);
        let run = hooks.start_gate(&GateCall {
            command: call.command,
            cluster: call.fleet,
            batch: call.number,
            nodes: &[],
            pass_env: call.pass_env,
        })?;
        self.next += 1;
        let ours = GateRun {
            id: self.next,
            command: run.command.clone(),
        };
        self.running.insert(self.next, (hooks, run));
        Ok(ours)
    }

    fn status(&mut self, run: &GateRun) -> PortResult<GateStatus> {
        let (hooks, inner) = self.running.get_mut(&run.id).ok_or_else(|| {
            PortError::not_found(format!("gate {:?} is not running", run.command))
        })?;
        let status = hooks.gate_status(inner)?;
        if matches!(status, GateStatus::Exited { .. }) {
            self.running.remove(&run.id);
        }
        Ok(status)
    }

    fn stop(&mut self, run: &GateRun) {
        if let Some((mut hooks, inner)) = self.running.remove(&run.id) {
            hooks.stop_gate(&inner);
        }
    }
}
