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
}
