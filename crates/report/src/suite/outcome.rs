//! What went wrong in a test, in words every report uses alike: the failure that stopped a
//! replay, the error that kept a test from running, a page check's verdict.

use retrace_protocol::events::ReplayFailure;
use retrace_protocol::events::SessionReport;
use retrace_protocol::events::TestKind;
use retrace_protocol::events::TestReport;
use retrace_protocol::events::TestStatus;
use retrace_protocol::events::Verdict;
use serde::Serialize;

/// The failure that stopped the test's last attempt, for a replay that failed.
pub(crate) fn replay_failure(test: &TestReport) -> Option<&ReplayFailure> {
    test.attempts
        .last()
        .and_then(|attempt| attempt.replay.as_ref())
        .and_then(|replay| replay.failure.as_ref())
}

/// The step that failed: the test's own `step`, or its last attempt's failure's.
pub(crate) fn failed_step(test: &TestReport) -> Option<usize> {
    test.step
        .or_else(|| replay_failure(test).map(|failure| failure.step))
}

/// One line saying why `test` did not pass: `step 4 (left_click at (640, 311)): mismatch,
/// distance 26 > 10`. `None` for a test that passed.
pub(crate) fn headline(test: &TestReport) -> Option<String> {
    match test.status {
        TestStatus::Passed | TestStatus::Flaky => None,
        TestStatus::Skipped => Some(
            test.skip_reason
                .clone()
                .unwrap_or_else(|| "not run".to_owned()),
        ),
        TestStatus::Failed | TestStatus::Error => Some(match test.kind {
            TestKind::Check => check_headline(test),
            TestKind::Replay => replay_headline(test),
        }),
    }
}

fn replay_headline(test: &TestReport) -> String {
    if let Some(failure) = replay_failure(test) {
        let measure = match (failure.distance, failure.threshold) {
            (Some(distance), Some(threshold)) => format!(", distance {distance} > {threshold}"),
            _ => String::new(),
        };
        return format!(
            "step {} ({}): {}{measure}",
            failure.step,
            failure.action,
            failure.kind.label().replace('_', " ")
        );
    }
    if let Some(error) = test.attempts.last().and_then(attempt_error) {
        return match failed_step(test) {
            Some(step) => format!("step {step}: {error}"),
            None => error,
        };
    }
    match failed_step(test) {
        Some(step) => format!("step {step} failed"),
        None => format!("{} without a recorded reason", test.status.label()),
    }
}

fn check_headline(test: &TestReport) -> String {
    let Some(check) = &test.check else {
        return test
            .attempts
            .last()
            .and_then(attempt_error)
            .unwrap_or_else(|| "the page check did not run".to_owned());
    };
    match check.verdict {
        Verdict::Error => format!(
            "{} at {}x{}: ERROR: {}",
            check.path,
            check.viewport.0,
            check.viewport.1,
            check.error.as_deref().unwrap_or("no reason given")
        ),
        Verdict::Fail | Verdict::Pass => format!(
            "{} at {}x{}: {}, {} difference(s){}",
            check.path,
            check.viewport.0,
            check.viewport.1,
            if check.verdict == Verdict::Fail {
                "FAIL"
            } else {
                "PASS"
            },
            check.differences.len(),
            check
                .differences
                .first()
                .map(|difference| format!(": {}", difference.description))
                .unwrap_or_default()
        ),
    }
}

/// The error an attempt ended with, when it could not run.
pub(crate) fn attempt_error(attempt: &SessionReport) -> Option<String> {
    attempt.error.clone().or_else(|| {
        attempt
            .replay
            .as_ref()
            .and_then(|replay| replay.failure.as_ref())
            .map(|failure| failure.message.clone())
    })
}

/// The full account of a failure, for people (the failure's own message, several sentences).
pub(crate) fn details(test: &TestReport) -> Option<String> {
    replay_failure(test)
        .map(|failure| failure.message.clone())
        .or_else(|| {
            test.attempts
                .last()
                .and_then(|attempt| attempt.error.clone())
        })
        .or_else(|| test.check.as_ref().and_then(|check| check.error.clone()))
}

/// Where a status sorts in a report: failures first, then errors, flaky, passed, skipped.
pub(crate) fn status_rank(status: TestStatus) -> u8 {
    match status {
        TestStatus::Failed => 0,
        TestStatus::Error => 1,
        TestStatus::Flaky => 2,
        TestStatus::Passed => 3,
        TestStatus::Skipped => 4,
    }
}

/// The serde name of a unit enum value (`major`, `styling`).
pub(crate) fn serde_label(value: &impl Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        _ => String::new(),
    }
}
