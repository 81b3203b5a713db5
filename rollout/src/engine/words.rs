//! Values as a person writes them, for event details and messages: a duration as `10m` or
//! `1h30m` (the form `--soak` and `--gate-timeout` take), a preflight verdict as `pass`.

use std::fmt;
use std::time::Duration;

use super::preflight::Verdict;

/// `d` in days, hours, minutes and seconds, largest first, zero parts left out: `10m`,
/// `1h30m`, `90s` is `1m30s`, under a second `0s` (a fraction of a second is dropped).
///
/// ```
/// use std::time::Duration;
/// use cks_rollout::engine::duration_text;
/// assert_eq!(duration_text(Duration::from_secs(600)), "10m");
/// assert_eq!(duration_text(Duration::from_secs(5400)), "1h30m");
/// assert_eq!(duration_text(Duration::from_millis(62_040_500)), "17h14m");
/// assert_eq!(duration_text(Duration::ZERO), "0s");
/// ```
pub fn duration_text(d: Duration) -> String {
    let mut left = d.as_secs();
    if left == 0 {
        return "0s".to_string();
    }
    let mut out = String::new();
    for (unit, secs) in [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)] {
        let n = left / secs;
        left %= secs;
        if n > 0 {
            out.push_str(&format!("{n}{unit}"));
        }
    }
    out
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Pass => f.write_str("pass"),
            Verdict::AlreadyDown => f.write_str("pass (already down)"),
            Verdict::Fail { reasons } => write!(f, "fail: {}", reasons.join("; ")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_the_flags_take_them() {
        for (secs, text) in [
            (90, "1m30s"),
            (3_600, "1h"),
            (86_400 + 61, "1d1m1s"),
            (59, "59s"),
        ] {
            assert_eq!(duration_text(Duration::from_secs(secs)), text);
        }
    }

    #[test]
    fn a_verdict_reads_as_words() {
        let fail = Verdict::Fail {
            reasons: vec!["a".into(), "b".into()],
        };
        assert_eq!(fail.to_string(), "fail: a; b");
        assert_eq!(Verdict::Pass.to_string(), "pass");
    }
}
