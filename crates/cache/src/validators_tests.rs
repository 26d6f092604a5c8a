use super::*;
use crate::model::CacheFailure;

fn at(text: &str) -> Timestamp {
    text.parse().unwrap()
}

fn metadata(attempts: u64, failure_steps: &[u64], last: Option<&str>) -> CacheMetadata {
    let mut m = CacheMetadata::new(at("2026-01-01T00:00:00Z"), None);
    m.execution_attempts = attempts;
    m.last_executed_at = last.map(at);
    for (i, step) in failure_steps.iter().enumerate() {
        m.failures.push(CacheFailure {
            timestamp: at("2026-01-02T00:00:00Z"),
            step_index: *step,
            error_message: format!("failure {i}"),
            failure_count_at_step: 1,
            extra: serde_json::Map::new(),
        });
    }
    m
}

#[test]
fn step_failure_count_fires_at_three() {
    let now = at("2026-01-03T00:00:00Z");
    let v = Validators::default();
    assert_eq!(
        v.invalidation_reason(&metadata(5, &[6, 6], None), Some(6), now),
        None
    );
    assert_eq!(
        v.invalidation_reason(&metadata(5, &[6, 2, 6, 6], None), Some(6), now)
            .as_deref(),
        Some("StepFailureCount: Step 6 failed 3 times (max: 3)")
    );
    assert_eq!(
        v.invalidation_reason(&metadata(5, &[6, 6, 6], None), Some(2), now),
        None
    );
}

#[test]
fn failure_rate_needs_ten_attempts_and_more_than_half() {
    let now = at("2026-01-03T00:00:00Z");
    let v = Validators::default();
    assert_eq!(
        v.invalidation_reason(&metadata(9, &[1, 2, 3, 4, 5, 0, 7], None), None, now),
        None
    );
    assert_eq!(
        v.invalidation_reason(&metadata(10, &[1, 2, 3, 4, 5], None), None, now),
        None
    );
    assert_eq!(
        v.invalidation_reason(&metadata(10, &[1, 2, 3, 4, 5, 0], None), None, now)
            .as_deref(),
        Some("TotalFailureRate: Failure rate 60.0% exceeds 50.0% after 10 attempts")
    );
}

#[test]
fn staleness_needs_failures_and_thirty_days() {
    let v = Validators::default();
    let last = Some("2026-01-01T00:00:00Z");
    assert_eq!(
        v.invalidation_reason(&metadata(2, &[], last), None, at("2026-03-01T00:00:00Z")),
        None
    );
    assert_eq!(
        v.invalidation_reason(&metadata(2, &[1], last), None, at("2026-01-31T00:00:00Z")),
        None
    );
    assert_eq!(
        v.invalidation_reason(&metadata(2, &[1], last), None, at("2026-02-10T12:00:00Z"))
            .as_deref(),
        Some("StaleCache: Cache not successfully executed in 40 days and has failures")
    );
}

#[test]
fn reasons_are_joined() {
    let m = metadata(10, &[4, 4, 4, 1, 2, 3], Some("2025-01-01T00:00:00Z"));
    let reason = Validators::default()
        .invalidation_reason(&m, Some(4), at("2026-01-01T00:00:00Z"))
        .unwrap();
    assert_eq!(
        reason,
        "StepFailureCount: Step 4 failed 3 times (max: 3); TotalFailureRate: Failure rate 60.0% exceeds 50.0% after 10 attempts; StaleCache: Cache not successfully executed in 365 days and has failures"
    );
    assert_eq!(
        Validators::none().invalidation_reason(&m, Some(4), at("2026-01-01T00:00:00Z")),
        None
    );
}

#[test]
fn staleness_reads_last_passed_at_before_last_executed_at() {
    let now = at("2026-03-01T00:00:00Z");
    let v = Validators::default();
    // askui's view: an attempt a minute ago, so not stale.
    let mut m = metadata(3, &[1], Some("2026-02-28T23:59:00Z"));
    assert_eq!(v.invalidation_reason(&m, Some(1), now), None);
    // retrace's: the last pass was 40 days ago.
    m.extra.insert(
        crate::fields::LAST_PASSED.into(),
        serde_json::json!("2026-01-20T00:00:00.000000Z"),
    );
    assert_eq!(
        v.invalidation_reason(&m, Some(1), now).as_deref(),
        Some("StaleCache: Cache not successfully executed in 40 days and has failures")
    );
}
