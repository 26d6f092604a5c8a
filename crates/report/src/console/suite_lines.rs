//! The lines of a suite (`retrace run`): one per finished test, and one per retry.

use retrace_protocol::events::Event;
use retrace_protocol::events::TestReport;
use retrace_protocol::events::TestStatus;

/// One line for a finished test: its status, id, time, and why when it did not pass.
pub fn test_line(test: &TestReport) -> String {
    let seconds = test.wall_ms as f64 / 1000.0;
    let why = match test.status {
        TestStatus::Passed => String::new(),
        TestStatus::Flaky => format!(" (passed on attempt {})", test.attempts.len()),
        TestStatus::Failed => {
            let failure = test
                .attempts
                .last()
                .and_then(|attempt| attempt.replay.as_ref())
                .and_then(|replay| replay.failure.as_ref());
            match failure {
                Some(failure) => format!(": step {} {}", failure.step, failure.message),
                None => String::new(),
            }
        }
        TestStatus::Error => {
            let error = test
                .attempts
                .last()
                .and_then(|attempt| attempt.error.as_deref());
            format!(": {}", error.unwrap_or("could not run"))
        }
        TestStatus::Skipped => format!(": {}", test.skip_reason.as_deref().unwrap_or("skipped")),
    };
    format!(
        "{:<7} {} ({seconds:.1} s){why}",
        test.status.label(),
        test.id
    )
}

/// The lines `event` makes in a suite.
pub(super) fn suite_lines(event: &Event) -> Vec<String> {
    match event {
        Event::TestStarted { id, attempt } if *attempt > 1 => {
            vec![format!("retry   {id} (attempt {attempt})")]
        }
        Event::TestFinished(test) => vec![test_line(test)],
        Event::TargetNotice { target, message } => vec![format!("  note ({target}): {message}")],
        _ => Vec::new(),
    }
}
