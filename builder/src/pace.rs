//! The rule every transfer of the build keeps to, beside the read-stall timeout: at least
//! `BYTES` in every `WINDOW` of a body (`--min-rate BYTES/WINDOW`, default `60KiB/60s`, about
//! 1 KiB/s). A stall timeout alone lets a server that sends one byte every 29 s hold a transfer
//! forever; this rule ends it within one window, while a slow link that keeps moving (a few
//! KiB/s) goes on for as long as the body takes. The windows follow each other from the first
//! byte asked for: each one that ends short of `BYTES` ends the transfer, each one that reaches
//! it starts the next.
//!
//! ```
//! use cks_builder::pace::MinRate;
//! let rule: MinRate = "60KiB/60s".parse().expect("a rule");
//! assert_eq!(rule, MinRate::default());
//! assert_eq!(rule.to_string(), "60KiB/60s");
//! assert!("0".parse::<MinRate>().expect("off").is_off());
//! ```

use std::fmt;
use std::future::Future;
use std::str::FromStr;
use std::time::Duration;

use cks_pinning::limits::parse_size;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

/// At least `bytes` in every `window` of a transfer; `bytes == 0` turns the rule off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct MinRate {
    /// The fewest bytes a window must bring.
    pub bytes: u64,
    /// The length of a window.
    pub window: Duration,
}

impl Default for MinRate {
    fn default() -> Self {
        MinRate {
            bytes: 60 << 10,
            window: Duration::from_secs(60),
        }
    }
}

impl MinRate {
    /// The rule that never ends a transfer (`--min-rate 0`).
    pub const OFF: MinRate = MinRate {
        bytes: 0,
        window: Duration::from_secs(60),
    };

    /// Whether the rule is off.
    pub fn is_off(&self) -> bool {
        self.bytes == 0
    }
}

/// A `--min-rate` value that is not `BYTES/WINDOW`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "--min-rate `{0}` is not BYTES/WINDOW: give a size and a duration in seconds, e.g. `60KiB/60s` (the default), or `0` to turn the rule off"
)]
pub struct MinRateError(pub String);

impl FromStr for MinRate {
    type Err = MinRateError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || MinRateError(text.to_string());
        let trimmed = text.trim();
        if trimmed == "0" || trimmed.eq_ignore_ascii_case("off") {
            return Ok(MinRate::OFF);
        }
        let (bytes, window) = trimmed.split_once('/').ok_or_else(bad)?;
        let bytes = parse_size(bytes).map_err(|_| bad())?;
        let window = window.trim();
        let seconds: u64 = window
            .strip_suffix('s')
            .unwrap_or(window)
            .trim()
            .parse()
            .map_err(|_| bad())?;
        if seconds == 0 && bytes > 0 {
            return Err(bad());
        }
        Ok(MinRate {
            bytes,
            window: Duration::from_secs(seconds.max(1)),
        })
    }
}

impl fmt::Display for MinRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_off() {
            return f.write_str("0");
        }
        let size = cks_pinning::limits::show_size(self.bytes).replace(' ', "");
        write!(f, "{size}/{}s", self.window.as_secs())
    }
}

impl TryFrom<String> for MinRate {
    type Error = MinRateError;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl From<MinRate> for String {
    fn from(rule: MinRate) -> String {
        rule.to_string()
    }
}

/// How long a transfer may wait: for the next byte (`stall`), and for each window's bytes
/// (`min_rate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pace {
    /// The longest wait for the next byte.
    pub stall: Duration,
    /// The fewest bytes per window.
    pub min_rate: MinRate,
}

impl From<Duration> for Pace {
    /// A stall timeout with the default [`MinRate`].
    fn from(stall: Duration) -> Self {
        Pace {
            stall,
            min_rate: MinRate::default(),
        }
    }
}

/// Why a transfer was ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Slow {
    /// Nothing arrived for the stall timeout.
    Stalled(Duration),
    /// A window ended with fewer bytes than the rule asks: the bytes it brought.
    BelowRate {
        /// Bytes received in the window.
        got: u64,
        /// The rule.
        rule: MinRate,
    },
}

/// The state of one transfer under a [`Pace`]: the current window's start and bytes.
#[derive(Debug)]
pub struct Guard {
    pace: Pace,
    start: Instant,
    got: u64,
}

impl Guard {
    /// A transfer starting now.
    pub fn new(pace: impl Into<Pace>) -> Self {
        Guard {
            pace: pace.into(),
            start: Instant::now(),
            got: 0,
        }
    }

    /// The end of the current window.
    fn window_end(&self) -> Instant {
        self.start + self.pace.min_rate.window
    }

    /// Closes the window when it has ended at `now`: the next one starts when it brought
    /// enough, else the transfer ends.
    fn check(&mut self, now: Instant) -> Result<(), Slow> {
        let rule = self.pace.min_rate;
        if rule.is_off() || now < self.window_end() {
            return Ok(());
        }
        if self.got < rule.bytes {
            return Err(Slow::BelowRate {
                got: self.got,
                rule,
            });
        }
        self.start = now;
        self.got = 0;
        Ok(())
    }

    /// Counts `n` bytes received, ending the transfer when the window they close fell short.
    pub fn count(&mut self, n: usize) -> Result<(), Slow> {
        self.got += n as u64;
        self.check(Instant::now())
    }

    /// Awaits `read` (the next piece of the body) no longer than the stall timeout, nor past
    /// the end of a window that fell short of the rule.
    pub async fn read<F: Future>(&mut self, read: F) -> Result<F::Output, Slow> {
        let stall_end = Instant::now() + self.pace.stall;
        tokio::pin!(read);
        loop {
            let wake = if self.pace.min_rate.is_off() {
                stall_end
            } else {
                stall_end.min(self.window_end())
            };
            match tokio::time::timeout_at(wake, &mut read).await {
                Ok(output) => return Ok(output),
                Err(_) if Instant::now() >= stall_end => {
                    return Err(Slow::Stalled(self.pace.stall));
                }
                Err(_) => self.check(Instant::now())?,
            }
        }
    }
}

/// The figures of a [`Slow::BelowRate`] for a message: what came, what the rule asks, and the
/// flag that changes it.
pub fn below_rate_text(url: &str, got: u64, rule: MinRate) -> String {
    format!(
        "{url} sent {got} bytes in {window} s, fewer than the {rule} (at least {bytes} every {window} s) the transfer must keep to; on a slower link lower it with --min-rate BYTES/WINDOW, or turn it off with --min-rate 0",
        window = rule.window.as_secs(),
        bytes = cks_pinning::limits::show_size(rule.bytes),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_shows_rules() {
        let rule: MinRate = "100B/2s".parse().expect("a rule");
        assert_eq!(rule.bytes, 100);
        assert_eq!(rule.window, Duration::from_secs(2));
        assert_eq!(rule.to_string(), "100B/2s");
        assert_eq!(
            "1MiB/30".parse::<MinRate>().map(|r| r.to_string()),
            Ok("1MiB/30s".into())
        );
        assert_eq!("off".parse::<MinRate>(), Ok(MinRate::OFF));
        for bad in ["", "fast", "10KiB", "10KiB/0s", "x/60s", "10KiB/soon"] {
            let err = bad.parse::<MinRate>().expect_err(bad);
            assert!(err.to_string().contains("60KiB/60s"), "{err}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_drip_ends_at_the_first_short_window() {
        let rule = MinRate {
            bytes: 10,
            window: Duration::from_secs(60),
        };
        let mut guard = Guard::new(Pace {
            stall: Duration::from_secs(30),
            min_rate: rule,
        });
        let started = Instant::now();
        let mut outcome = Ok(());
        for _ in 0..10 {
            let read = guard
                .read(tokio::time::sleep(Duration::from_secs(29)))
                .await;
            outcome = read.and_then(|()| guard.count(1));
            if outcome.is_err() {
                break;
            }
        }
        assert_eq!(outcome, Err(Slow::BelowRate { got: 2, rule }));
        assert_eq!(started.elapsed(), Duration::from_secs(60));
    }

    #[tokio::test(start_paused = true)]
    async fn a_steady_slow_transfer_goes_on_and_a_silent_one_stalls() {
        let mut guard = Guard::new(Pace {
            stall: Duration::from_secs(30),
            min_rate: MinRate::default(),
        });
        for _ in 0..600 {
            guard
                .read(tokio::time::sleep(Duration::from_secs(1)))
                .await
                .expect("no stall");
            guard.count(2 << 10).expect("2 KiB/s is enough");
        }
        let silent = guard.read(std::future::pending::<()>()).await;
        assert_eq!(silent, Err(Slow::Stalled(Duration::from_secs(30))));
    }
}
