//! The one time an image is dated with: `SOURCE_DATE_EPOCH`, or the build's start.

use std::time::{SystemTime, UNIX_EPOCH};

use super::error::PackError;

/// Where the build time came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeSource {
    /// `SOURCE_DATE_EPOCH` was set: the image is reproducible.
    SourceDateEpoch,
    /// The clock when the build started (record it, e.g. in versions.txt).
    BuildStart,
}

/// The time every entry and descriptor of an image carries, in seconds since 1970.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildTime {
    /// Seconds since 1970-01-01 UTC.
    pub unix_seconds: i64,
    /// Where it came from.
    pub source: TimeSource,
}

impl BuildTime {
    /// A fixed time, as `SOURCE_DATE_EPOCH` gives one.
    pub fn fixed(unix_seconds: i64) -> Self {
        Self {
            unix_seconds,
            source: TimeSource::SourceDateEpoch,
        }
    }

    /// `SOURCE_DATE_EPOCH` when set (`value`), else `now`.
    pub fn from_env_value(value: Option<&str>, now: SystemTime) -> Result<Self, PackError> {
        match value {
            Some(text) => {
                let trimmed = text.trim();
                let valid = !trimmed.is_empty() && trimmed.bytes().all(|b| b.is_ascii_digit());
                match trimmed.parse::<i64>() {
                    Ok(seconds) if valid => Ok(Self::fixed(seconds)),
                    _ => Err(PackError::SourceDateEpoch {
                        value: text.to_string(),
                    }),
                }
            }
            None => {
                let seconds = now
                    .duration_since(UNIX_EPOCH)
                    .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
                    .unwrap_or(0);
                Ok(Self {
                    unix_seconds: seconds,
                    source: TimeSource::BuildStart,
                })
            }
        }
    }

    /// `SOURCE_DATE_EPOCH` from the environment, else the clock now.
    pub fn from_env() -> Result<Self, PackError> {
        let value = std::env::var_os("SOURCE_DATE_EPOCH").map(|v| v.to_string_lossy().into_owned());
        Self::from_env_value(value.as_deref(), SystemTime::now())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn source_date_epoch_wins_over_the_clock() {
        let now = UNIX_EPOCH + Duration::from_secs(2_000_000_000);
        let time = BuildTime::from_env_value(Some("1700000000"), now).expect("valid epoch");
        assert_eq!(time, BuildTime::fixed(1_700_000_000));
    }

    #[test]
    fn the_clock_is_used_and_labelled_when_unset() {
        let now = UNIX_EPOCH + Duration::from_secs(1_234);
        let time = BuildTime::from_env_value(None, now).expect("clock");
        assert_eq!(time.unix_seconds, 1_234);
        assert_eq!(time.source, TimeSource::BuildStart);
    }

    #[test]
    fn a_non_numeric_epoch_is_refused_naming_the_value() {
        for bad in ["", "soon", "-5", "1.5", "17e8"] {
            let err = BuildTime::from_env_value(Some(bad), SystemTime::now())
                .expect_err("must be refused");
            assert!(err.to_string().contains(&format!("{bad:?}")), "{err}");
        }
    }
}
