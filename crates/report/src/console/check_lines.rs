//! The lines of `retrace check`: one per page as it finishes (with one per difference when it
//! failed), and one before each retry's wait.

use retrace_protocol::events::Event;
use retrace_protocol::events::PageCheck;
use retrace_protocol::events::Verdict;

/// The lines `event` makes in a check.
pub(super) fn check_lines(event: &Event) -> Vec<String> {
    match event {
        Event::TestFinished(test) => test.check.iter().map(page_line).collect(),
        Event::CheckRetryScheduled {
            path,
            viewport: (width, height),
            attempt,
            wait_ms,
            reason,
        } => vec![format!(
            "retry {path} @{width}x{height}: attempt {attempt} in {wait_ms} ms, after: {reason}"
        )],
        Event::TargetNotice { target, message } => vec![format!("  note ({target}): {message}")],
        _ => Vec::new(),
    }
}

/// `FAIL /pricing @1280x720: ...`, with one indented line per difference.
pub fn page_line(check: &PageCheck) -> String {
    let (width, height) = check.viewport;
    let head = format!(
        "{:<5} {} @{width}x{height}",
        label(check.verdict),
        check.path
    );
    let head = match &check.judge {
        Some(judge) => format!(
            "{head} (judge {}: {}{}{})",
            judge.model,
            label(judge.verdict),
            judge
                .confidence
                .map(|c| format!(", confidence {c}"))
                .unwrap_or_default(),
            if judge.cached { ", cached" } else { "" }
        ),
        None => head,
    };
    match check.verdict {
        Verdict::Pass => head,
        Verdict::Error => format!(
            "{head}: {} (after {} attempts)",
            check.error.as_deref().unwrap_or("unknown error"),
            check.attempts.len()
        ),
        Verdict::Fail => {
            let mut lines = vec![format!("{head}: {} differences", check.differences.len())];
            for d in &check.differences {
                let kind = serde_json::to_value(d.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                let change = d
                    .change
                    .and_then(|c| serde_json::to_value(c).ok())
                    .and_then(|v| v.as_str().map(|s| format!("/{s}")))
                    .unwrap_or_default();
                let place = d
                    .region
                    .map(|r| format!(" at {},{} {}x{}", r.x, r.y, r.width, r.height))
                    .unwrap_or_default();
                lines.push(format!("    {kind}{change}{place}: {}", d.description));
            }
            lines.join("\n")
        }
    }
}

fn label(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "PASS",
        Verdict::Fail => "FAIL",
        Verdict::Error => "ERROR",
    }
}
