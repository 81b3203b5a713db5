//! The real clock: system time and thread sleeps.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::ports::Clock;

/// Wall-clock time.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
    }

    fn sleep(&mut self, d: Duration) {
        std::thread::sleep(d);
    }
}
