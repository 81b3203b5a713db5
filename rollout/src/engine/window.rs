//! Maintenance windows (`--window "Mon-Fri 22:00-05:00 Europe/Berlin"`): days of the week, a
//! local start and end time (an end before the start runs past midnight into the next day) and
//! a time zone from the system's tz database. A batch starts only while a window is open.

use jiff::Timestamp;
use jiff::civil::{Date, Time, Weekday};
use jiff::tz::TimeZone;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::time::Duration;

/// Why a window spec was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "window {spec:?}: {why}; expected DAYS HH:MM-HH:MM ZONE, e.g. \"Mon-Fri 22:00-05:00 Europe/Berlin\" (DAYS: Mon..Sun, ranges and commas, or daily)"
)]
pub struct WindowError {
    /// The spec as given.
    pub spec: String,
    /// What is wrong.
    pub why: String,
}

/// One maintenance window.
#[derive(Debug, Clone)]
pub struct Window {
    spec: String,
    /// Days it opens on, bit 0 Monday .. bit 6 Sunday.
    days: u8,
    /// Local opening time, minutes after midnight.
    start: u16,
    /// Local closing time, minutes after midnight (1440 for 24:00).
    end: u16,
    tz: TimeZone,
}

impl PartialEq for Window {
    fn eq(&self, other: &Self) -> bool {
        self.spec == other.spec
    }
}

impl Eq for Window {}

const DAYS: [(&str, &str); 7] = [
    ("mon", "monday"),
    ("tue", "tuesday"),
    ("wed", "wednesday"),
    ("thu", "thursday"),
    ("fri", "friday"),
    ("sat", "saturday"),
    ("sun", "sunday"),
];

/// A day of the week by its three-letter or full English name: 0 Monday .. 6 Sunday.
fn day(text: &str) -> Option<usize> {
    let t = text.to_ascii_lowercase();
    DAYS.iter()
        .position(|(short, full)| t == *short || t == *full)
}

fn days(text: &str) -> Option<u8> {
    if text.eq_ignore_ascii_case("daily") || text == "*" {
        return Some(0x7f);
    }
    let mut set = 0u8;
    for part in text.split(',') {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (day(a)?, day(b)?);
                let mut d = a;
                loop {
                    set |= 1 << d;
                    if d == b {
                        break;
                    }
                    d = (d + 1) % 7;
                }
            }
            None => set |= 1 << day(part)?,
        }
    }
    Some(set)
}

fn minutes(text: &str, end: bool) -> Option<u16> {
    let (h, m) = text.split_once(':')?;
    if h.len() != 2 || m.len() != 2 {
        return None;
    }
    let (h, m): (u16, u16) = (h.parse().ok()?, m.parse().ok()?);
    if end && h == 24 && m == 0 {
        return Some(1440);
    }
    (h < 24 && m < 60).then_some(h * 60 + m)
}

fn weekday_index(w: Weekday) -> usize {
    w.to_monday_zero_offset() as usize
}

impl Window {
    /// Parses a spec, looking its zone up in the system's tz database.
    pub fn parse(spec: &str) -> Result<Self, WindowError> {
        let bad = |why: &str| WindowError {
            spec: spec.to_string(),
            why: why.to_string(),
        };
        let parts: Vec<&str> = spec.split_whitespace().collect();
        let [d, times, zone] = parts[..] else {
            return Err(bad("it has not three parts"));
        };
        let days = days(d).ok_or_else(|| bad(&format!("{d:?} are not days of the week")))?;
        let (a, b) = times
            .split_once('-')
            .ok_or_else(|| bad(&format!("{times:?} is not HH:MM-HH:MM")))?;
        let start = minutes(a, false).ok_or_else(|| bad(&format!("{a:?} is not a time HH:MM")))?;
        let end = minutes(b, true).ok_or_else(|| bad(&format!("{b:?} is not a time HH:MM")))?;
        if start == end {
            return Err(bad("it opens and closes at the same time"));
        }
        let tz = TimeZone::get(zone).map_err(|e| {
            bad(&format!(
                "time zone {zone:?} is not in the system's tz database ({e}); use a name such as Europe/Berlin or UTC, and install tzdata"
            ))
        })?;
        Ok(Window {
            spec: spec.to_string(),
            days,
            start,
            end,
            tz,
        })
    }

    /// The spec as given.
    pub fn spec(&self) -> &str {
        &self.spec
    }

    fn opens_on(&self, date: Date) -> bool {
        self.days & (1 << weekday_index(date.weekday())) != 0
    }

    /// True when the window is open at `wall` (time since the Unix epoch).
    pub fn is_open(&self, wall: Duration) -> bool {
        let Ok(ts) = Timestamp::from_millisecond(wall.as_millis() as i64) else {
            return false;
        };
        let local = ts.to_zoned(self.tz.clone());
        let m = local.hour() as u16 * 60 + local.minute() as u16;
        let date = local.date();
        if self.start < self.end {
            self.opens_on(date) && m >= self.start && m < self.end
        } else {
            (self.opens_on(date) && m >= self.start)
                || (m < self.end && date.yesterday().is_ok_and(|y| self.opens_on(y)))
        }
    }

    /// When the window next opens at or after `wall` (`wall` itself when open now).
    pub fn next_open(&self, wall: Duration) -> Option<Duration> {
        if self.is_open(wall) {
            return Some(wall);
        }
        let ts = Timestamp::from_millisecond(wall.as_millis() as i64).ok()?;
        let today = ts.to_zoned(self.tz.clone()).date();
        let at = Time::new((self.start / 60) as i8, (self.start % 60) as i8, 0, 0).ok()?;
        (0..8)
            .filter_map(|i| today.checked_add(jiff::Span::new().days(i)).ok())
            .filter(|d| self.opens_on(*d))
            .filter_map(|d| d.to_datetime(at).to_zoned(self.tz.clone()).ok())
            .map(|z| z.timestamp())
            .find(|t| *t > ts)
            .and_then(|t| u64::try_from(t.as_millisecond()).ok())
            .map(Duration::from_millis)
    }
}

/// True when any of `windows` is open at `wall` (no window: always).
pub fn any_open(windows: &[Window], wall: Duration) -> bool {
    windows.is_empty() || windows.iter().any(|w| w.is_open(wall))
}

/// When the first of `windows` next opens at or after `wall`.
pub fn next_open(windows: &[Window], wall: Duration) -> Option<Duration> {
    windows.iter().filter_map(|w| w.next_open(wall)).min()
}

/// `wall` as an RFC 3339 time in UTC, for messages.
pub fn shown(wall: Duration) -> String {
    Timestamp::from_millisecond(wall.as_millis() as i64)
        .map(|t| t.to_string())
        .unwrap_or_else(|_| format!("{} s after the epoch", wall.as_secs()))
}

impl Serialize for Window {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.spec)
    }
}

impl<'de> Deserialize<'de> for Window {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let spec = String::deserialize(d)?;
        Window::parse(&spec).map_err(serde::de::Error::custom)
    }
}
