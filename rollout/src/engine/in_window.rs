//! Before each batch: inside a maintenance window, or stop cleanly between batches (or, with
//! `--wait-for-window`, wait for the next one, the lease renewed as while a job runs).

use super::error::EngineError;
use super::progress::StepKind;
use super::run::Runner;
use super::window::{any_open, next_open, shown};
use std::time::Duration;

impl Runner<'_, '_> {
    /// Ok once a window is open (at once with no window); an error naming the windows and when
    /// the next opens when none is and the rollout does not wait.
    pub(super) fn in_window(&mut self, batch: usize) -> Result<(), EngineError> {
        let windows = &self.cfg.windows;
        if any_open(windows, self.ports.clock.wall()) {
            return Ok(());
        }
        let specs = windows
            .iter()
            .map(|w| w.spec().to_string())
            .collect::<Vec<_>>()
            .join("; ");
        let next = next_open(windows, self.ports.clock.wall());
        if !self.cfg.wait_for_window {
            return Err(EngineError::WindowClosed {
                batch,
                windows: specs,
                next: next.map_or("never".to_string(), shown),
            });
        }
        self.emit(
            Some(batch),
            None,
            StepKind::Window,
            format!(
                "outside every window ({specs}): waiting until {}",
                next.map_or("one opens".to_string(), shown)
            ),
        );
        loop {
            let wall = self.ports.clock.wall();
            if any_open(&self.cfg.windows, wall) {
                self.emit(Some(batch), None, StepKind::Window, "window open");
                return Ok(());
            }
            if self.cancel_asked()? {
                return Ok(());
            }
            let left = next_open(&self.cfg.windows, wall)
                .map_or(self.cfg.poll_interval, |n| n.saturating_sub(wall));
            self.ports.clock.sleep(
                left.min(self.cfg.poll_interval)
                    .max(Duration::from_millis(1)),
            );
            self.renew()?;
        }
    }
}
