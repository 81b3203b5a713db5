//! The retry policy shared by file downloads, git listing and registry pulls: exponential backoff
//! with jitter, and `Retry-After` honoured up to a cap.

use std::time::Duration;

/// How often and how patiently to retry a transfer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (3 by default, so 4 attempts in all).
    pub retries: u32,
    /// The delay before the first retry; doubled for each further one.
    pub base_delay: Duration,
    /// No computed backoff exceeds this.
    pub max_delay: Duration,
    /// The longest `Retry-After` that is honoured; a longer one is cut to this.
    pub retry_after_cap: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            retries: 3,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            retry_after_cap: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// A policy that retries at once, for tests that count attempts without waiting.
    pub fn immediate(retries: u32) -> Self {
        RetryPolicy {
            retries,
            base_delay: Duration::ZERO,
            max_delay: Duration::ZERO,
            retry_after_cap: Duration::from_secs(2),
        }
    }

    /// The delay before retry number `retry` (1 for the first retry): exponential with "full
    /// jitter" between half and all of the exponential value, or the server's `Retry-After`
    /// (capped) when it sent one.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(wait) = retry_after {
            return wait.min(self.retry_after_cap);
        }
        let exp = self
            .base_delay
            .saturating_mul(1u32 << retry.saturating_sub(1).min(16))
            .min(self.max_delay);
        if exp.is_zero() {
            return exp;
        }
        let half = exp / 2;
        let jitter = rand::random_range(0..=half.as_millis() as u64);
        half + Duration::from_millis(jitter)
    }
}

/// Whether a failed attempt is worth repeating.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Repeating cannot help (a 404, a checksum mismatch, a malformed answer).
    Permanent,
    /// The failure may pass (a reset, a timeout, a 5xx); `retry_after` is the server's hint.
    Transient {
        /// The wait the server asked for (`Retry-After`), if any.
        retry_after: Option<Duration>,
    },
}

/// An error that knows whether its operation may be retried.
pub trait Classify {
    /// The verdict for this failure.
    fn verdict(&self) -> Verdict;
}

/// The outcome of [`RetryPolicy::run`]: the value (or the last error) and how many attempts
/// were made (1 when the first attempt decided it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempted<T> {
    /// The final value or error.
    pub value: T,
    /// Attempts made, the first included.
    pub attempts: u32,
}

impl RetryPolicy {
    /// Runs `attempt` (given the attempt number, from 1) until it succeeds, fails permanently or
    /// the retries are used up, sleeping [`RetryPolicy::delay`] between attempts.
    pub async fn run<T, E, F, Fut>(&self, mut attempt: F) -> Result<Attempted<T>, Attempted<E>>
    where
        E: Classify + std::fmt::Display,
        F: FnMut(u32) -> Fut,
        Fut: std::future::Future<Output = Result<T, E>>,
    {
        let mut number = 1;
        loop {
            match attempt(number).await {
                Ok(value) => {
                    return Ok(Attempted {
                        value,
                        attempts: number,
                    });
                }
                Err(error) => match error.verdict() {
                    Verdict::Transient { retry_after } if number <= self.retries => {
                        let wait = self.delay(number, retry_after);
                        tracing::debug!(attempt = number, ?wait, %error, "retrying");
                        tokio::time::sleep(wait).await;
                        number += 1;
                    }
                    _ => {
                        return Err(Attempted {
                            value: error,
                            attempts: number,
                        });
                    }
                },
            }
        }
    }
}

/// Reads a `Retry-After` header value: delay-seconds or an HTTP-date (IMF-fixdate, as RFC 9110
/// requires servers to send), measured from `now`.
pub fn parse_retry_after(value: &str, now: std::time::SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = parse_imf_fixdate(value)?;
    let now = now.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs();
    Some(Duration::from_secs(at.saturating_sub(now)))
}

/// Seconds since the epoch of an IMF-fixdate such as `Sun, 06 Nov 1994 08:49:37 GMT`.
fn parse_imf_fixdate(value: &str) -> Option<u64> {
    if !value.ends_with(" GMT") {
        return None;
    }
    let at = jiff::fmt::rfc2822::DateTimeParser::new()
        .parse_timestamp(value)
        .ok()?;
    u64::try_from(at.as_second()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_stays_under_the_cap() {
        let policy = RetryPolicy::default();
        for retry in 1..10 {
            let d = policy.delay(retry, None);
            assert!(d <= policy.max_delay, "retry {retry}: {d:?}");
        }
        let first = policy.delay(1, None);
        assert!(first >= Duration::from_millis(250) && first <= Duration::from_millis(500));
    }

    #[test]
    fn retry_after_is_honoured_up_to_the_cap() {
        let policy = RetryPolicy::default();
        assert_eq!(
            policy.delay(1, Some(Duration::from_secs(3))),
            Duration::from_secs(3)
        );
        assert_eq!(
            policy.delay(1, Some(Duration::from_secs(3600))),
            policy.retry_after_cap
        );
    }
    #[test]
    fn retry_after_reads_seconds_and_http_dates() {
        let now = std::time::UNIX_EPOCH + Duration::from_secs(784_111_767);
        assert_eq!(parse_retry_after("7", now), Some(Duration::from_secs(7)));
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now),
            Some(Duration::from_secs(10))
        );
        assert_eq!(parse_retry_after("soon", now), None);
    }

    #[derive(Debug)]
    struct Flaky(Verdict);
    impl std::fmt::Display for Flaky {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{:?}", self.0)
        }
    }
    impl Classify for Flaky {
        fn verdict(&self) -> Verdict {
            self.0
        }
    }

    #[tokio::test]
    async fn run_stops_after_the_retries_or_at_a_permanent_error() {
        let transient = Verdict::Transient { retry_after: None };
        let out = RetryPolicy::immediate(3)
            .run(|_| async move { Err::<(), _>(Flaky(transient)) })
            .await;
        assert_eq!(out.map_err(|e| e.attempts).err(), Some(4));
        let out = RetryPolicy::immediate(3)
            .run(|n| async move {
                if n == 2 {
                    Err::<(), _>(Flaky(Verdict::Permanent))
                } else {
                    Err(Flaky(transient))
                }
            })
            .await;
        assert_eq!(out.map_err(|e| e.attempts).err(), Some(2));
        let out = RetryPolicy::immediate(3)
            .run(|n| async move { if n < 3 { Err(Flaky(transient)) } else { Ok(n) } })
            .await;
        assert_eq!(out.ok().map(|a| (a.value, a.attempts)), Some((3, 3)));
    }
}
