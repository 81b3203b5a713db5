//! Draining a node through the Eviction API, within a timeout.

use super::error::EngineError;
use super::run::Runner;
use crate::model::{Endpoint, EvictionOutcome};
use std::time::Duration;

/// Wait between eviction rounds.
pub const DRAIN_ROUND: Duration = Duration::from_secs(5);

impl Runner<'_, '_> {
    /// Evict every pod but DaemonSet and mirror pods, until none is left or `deadline` passes.
    /// The error names the pod and budget that blocked the drain.
    pub(super) fn drain(
        &mut self,
        batch: usize,
        ep: &Endpoint,
        node: &str,
        deadline: Duration,
    ) -> Result<(), EngineError> {
        let mut last_block: Option<String> = None;
        let mut last_error: Option<String> = None;
        loop {
            // Each round of evictions only under a lease the store confirms (and renews).
            self.hold()?;
            // Someone may have uncordoned the node meanwhile: cordon it again, or pods come back.
            match self.ports.kube.get_node(ep, node) {
                Ok(Some(n)) if !n.unschedulable => {
                    let _ = self.ports.kube.set_unschedulable(ep, node, true);
                }
                _ => {}
            }
            match self.ports.kube.list_pods(ep, node) {
                Err(e) => last_error = Some(format!("listing pods on {node}: {e}")),
                Ok(pods) => {
                    let evictable: Vec<_> = pods
                        .into_iter()
                        .filter(|p| !p.daemonset && !p.mirror)
                        .collect();
                    if evictable.is_empty() {
                        return Ok(());
                    }
                    for pod in &evictable {
                        match self.ports.kube.evict(ep, pod) {
                            Ok(EvictionOutcome::Evicted | EvictionOutcome::Gone) => {}
                            Ok(EvictionOutcome::Blocked { budget, message }) => {
                                last_block = Some(format!(
                                    "pod {}/{} blocked by PodDisruptionBudget {}: {message}",
                                    pod.namespace,
                                    pod.name,
                                    budget.as_deref().unwrap_or("(unnamed)")
                                ));
                            }
                            Err(e) => {
                                last_error =
                                    Some(format!("evicting {}/{}: {e}", pod.namespace, pod.name))
                            }
                        }
                    }
                }
            }
            if self.ports.clock.now() >= deadline {
                let cause = last_block
                    .or(last_error)
                    .unwrap_or_else(|| "pods still terminating".to_string());
                return Err(EngineError::DrainBlocked {
                    batch,
                    node: node.to_string(),
                    cause,
                });
            }
            // A shorter poll interval (tests, small clusters) also shortens the wait between rounds.
            self.ports
                .clock
                .sleep(DRAIN_ROUND.min(self.cfg.poll_interval));
        }
    }
}
