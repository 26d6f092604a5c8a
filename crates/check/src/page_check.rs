//! One page at one viewport, to a strict verdict: each attempt captures both sides in a fresh
//! browser context (baseline first, then candidate), compares them and types what differs;
//! any difference above the thresholds, or a console error only the candidate logged, is a
//! FAIL; a side that did not load, get ready or hold still is an ERROR, retried after the
//! configured backoff (a FAIL never is). Every attempt is logged as a `CheckAttemptFinished`
//! event with its evidence.

use std::path::PathBuf;
use std::time::Instant;

use retrace_drive::chromium::ChromiumBrowser;
use retrace_protocol::events::ChangeKind;
use retrace_protocol::events::CheckAttempt;
use retrace_protocol::events::Difference;
use retrace_protocol::events::DifferenceKind;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use retrace_protocol::events::PageCheck;
use retrace_protocol::events::Severity;
use retrace_protocol::events::Verdict;

use crate::capture::Capture;
use crate::capture::CaptureError;
use crate::capture::capture;
use crate::classify::classify;
use crate::evidence;
use crate::pixels::PixelComparison;
use crate::pixels::compare;
use crate::spec::CheckSpec;
use crate::spec::Viewport;

/// What one attempt found.
struct AttemptResult {
    verdict: Verdict,
    differences: Vec<Difference>,
    error: Option<String>,
    evidence: Vec<PathBuf>,
}

impl AttemptResult {
    fn error(message: String, evidence: Vec<PathBuf>) -> Self {
        Self {
            verdict: Verdict::Error,
            differences: Vec::new(),
            error: Some(message),
            evidence,
        }
    }
}

/// Checks `path` at `viewport` in `browser` (launched at that viewport), with retries.
pub async fn check_page(
    browser: &ChromiumBrowser,
    spec: &CheckSpec,
    path: &str,
    viewport: Viewport,
    events: &Events,
) -> PageCheck {
    let mut attempts: Vec<CheckAttempt> = Vec::new();
    let mut last: Option<AttemptResult> = None;
    for attempt in 1..=spec.retry.retries.saturating_add(1) {
        if attempt > 1 {
            tokio::time::sleep(spec.retry.backoff(attempt - 1)).await;
        }
        let started = Instant::now();
        let result = one_attempt(browser, spec, path, viewport, attempt).await;
        let record = CheckAttempt {
            attempt,
            verdict: result.verdict,
            confidence: None,
            differences: result.differences.clone(),
            error: result.error.clone(),
            evidence: result.evidence.clone(),
            duration_ms: started.elapsed().as_millis() as u64,
        };
        events.emit(Event::CheckAttemptFinished {
            path: path.to_owned(),
            viewport: (viewport.width, viewport.height),
            attempt: Box::new(record.clone()),
        });
        attempts.push(record);
        let retry = result.verdict == Verdict::Error;
        last = Some(result);
        if !retry {
            break;
        }
    }
    let last = last.unwrap_or_else(|| AttemptResult::error("no attempt ran".to_owned(), vec![]));
    PageCheck {
        path: path.to_owned(),
        viewport: (viewport.width, viewport.height),
        verdict: last.verdict,
        confidence: None,
        differences: last.differences,
        attempts,
        evidence: last.evidence,
        thresholds: serde_json::to_value(&spec.thresholds).unwrap_or_default(),
        error: last.error,
    }
}

/// The ERROR of a page that could not be compared at all (the environment is not the stored
/// baseline's): no attempt made.
pub fn refused(spec: &CheckSpec, path: &str, viewport: Viewport, reason: &str) -> PageCheck {
    PageCheck {
        path: path.to_owned(),
        viewport: (viewport.width, viewport.height),
        verdict: Verdict::Error,
        confidence: None,
        differences: Vec::new(),
        attempts: Vec::new(),
        evidence: Vec::new(),
        thresholds: serde_json::to_value(&spec.thresholds).unwrap_or_default(),
        error: Some(reason.to_owned()),
    }
}

async fn one_attempt(
    browser: &ChromiumBrowser,
    spec: &CheckSpec,
    path: &str,
    viewport: Viewport,
    attempt: u32,
) -> AttemptResult {
    let dir = evidence::attempt_dir(&spec.out_dir, path, viewport, attempt);
    let run = browser.new_run();
    let mut sides = Vec::new();
    if let Some(dir) = spec.stored_baseline() {
        match crate::baseline::stored_capture(dir, path, viewport) {
            Ok(stored) => sides.push(stored),
            Err(error) => return AttemptResult::error(format!("baseline: {error}"), vec![]),
        }
    }
    for (side, base) in [("baseline", &spec.baseline), ("candidate", &spec.candidate)] {
        if side == "baseline" && spec.stored_baseline().is_some() {
            continue;
        }
        match capture(&run, &CheckSpec::url(base, path), spec).await {
            Ok(captured) => sides.push(captured),
            Err(error) => {
                let kept = keep_unstable_frames(&dir, side, &error);
                return AttemptResult::error(format!("{side}: {error}"), kept);
            }
        }
    }
    drop(run);
    let (Some(candidate), Some(baseline)) = (sides.pop(), sides.pop()) else {
        return AttemptResult::error("a side was not captured".to_owned(), vec![]);
    };
    let thresholds = spec.thresholds.clone();
    let compared = tokio::task::spawn_blocking(move || {
        let comparison = compare(&baseline.frame, &candidate.frame, &thresholds);
        (baseline, candidate, comparison)
    })
    .await;
    let Ok((baseline, candidate, comparison)) = compared else {
        return AttemptResult::error("the comparison panicked".to_owned(), vec![]);
    };
    let differences = differences(spec, &baseline, &candidate, &comparison);
    let written = evidence::write_images(&dir, &baseline.png, &candidate.png, &comparison);
    let mut evidence = match written {
        Ok(paths) => paths,
        Err(error) => return AttemptResult::error(format!("evidence: {error}"), vec![]),
    };
    let verdict = if differences.is_empty() {
        Verdict::Pass
    } else {
        Verdict::Fail
    };
    let summary = serde_json::json!({
        "path": path,
        "viewport": viewport,
        "verdict": verdict,
        "diff_pixels": comparison.diff_pixels,
        "delta_e_pixels": comparison.delta_e_pixels,
        "size_changed": comparison.size_changed,
        "boxes": comparison.boxes,
        "differences": differences,
        "console_errors": {"baseline": baseline.console_errors, "candidate": candidate.console_errors},
        "shots": {"baseline": baseline.shots, "candidate": candidate.shots},
        "thresholds": spec.thresholds,
    });
    let json = serde_json::to_vec_pretty(&summary).unwrap_or_default();
    match evidence::write(&dir, "result.json", &json) {
        Ok(path) => evidence.push(path),
        Err(error) => return AttemptResult::error(format!("evidence: {error}"), evidence),
    }
    AttemptResult {
        verdict,
        differences,
        error: None,
        evidence,
    }
}

/// The typed differences: pixel boxes (when above the thresholds), a changed page size, and
/// console errors only the candidate logged.
fn differences(
    spec: &CheckSpec,
    baseline: &Capture,
    candidate: &Capture,
    comparison: &PixelComparison,
) -> Vec<Difference> {
    let mut found = Vec::new();
    if comparison.exceeds(&spec.thresholds) {
        if let Some((before, after)) = comparison.size_changed {
            found.push(Difference {
                kind: DifferenceKind::Layout,
                severity: Severity::Major,
                description: format!(
                    "the page is {}x{} instead of {}x{}",
                    after.0, after.1, before.0, before.1
                ),
                region: None,
                change: Some(ChangeKind::PageSize),
            });
        }
        for area in &comparison.boxes {
            found.push(classify(area, &baseline.elements, &candidate.elements));
        }
    }
    for message in &candidate.console_errors {
        if !baseline.console_errors.contains(message) {
            found.push(Difference {
                kind: DifferenceKind::ConsoleError,
                severity: Severity::Major,
                description: message.clone(),
                region: None,
                change: Some(ChangeKind::ConsoleError),
            });
        }
    }
    found
}

/// Writes the last two frames of a side that never held still, as evidence.
fn keep_unstable_frames(dir: &std::path::Path, side: &str, error: &CaptureError) -> Vec<PathBuf> {
    let CaptureError::Unstable { last_two, .. } = error else {
        return Vec::new();
    };
    last_two
        .iter()
        .enumerate()
        .filter_map(|(i, png)| {
            evidence::write(dir, &format!("{side}-unstable-{}.png", i + 1), png).ok()
        })
        .collect()
}
