//! Time: a real clock or the simulator's virtual one.

use std::time::Duration;

/// The engine's only source of time.
pub trait Clock {
    /// Time since the Unix epoch (or the simulator's epoch).
    fn now(&self) -> Duration;

    /// Wall-clock time since the Unix epoch, for maintenance windows (default [`Clock::now`];
    /// the simulator's starts at its description's `clock_start`).
    fn wall(&self) -> Duration {
        self.now()
    }

    /// Wait `d` (the simulator advances its virtual time instead).
    fn sleep(&mut self, d: Duration);
}
