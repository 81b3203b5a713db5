//! Durations on the command line: `90s`, `10m`, `1h30m`, `2d`, `250ms`; and the flags whose
//! older form was a bare number in a fixed unit. Shared by `cks-rollout` and `cks-upgrade-hook`
//! so both read a duration the same way.
//!
//! ```
//! use std::time::Duration;
//! use cks_pinning::duration::{parse, seconds_or_units};
//! assert_eq!(parse("1h30m"), Ok(Duration::from_secs(5400)));
//! let old = seconds_or_units("30").expect("a bare number");
//! assert_eq!(old.secs(), 30);
//! assert!(old.warning("--timeout").is_some_and(|w| w.contains("write 30s")));
//! ```

use std::time::Duration;

/// A text that is not a duration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} is not a duration: expected whole numbers with units d, h, m, s or ms, e.g. 90s, 10m, 1h30m"
)]
pub struct DurationError(pub String);

/// Parses a duration: whole numbers each followed by `d`, `h`, `m`, `s` or `ms` (a bare number
/// is seconds), as clap's value parser.
pub fn parse(text: &str) -> Result<Duration, DurationError> {
    let text = text.trim();
    match text.parse::<u64>() {
        Ok(secs) => Ok(Duration::from_secs(secs)),
        Err(_) => with_units(text),
    }
}

/// A duration with its units, `90s` or `1h30m` or `250ms`.
fn with_units(text: &str) -> Result<Duration, DurationError> {
    let bad = || DurationError(text.to_string());
    if text.is_empty() {
        return Err(bad());
    }
    let mut total: u64 = 0;
    let mut number = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            number.push(c);
            continue;
        }
        let millis = match c {
            'd' => 86_400_000,
            'h' => 3_600_000,
            'm' if chars.peek() == Some(&'s') => {
                chars.next();
                1
            }
            'm' => 60_000,
            's' => 1_000,
            _ => return Err(bad()),
        };
        let n: u64 = number.parse().map_err(|_| bad())?;
        number.clear();
        total = n
            .checked_mul(millis)
            .and_then(|v| total.checked_add(v))
            .ok_or_else(bad)?;
    }
    if !number.is_empty() {
        return Err(bad());
    }
    Ok(Duration::from_millis(total))
}

/// A duration flag that once took a bare number in a fixed unit (`--poll-interval` in
/// milliseconds, `--batch-timeout` in seconds): the duration, and whether it was given in the
/// old form, which [`OldUnit::warning`] then names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OldUnit {
    /// The duration meant.
    pub duration: Duration,
    /// The bare number given, when the old form was used.
    pub bare: Option<u64>,
    /// The unit a bare number is in, `s` or `ms`.
    pub unit: &'static str,
}

impl OldUnit {
    /// The warning for a bare number given to `flag`, or `None` for a duration with units.
    pub fn warning(&self, flag: &str) -> Option<String> {
        self.bare.map(|n| {
            format!(
                "{flag} {n}: a number without a unit is read as {n}{unit}; write {n}{unit} (a plain number will be refused in a later release)",
                unit = self.unit
            )
        })
    }

    /// The duration in whole seconds.
    pub fn secs(&self) -> u64 {
        self.duration.as_secs()
    }

    /// The duration in whole milliseconds.
    pub fn millis(&self) -> u64 {
        u64::try_from(self.duration.as_millis()).unwrap_or(u64::MAX)
    }
}

/// A flag once in seconds: `30s`, `5m`, or (with a warning) a bare number of seconds.
pub fn seconds_or_units(text: &str) -> Result<OldUnit, DurationError> {
    old_unit(text, "s", Duration::from_secs)
}

/// A flag once in milliseconds: `10s`, `250ms`, or (with a warning) a bare number of
/// milliseconds.
pub fn millis_or_units(text: &str) -> Result<OldUnit, DurationError> {
    old_unit(text, "ms", Duration::from_millis)
}

/// A bare number read in `unit` (`of` makes it a duration), or a duration with its units.
fn old_unit(
    text: &str,
    unit: &'static str,
    of: fn(u64) -> Duration,
) -> Result<OldUnit, DurationError> {
    let text = text.trim();
    match text.parse::<u64>() {
        Ok(n) => Ok(OldUnit {
            duration: of(n),
            bare: Some(n),
            unit,
        }),
        Err(_) => Ok(OldUnit {
            duration: with_units(text)?,
            bare: None,
            unit,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_bare_numbers() {
        assert_eq!(parse("90"), Ok(Duration::from_secs(90)));
        assert_eq!(parse("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse("1m30s"), Ok(Duration::from_secs(90)));
        assert!(parse("5x").is_err());
        assert!(parse("m").is_err());
    }

    #[test]
    fn a_bare_number_keeps_its_old_unit_and_says_so() {
        let poll = millis_or_units("50").expect("old form");
        assert_eq!(poll.duration, Duration::from_millis(50));
        assert!(
            poll.warning("--poll-interval")
                .is_some_and(|w| w.contains("write 50ms")),
            "{poll:?}"
        );
        let poll = millis_or_units("10s").expect("units");
        assert_eq!(
            (poll.millis(), poll.warning("--poll-interval")),
            (10_000, None)
        );
        let batch = seconds_or_units("5m").expect("units");
        assert_eq!(batch.secs(), 300);
        assert_eq!(seconds_or_units("30").expect("old").secs(), 30);
    }
}
