//! Turning a test's attempts into its [`TestReport`]: the status rule (a mismatch fails and
//! is never retried; an infrastructure error is retried, and a pass after one is flaky), the
//! failed 1-based step, and the command that reruns the test alone.

use std::path::PathBuf;
use std::time::Duration;

use retrace_protocol::events::Artifacts;
use retrace_protocol::events::SessionReport;
use retrace_protocol::events::SessionStatus;
use retrace_protocol::events::StepRecord;
use retrace_protocol::events::TestKind;
use retrace_protocol::events::TestReport;
use retrace_protocol::events::TestStatus;

use super::plan::PARAM_ENV_PREFIX;
use super::plan::TestPlan;

/// Whether an attempt that ended so is worth another: only infrastructure errors (a browser
/// that crashed or could not start, a page that did not load, a lost session) are.
pub fn is_retryable(attempt: &SessionReport) -> bool {
    attempt.status == SessionStatus::Error
}

/// The report of a test that ran `attempts` (at least one), the last one's `steps`.
pub fn ran(
    plan: &TestPlan,
    attempts: Vec<SessionReport>,
    steps: Vec<StepRecord>,
    artifacts: Artifacts,
    wall: Duration,
) -> TestReport {
    let last = attempts.last();
    let status = match last.map(|attempt| attempt.status) {
        Some(SessionStatus::Passed) if attempts.len() > 1 => TestStatus::Flaky,
        Some(SessionStatus::Passed) => TestStatus::Passed,
        Some(SessionStatus::Failed) => TestStatus::Failed,
        Some(SessionStatus::Error) | None => TestStatus::Error,
    };
    let step = (status == TestStatus::Failed)
        .then(|| {
            last.and_then(|attempt| attempt.replay.as_ref())
                .and_then(|replay| replay.failure.as_ref())
                .map(|failure| failure.step)
        })
        .flatten();
    TestReport {
        step,
        attempts,
        steps,
        artifacts,
        wall_ms: u64::try_from(wall.as_millis()).unwrap_or(u64::MAX),
        ..base(plan, status)
    }
}

/// The report of a test that did not run, and why.
pub fn skipped(plan: &TestPlan, reason: impl Into<String>) -> TestReport {
    TestReport {
        skip_reason: Some(reason.into()),
        ..base(plan, TestStatus::Skipped)
    }
}

/// The report of a test that cannot run as planned (no url, a missing parameter): an error
/// with no attempt.
pub fn unrunnable(plan: &TestPlan, problem: &str) -> TestReport {
    let mut attempt = SessionReport::new(
        retrace_protocol::events::SessionKind::Replay,
        plan.shown_file(),
    );
    attempt.status = SessionStatus::Error;
    attempt.url.clone_from(&plan.url);
    attempt.error = Some(format!("{}: {problem}", plan.shown_file()));
    TestReport {
        attempts: vec![attempt],
        ..base(plan, TestStatus::Error)
    }
}

fn base(plan: &TestPlan, status: TestStatus) -> TestReport {
    TestReport {
        id: plan.id.clone(),
        kind: TestKind::Replay,
        file: plan
            .origin
            .as_ref()
            .map_or_else(|| plan.file.clone(), PathBuf::from),
        status,
        tags: plan.tags.clone(),
        skip_reason: None,
        step: None,
        attempts: Vec::new(),
        steps: Vec::new(),
        check: None,
        artifacts: Artifacts::default(),
        rerun: rerun_command(plan),
        wall_ms: 0,
    }
}

/// `retrace replay FILE --url URL ...` with the test's settings. Secret values are never
/// spelled out: the shell reads them from the variable the run read them from
/// (`RETRACE_PARAM_<NAME>` when they came from a flag).
pub fn rerun_command(plan: &TestPlan) -> String {
    let mut words = vec![
        "retrace".to_owned(),
        "replay".to_owned(),
        quote(&plan.shown_file()),
    ];
    if let Some(url) = &plan.url {
        words.push(format!("--url {}", quote(url)));
    }
    if let Some((width, height)) = plan.size {
        words.push(format!("--size {width}x{height}"));
    }
    words.push(format!("--threshold {}", plan.settings.threshold));
    for (name, value) in plan.parameters.pairs() {
        let shown = if !plan.parameters.is_secret(name) {
            quote(&format!("{name}={value}"))
        } else {
            let variable = plan
                .parameter_vars
                .get(name)
                .cloned()
                .unwrap_or_else(|| format!("{PARAM_ENV_PREFIX}{}", name.to_uppercase()));
            format!("\"{name}=${variable}\"")
        };
        words.push(format!("--param {shown}"));
    }
    words.join(" ")
}

/// `text` single-quoted for a POSIX shell when it needs quoting.
fn quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
#[path = "test_report_tests.rs"]
mod tests;
