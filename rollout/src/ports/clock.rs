//! Time: a real clock or the simulator's virtual one.

use std::time::Duration;

/// The engine's only source of time.
pub trait Clock {
    /// Time since the Unix epoch (or the simulator's epoch).
    fn now(&self) -> Duration;

    /// Wait `d` (the simulator advances its virtual time instead).
    fn sleep(&mut self, d: Duration);
}
