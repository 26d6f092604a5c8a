//! The one retry policy: how long to wait before trying again and when to give up, and the one
//! reader of a server's `retry-after`. The model clients (`retrace-llm`) and the browser-farm
//! connection (`retrace-drive`) both retry by it.
//!
//! Exponential backoff with full jitter (a random wait between zero and
//! `min(max_delay, base_delay · 2^(retry-1))`), except that a server's own wait is honoured as
//! given; bounded by `max_attempts` and by `max_total`, the time from the first attempt after
//! which no new wait starts.

use std::time::Duration;
use std::time::SystemTime;

use rand::Rng;

/// When and how long to retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (1 means no retry).
    pub max_attempts: u32,
    /// The backoff ceiling of the first retry.
    pub base_delay: Duration,
    /// The largest backoff ceiling (a server's `retry-after` may exceed it).
    pub max_delay: Duration,
    /// No wait starts that would end later than this after the first attempt.
    pub max_total: Duration,
}

impl Default for RetryPolicy {
    /// 5 attempts, 1 s base, 30 s cap, 2 min in all.
    fn default() -> Self {
        Self {
            max_attempts: 5,
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(30),
            max_total: Duration::from_secs(120),
        }
    }
}

impl RetryPolicy {
    /// A policy that never retries.
    pub fn none() -> Self {
        Self {
            max_attempts: 1,
            ..Self::default()
        }
    }

    /// The wait before retry number `retry` (1 for the first retry): `server_wait` when the
    /// server gave one, else a random duration in `[0, backoff_ceiling(retry)]`.
    pub fn delay(&self, retry: u32, server_wait: Option<Duration>) -> Duration {
        if let Some(wait) = server_wait {
            return wait;
        }
        let ceiling = self.backoff_ceiling(retry);
        let ceiling_ms = u64::try_from(ceiling.as_millis()).unwrap_or(u64::MAX);
        Duration::from_millis(rand::rng().random_range(0..=ceiling_ms))
    }

    /// `min(max_delay, base_delay · 2^(retry-1))`.
    pub fn backoff_ceiling(&self, retry: u32) -> Duration {
        let factor = 2u32.saturating_pow(retry.saturating_sub(1));
        self.base_delay
            .checked_mul(factor)
            .unwrap_or(self.max_delay)
            .min(self.max_delay)
    }

    /// Whether to give up after attempt number `attempt` failed, `elapsed` after the first
    /// attempt began, when the next wait would be `delay`.
    pub fn gives_up(&self, attempt: u32, elapsed: Duration, delay: Duration) -> bool {
        attempt >= self.max_attempts || elapsed + delay > self.max_total
    }
}

/// How long a server asked to wait, read as the official SDKs read it (`anthropic` 2.14.0,
/// `_base_client.py`, `_parse_retry_after_header`): `retry-after-ms` first, then `retry-after`
/// as seconds (fractions allowed) or as an HTTP date; only a positive wait counts, at most a
/// day. `header` looks up a response header by its lowercase name.
pub fn server_wait<'a>(header: impl Fn(&str) -> Option<&'a str>) -> Option<Duration> {
    let seconds = |text: &str| text.trim().parse::<f64>().ok();
    let wait = header("retry-after-ms")
        .and_then(seconds)
        .map(|ms| ms / 1000.0)
        .or_else(|| {
            let text = header("retry-after")?;
            seconds(text).or_else(|| seconds_until_http_date(text))
        })?;
    (wait.is_finite() && wait > 0.0).then(|| Duration::from_secs_f64(wait.min(86_400.0)))
}

/// Seconds from now until an HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`), negative when past.
fn seconds_until_http_date(text: &str) -> Option<f64> {
    let at = httpdate::parse_http_date(text.trim()).ok()?;
    Some(match at.duration_since(SystemTime::now()) {
        Ok(ahead) => ahead.as_secs_f64(),
        Err(behind) => -behind.duration().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 10,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(1),
            max_total: Duration::from_secs(60),
        }
    }

    #[test]
    fn ceilings_double_up_to_the_cap_and_waits_stay_under_them() {
        let ceilings: Vec<u128> = (1..=6)
            .map(|r| policy().backoff_ceiling(r).as_millis())
            .collect();
        assert_eq!(ceilings, [100, 200, 400, 800, 1000, 1000]);
        for retry in 1..=6 {
            assert!(policy().delay(retry, None) <= policy().backoff_ceiling(retry));
        }
        let server = Some(Duration::from_secs(5));
        assert_eq!(policy().delay(1, server), Duration::from_secs(5));
    }

    #[test]
    fn gives_up_at_the_attempt_limit_or_the_total_time() {
        let policy = policy();
        assert!(!policy.gives_up(9, Duration::ZERO, Duration::from_secs(1)));
        assert!(policy.gives_up(10, Duration::ZERO, Duration::from_secs(1)));
        assert!(policy.gives_up(1, Duration::from_secs(59), Duration::from_secs(2)));
    }

    #[test]
    fn server_waits_in_milliseconds_seconds_and_http_dates() {
        let wait = |pairs: &'static [(&'static str, &'static str)]| {
            server_wait(|name| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| *v))
        };
        assert_eq!(wait(&[("retry-after", "2")]), Some(Duration::from_secs(2)));
        assert_eq!(
            wait(&[("retry-after", "1"), ("retry-after-ms", "1500")]),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            wait(&[("retry-after", "0.5")]),
            Some(Duration::from_millis(500))
        );
        assert_eq!(wait(&[("retry-after", "0")]), None);
        assert_eq!(wait(&[("retry-after", "soon")]), None);
        assert_eq!(
            wait(&[("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")]),
            None
        );
        assert_eq!(wait(&[]), None);
        let later = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(30));
        let pairs: Vec<(&str, &str)> = vec![("retry-after", later.as_str())];
        let dated = server_wait(|name| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| *v));
        let dated = dated.unwrap();
        assert!(
            dated > Duration::from_secs(20) && dated <= Duration::from_secs(30),
            "{dated:?}"
        );
    }
}
