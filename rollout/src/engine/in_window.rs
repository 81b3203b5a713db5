//! The window before every node is taken down: before a batch, again once its gates passed,
//! and before each stop within it. Outside every window the rollout stops with no node taken
//! down outside one (or, with `--wait-for-window`, waits for the next, the lease renewed as
//! while a job runs).

use super::error::EngineError;
use super::progress::StepKind;
use super::run::Runner;
use super::window::{any_open, next_open, shown};
use std::time::Duration;

/// How many windows in a row the gates of one batch may pass after the close of (asked again
/// in the next each time) before the rollout stops: gates longer than a window is open never
/// let a batch go.
const GATE_ASKS: usize = 2;

/// How a look at the windows ended when it did not stop the rollout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Opened {
    /// Open at once (or no window given).
    Now,
    /// Open after waiting this long: what was seen before the wait is seen again.
    AfterWait(Duration),
    /// A cancel was asked while waiting.
    Cancelled,
}

impl Runner<'_, '_> {
    /// True when a window is open now (always with no window).
    pub(super) fn window_open(&self) -> bool {
        any_open(&self.cfg.windows, self.ports.clock.wall())
    }

    /// [`Opened::Now`] when a window is open; otherwise an error naming the windows and when
    /// the next opens, or with `--wait-for-window` the wait for it. `before` names the act the
    /// window is checked for (`None`: the batch).
    pub(super) fn in_window(
        &mut self,
        batch: usize,
        before: Option<&str>,
    ) -> Result<Opened, EngineError> {
        if self.window_open() {
            return Ok(Opened::Now);
        }
        let windows = &self.cfg.windows;
        let specs = windows
            .iter()
            .map(|w| w.spec().to_string())
            .collect::<Vec<_>>()
            .join("; ");
        let next = next_open(windows, self.ports.clock.wall());
        let before = before.map_or("before the batch".to_string(), |node| {
            format!("before {node} was stopped")
        });
        if !self.cfg.wait_for_window {
            return Err(EngineError::WindowClosed {
                batch,
                windows: specs,
                before,
                next: next.map_or("never".to_string(), shown),
            });
        }
        self.emit(
            Some(batch),
            None,
            StepKind::Window,
            format!(
                "outside every window ({specs}) {before}: waiting until {}",
                next.map_or("one opens".to_string(), shown)
            ),
        );
        let began = self.ports.clock.now();
        loop {
            let wall = self.ports.clock.wall();
            if any_open(&self.cfg.windows, wall) {
                self.emit(Some(batch), None, StepKind::Window, "window open");
                return Ok(Opened::AfterWait(
                    self.ports.clock.now().saturating_sub(began),
                ));
            }
            if self.cancel_asked()? {
                return Ok(Opened::Cancelled);
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

    /// Before batch `batch` of `nodes` takes anything: inside a window, then every gate, then
    /// inside a window still. Gates that passed after the window closed are asked again in the
    /// next one (or the rollout stops, as outside any window); passed after the close
    /// [`GATE_ASKS`] times, they stop the rollout. `Ok(())` with a cancel asked
    /// during a wait too: the batch's own last look stops it with nothing touched.
    pub(super) fn window_and_gates(
        &mut self,
        batch: usize,
        nodes: &[String],
    ) -> Result<(), EngineError> {
        for asked in 1.. {
            if self.in_window(batch, None)? == Opened::Cancelled {
                return Ok(());
            }
            self.gates(batch, nodes)?;
            if self.window_open() {
                return Ok(());
            }
            if asked == GATE_ASKS {
                break;
            }
            self.emit(
                Some(batch),
                None,
                StepKind::Window,
                "the window closed while the gates ran: no node is taken down before one is open again",
            );
        }
        Err(EngineError::GatesOutlastWindow {
            batch,
            times: GATE_ASKS,
            windows: self
                .cfg
                .windows
                .iter()
                .map(|w| w.spec().to_string())
                .collect::<Vec<_>>()
                .join("; "),
        })
    }
}
