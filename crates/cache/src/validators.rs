//! Validators decide when a cache is retired. After a replay failure each validator looks at
//! the metadata; every one that fires contributes `<ValidatorName>: <reason>`, and the reasons
//! are joined with `; ` into the invalidation reason, exactly as askui writes it.
//!
//! The defaults are askui's: 3 failures at one step, a failure rate above 50% after at least
//! 10 attempts, and failures with no successful replay for more than 30 days.

use jiff::SignedDuration;
use jiff::Timestamp;

use crate::model::CacheMetadata;

/// One rule that may retire a cache.
pub trait CacheValidator: Send + Sync {
    /// The name written before the reason (`StepFailureCount`).
    fn name(&self) -> &str;

    /// Why the cache should be invalidated, or `None` to keep it. `step_index` is the step
    /// that just failed, when there is one; `now` is the current time.
    fn reason(
        &self,
        metadata: &CacheMetadata,
        step_index: Option<u64>,
        now: Timestamp,
    ) -> Option<String>;
}

/// Invalidates when one step has failed `max_failures_per_step` times or more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepFailureCount {
    /// Failures at one step that retire the cache (askui: 3).
    pub max_failures_per_step: u64,
}

impl CacheValidator for StepFailureCount {
    fn name(&self) -> &str {
        "StepFailureCount"
    }

    fn reason(
        &self,
        metadata: &CacheMetadata,
        step_index: Option<u64>,
        _now: Timestamp,
    ) -> Option<String> {
        let step = step_index?;
        let count = metadata.failures_at_step(step);
        (count >= self.max_failures_per_step).then(|| {
            format!(
                "Step {step} failed {count} times (max: {})",
                self.max_failures_per_step
            )
        })
    }
}

/// Invalidates when more than `max_failure_rate` of at least `min_attempts` replays failed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TotalFailureRate {
    /// Attempts needed before the rate counts (askui: 10).
    pub min_attempts: u64,
    /// The highest acceptable share of failures, 0.0 to 1.0 (askui: 0.5).
    pub max_failure_rate: f64,
}

impl CacheValidator for TotalFailureRate {
    fn name(&self) -> &str {
        "TotalFailureRate"
    }

    fn reason(
        &self,
        metadata: &CacheMetadata,
        _step_index: Option<u64>,
        _now: Timestamp,
    ) -> Option<String> {
        let attempts = metadata.execution_attempts;
        if attempts < self.min_attempts || attempts == 0 {
            return None;
        }
        let rate = metadata.failures.len() as f64 / attempts as f64;
        (rate > self.max_failure_rate).then(|| {
            format!(
                "Failure rate {:.1}% exceeds {:.1}% after {attempts} attempts",
                rate * 100.0,
                self.max_failure_rate * 100.0
            )
        })
    }
}

/// Invalidates a cache that has failures and whose last successful replay is more than
/// `max_age_days` ago. A cache without failures is never stale.
///
/// The last success is retrace's [`crate::fields::LAST_PASSED`]; a file without it (written
/// by askui, which drops the field) falls back to `last_executed_at`, as askui reads it
/// (askui sets that on every attempt, so its check rarely fires).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StaleCache {
    /// Days without a successful replay (askui: 30).
    pub max_age_days: i64,
}

impl CacheValidator for StaleCache {
    fn name(&self) -> &str {
        "StaleCache"
    }

    fn reason(
        &self,
        metadata: &CacheMetadata,
        _step_index: Option<u64>,
        now: Timestamp,
    ) -> Option<String> {
        let last = crate::fields::last_passed_at(metadata).or(metadata.last_executed_at)?;
        if metadata.failures.is_empty() {
            return None;
        }
        let age = now.duration_since(last);
        let limit = SignedDuration::from_hours(self.max_age_days.saturating_mul(24));
        // Python's timedelta.days: whole days, rounded down.
        let days = age.as_secs().div_euclid(86_400);
        (age > limit)
            .then(|| format!("Cache not successfully executed in {days} days and has failures"))
    }
}

/// A set of validators; the cache is invalidated when any of them fires.
pub struct Validators {
    validators: Vec<Box<dyn CacheValidator>>,
}

impl std::fmt::Debug for Validators {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.validators.iter().map(|v| v.name()))
            .finish()
    }
}

impl Default for Validators {
    /// askui's defaults: [`StepFailureCount`] 3, [`TotalFailureRate`] 10 attempts / 50%,
    /// [`StaleCache`] 30 days.
    fn default() -> Self {
        Validators::new(vec![
            Box::new(StepFailureCount {
                max_failures_per_step: 3,
            }),
            Box::new(TotalFailureRate {
                min_attempts: 10,
                max_failure_rate: 0.5,
            }),
            Box::new(StaleCache { max_age_days: 30 }),
        ])
    }
}

impl Validators {
    /// Exactly these validators, checked in order.
    pub fn new(validators: Vec<Box<dyn CacheValidator>>) -> Self {
        Validators { validators }
    }

    /// No validators: nothing is ever invalidated automatically.
    pub fn none() -> Self {
        Validators::new(Vec::new())
    }

    /// The invalidation reason, `<Name>: <reason>` for each validator that fires, joined with
    /// `; `; `None` when none fires.
    pub fn invalidation_reason(
        &self,
        metadata: &CacheMetadata,
        step_index: Option<u64>,
        now: Timestamp,
    ) -> Option<String> {
        let reasons: Vec<String> = self
            .validators
            .iter()
            .filter_map(|v| {
                v.reason(metadata, step_index, now)
                    .map(|r| format!("{}: {r}", v.name()))
            })
            .collect();
        (!reasons.is_empty()).then(|| reasons.join("; "))
    }
}

#[cfg(test)]
#[path = "validators_tests.rs"]
mod tests;
