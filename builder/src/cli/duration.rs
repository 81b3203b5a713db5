//! Durations given on the command line: a whole number with an optional unit (`s` when there is
//! none), each option with its own units and examples.

use std::time::Duration;

/// Why a duration option was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    /// The number is not a whole number.
    #[error("`{text}` is not a duration: expected e.g. {examples}")]
    NotNumber {
        /// The text given.
        text: String,
        /// Examples of what the option takes.
        examples: &'static str,
    },
    /// A unit the option does not take.
    #[error("`{text}`: the unit must be {units}")]
    Unit {
        /// The text given.
        text: String,
        /// The units the option takes.
        units: &'static str,
    },
    /// A catalog validity shorter than a minute.
    #[error("`{text}`: a catalog valid for less than a minute expires before it is published")]
    UnderAMinute {
        /// The text given.
        text: String,
    },
}

/// What one option takes: its units with their seconds, and how they are named in messages.
pub struct Units {
    /// Each unit and its length in seconds.
    pub scale: &'static [(&'static str, u64)],
    /// The units as named in the message, e.g. `s, m or h`.
    pub names: &'static str,
    /// Examples as named in the message, e.g. `90, 90s, 30m or 1h`.
    pub examples: &'static str,
}

/// `s`, `m` and `h`.
pub const SMH: &[(&str, u64)] = &[("s", 1), ("m", 60), ("h", 3600)];
/// `s`, `m`, `h` and `d`.
pub const SMHD: &[(&str, u64)] = &[("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)];

/// Parses `text` as a number of `units` (seconds without one).
pub fn parse(text: &str, units: &Units) -> Result<Duration, DurationError> {
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let n: u64 = number.parse().map_err(|_| DurationError::NotNumber {
        text: text.to_string(),
        examples: units.examples,
    })?;
    let scale = units
        .scale
        .iter()
        .find_map(|(name, seconds)| (*name == unit).then_some(*seconds))
        .ok_or_else(|| DurationError::Unit {
            text: text.to_string(),
            units: units.names,
        })?;
    Ok(Duration::from_secs(n.saturating_mul(scale)))
}
