//! The end of a session in words: what `retrace replay`, `retrace act` and `retrace demo`
//! print last, from the one [`SessionReport`] (whose serde form is the `--json` document).

use retrace_protocol::events::ReplayOutcome;
use retrace_protocol::events::ReplayStatus;
use retrace_protocol::events::SessionKind;
use retrace_protocol::events::SessionReport;
use retrace_protocol::events::SessionStatus;

/// `n thing` or `n things`.
pub fn plural(count: usize, thing: &str) -> String {
    if count == 1 {
        format!("{count} {thing}")
    } else {
        format!("{count} {thing}s")
    }
}

/// Seconds from milliseconds, two decimals.
fn seconds(ms: u64) -> String {
    format!("{:.2} s", ms as f64 / 1000.0)
}

/// The lines that end a session.
pub fn render(report: &SessionReport) -> Vec<String> {
    match (report.kind, report.status) {
        (_, SessionStatus::Error) => vec![format!(
            "ERROR {}: {}",
            report.name,
            report
                .error
                .as_deref()
                .unwrap_or("the session could not run")
        )],
        (SessionKind::Replay, _) => match &report.replay {
            Some(replay) => vec![replay_line(replay, report.wall_ms)],
            None => vec![format!("FAIL {}", report.name)],
        },
        (SessionKind::Act, _) => act_lines(report),
    }
}

/// The verdict of one replay: PASS with its counts, or FAIL at a step with why.
pub fn replay_line(replay: &ReplayOutcome, wall_ms: u64) -> String {
    let timing = format!(
        "in {} ({} replaying)",
        seconds(wall_ms),
        seconds(replay.duration_ms)
    );
    let file = replay.file.display();
    match (replay.status, &replay.failure) {
        (ReplayStatus::Passed, _) => {
            let checks: Vec<String> = replay
                .checks_passed
                .iter()
                .map(|(name, count)| plural(*count, &format!("{name} check")))
                .collect();
            let checks = if checks.is_empty() {
                "no checks".to_owned()
            } else {
                checks.join(", ")
            };
            format!(
                "PASS {file}: {} replayed, {checks} passed, {} repaired, {timing}",
                plural(replay.steps_replayed, "step"),
                replay.repairs.len()
            )
        }
        (status, Some(failure)) => {
            let verdict = if status == ReplayStatus::Paused {
                "NEEDS MODEL"
            } else {
                "FAIL"
            };
            format!(
                "{verdict} {file} at step {} ({}): {} [{} replayed, {timing}]",
                failure.step,
                failure.kind.label(),
                failure.message,
                plural(replay.steps_replayed, "step")
            )
        }
        (_, None) => format!("FAIL {file} {timing}"),
    }
}

fn act_lines(report: &SessionReport) -> Vec<String> {
    let Some(act) = &report.act else {
        return vec![format!("FAIL {}", report.name)];
    };
    let verdict = match &act.reason {
        None => "DONE".to_owned(),
        Some(reason) => format!("{}: {reason}", act.outcome.to_uppercase()),
    };
    let cost = act
        .cost_usd
        .map(|cost| format!(", about ${cost:.4}"))
        .unwrap_or_default();
    let cached = if act.usage.cache_creation_input_tokens + act.usage.cache_read_input_tokens > 0 {
        format!(
            " ({} uncached, {} written to and {} read from the prompt cache)",
            act.usage.input_tokens,
            act.usage.cache_creation_input_tokens,
            act.usage.cache_read_input_tokens
        )
    } else {
        String::new()
    };
    let mut lines = vec![
        verdict,
        format!(
            "  {}, {} input{cached} + {} output tokens{cost}, {} ({})",
            plural(act.turns, "turn"),
            act.usage.total_input(),
            act.usage.output_tokens,
            seconds(report.wall_ms),
            act.model
        ),
    ];
    if let Some(replay) = &report.replay {
        lines.push(format!("  {}", replay_line(replay, report.wall_ms)));
    }
    if let Some(path) = &act.recorded {
        lines.push(format!("  recorded {}", path.display()));
    }
    if let Some(path) = &act.previous {
        lines.push(format!(
            "  kept the previous recording as {}",
            path.display()
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use retrace_protocol::events::FailureKind;
    use retrace_protocol::events::ReplayFailure;

    use super::*;

    fn outcome(status: ReplayStatus, failure: Option<ReplayFailure>) -> ReplayOutcome {
        ReplayOutcome {
            file: "login.json".into(),
            status,
            steps_total: 3,
            steps_replayed: 2,
            checks_passed: BTreeMap::from([("effect".to_owned(), 1), ("visual".to_owned(), 2)]),
            repairs: Vec::new(),
            failure,
            checks_off: Vec::new(),
            duration_ms: 330,
        }
    }

    #[test]
    fn a_pass_counts_in_words_and_gives_both_times() {
        let line = replay_line(&outcome(ReplayStatus::Passed, None), 1200);
        assert_eq!(
            line,
            "PASS login.json: 2 steps replayed, 1 effect check, 2 visual checks passed, 0 repaired, in 1.20 s (0.33 s replaying)"
        );
    }

    #[test]
    fn a_failure_names_its_step_and_kind() {
        let failure = ReplayFailure {
            step: 3,
            kind: FailureKind::Effect,
            action: "left_click at (1, 2)".into(),
            message: "Effect check failed after step 3.".into(),
            distance: Some(20),
            threshold: Some(10),
            waited_ms: Some(10),
            expected_crop: None,
            actual_crop: None,
            actual_screen: None,
            actual_element: None,
        };
        let line = replay_line(&outcome(ReplayStatus::Failed, Some(failure)), 1200);
        assert!(
            line.starts_with("FAIL login.json at step 3 (effect): Effect check failed"),
            "{line}"
        );
    }
}
