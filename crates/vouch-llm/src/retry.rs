//! When to try again: exponential backoff with jitter, or the server's `Retry-After`.

use std::time::Duration;

/// How a transient failure is retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Tries after the first (0: never retry).
    pub max_retries: u32,
    /// The first backoff; each retry doubles it.
    pub base: Duration,
    /// The longest backoff, and the longest `Retry-After` obeyed.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy {
            max_retries: 3,
            base: Duration::from_millis(500),
            max_delay: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// Returns how long to wait before retry `attempt` (from 0): the server's `Retry-After`
    /// when it sent one (at most `max_delay`), else half the doubled backoff plus a random part
    /// of the other half, so that clients that failed together do not retry together.
    pub fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(wait) = retry_after {
            return wait.min(self.max_delay);
        }
        let doubled = self
            .base
            .saturating_mul(2u32.saturating_pow(attempt.min(16)))
            .min(self.max_delay);
        let half = doubled / 2;
        half + half.mul_f64(fastrand::f64())
    }
}

/// Reads a `Retry-After` value: seconds, or an HTTP date (how long from `now` until then).
pub(crate) fn retry_after(value: &str, now: jiff::Timestamp) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds));
    }
    let when = jiff::fmt::rfc2822::parse(value).ok()?.timestamp();
    let wait = when.duration_since(now);
    Some(Duration::try_from(wait).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let now: jiff::Timestamp = "2026-11-21T12:00:00Z".parse().unwrap();
        assert_eq!(retry_after("2", now), Some(Duration::from_secs(2)));
        assert_eq!(retry_after("0.5", now), Some(Duration::from_millis(500)));
        assert_eq!(
            retry_after("Sat, 21 Nov 2026 12:00:03 GMT", now),
            Some(Duration::from_secs(3))
        );
        assert_eq!(
            retry_after("Sat, 21 Nov 2026 11:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after("soon", now), None);
        assert_eq!(retry_after("-1", now), None);
    }

    #[test]
    fn backoff_doubles_with_jitter_and_obeys_the_server() {
        let p = RetryPolicy::default();
        for attempt in 0..6 {
            let d = p.delay(attempt, None);
            let full = Duration::from_millis(500) * 2u32.pow(attempt);
            assert!(d >= full / 2 && d <= full, "{attempt}: {d:?}");
        }
        assert!(p.delay(40, None) <= p.max_delay);
        assert_eq!(
            p.delay(0, Some(Duration::from_secs(7))),
            Duration::from_secs(7)
        );
        assert_eq!(p.delay(0, Some(Duration::from_secs(600))), p.max_delay);
    }
}
