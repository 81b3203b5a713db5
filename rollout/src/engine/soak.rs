//! The soak after a batch: its nodes must stay Ready for `--soak` before the next batch, the
//! wait driven by the clock and the lease renewed at every poll as while a job runs.

use super::error::EngineError;
use super::progress::StepKind;
use super::run::Runner;
use std::time::Duration;

impl Runner<'_, '_> {
    /// Wait the soak after batch `batch` (its `nodes` verified and uncordoned), looking at each
    /// node every poll interval. A node seen NotReady stops the rollout between batches; a
    /// node the API no longer lists (removed by a scale) is left to the re-plan; a look that
    /// does not get through is tried at the next poll. A cancel asked meanwhile ends the soak
    /// early (the check before the next batch then stops the rollout).
    pub(super) fn soak(&mut self, batch: usize, nodes: &[String]) -> Result<(), EngineError> {
        let soak = self.cfg.soak;
        if soak.is_zero() || nodes.is_empty() {
            return Ok(());
        }
        let start = self.ports.clock.now();
        self.emit(
            Some(batch),
            None,
            StepKind::Soak,
            format!(
                "{} soak: {} must stay Ready",
                super::duration_text(soak),
                nodes.join(",")
            ),
        );
        let ep = self.observe()?.endpoint_avoiding(&[]);
        loop {
            for name in nodes {
                if let Ok(Some(node)) = self.ports.kube.get_node(&ep, name)
                    && !node.is_ready()
                {
                    let seconds = self.ports.clock.now().saturating_sub(start).as_secs();
                    return Err(EngineError::SoakNotReady {
                        batch,
                        node: name.clone(),
                        seconds,
                        soak: soak.as_secs(),
                    });
                }
            }
            let waited = self.ports.clock.now().saturating_sub(start);
            if waited >= soak {
                break;
            }
            if self.cancel_asked()? {
                self.emit(
                    Some(batch),
                    None,
                    StepKind::Soak,
                    "soak ended early: cancel asked",
                );
                return Ok(());
            }
            let step = (soak - waited)
                .min(self.cfg.poll_interval)
                .max(Duration::from_millis(1));
            self.ports.clock.sleep(step);
            self.renew()?;
        }
        self.emit(
            Some(batch),
            None,
            StepKind::Soak,
            format!("soak over: {} stayed Ready", nodes.join(",")),
        );
        Ok(())
    }
}
