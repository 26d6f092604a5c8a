//! One page at one viewport, to a strict verdict: each attempt captures each side in a fresh
//! browser context of its own (baseline first, then candidate; cookies ignore ports, so one
//! context for both would hand the baseline's cookies to a candidate on the same host),
//! compares them and types what differs;
//! any difference above the thresholds, or a console error only the candidate logged, is a
//! FAIL; a side that did not load, get ready or hold still is an ERROR, retried after the
//! configured backoff (a FAIL never is, nor a signed-in side sent to another page: the same
//! state would be sent there again). When a model judge is given and the differences
//! call for it (module `judge`), its judgement decides between them: its ERROR is retried
//! like any other. A page has `timeouts.page_ms` for all its attempts and backoffs (less when
//! the run's `timeouts.run_ms` ends first). Every attempt is logged as a
//! `CheckAttemptFinished` event with its verdict, the judge's confidence and differences, and
//! its evidence; every backoff as a `CheckRetryScheduled` event (the attempt to come, the
//! wait, the ERROR before it) emitted before the wait.

use std::path::PathBuf;
use std::time::Duration;
use std::time::Instant;

use retrace_drive::chromium::ChromiumBrowser;
use retrace_llm::VlmProvider;
use retrace_protocol::events::ChangeKind;
use retrace_protocol::events::CheckAttempt;
use retrace_protocol::events::Difference;
use retrace_protocol::events::DifferenceKind;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use retrace_protocol::events::JudgeRecord;
use retrace_protocol::events::PageCheck;
use retrace_protocol::events::Severity;
use retrace_protocol::events::Verdict;

use crate::accessibility_diff;
use crate::accessibility_diff::AxChange;
use crate::capture::Capture;
use crate::capture::CaptureError;
use crate::capture::capture;
use crate::classify::classify_with_accessibility;
use crate::evidence;
use crate::judge;
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
    judge: Option<JudgeRecord>,
    /// An ERROR another attempt would meet again (a signed-in side sent to its login page).
    lasting: bool,
}

impl AttemptResult {
    fn error(message: String, evidence: Vec<PathBuf>) -> Self {
        Self {
            verdict: Verdict::Error,
            differences: Vec::new(),
            error: Some(message),
            evidence,
            judge: None,
            lasting: false,
        }
    }
}

/// What a page check may use: the browser, the spec, the judge (when one is given), and the
/// run's end.
#[derive(Clone, Copy)]
pub struct PageContext<'a> {
    /// Launched at the viewport checked.
    pub browser: &'a ChromiumBrowser,
    /// The check.
    pub spec: &'a CheckSpec,
    /// The model judge.
    pub judge: Option<&'a dyn VlmProvider>,
    /// When the run's `timeouts.run_ms` ends.
    pub run_deadline: tokio::time::Instant,
    /// Each side's signed-in state, when the check signs in (module `login`).
    pub(crate) states: Option<&'a crate::login::SideStates>,
}

/// The earlier of the page's own limit and the run's, and the sentence naming it.
fn page_deadline(context: &PageContext<'_>) -> (tokio::time::Instant, String) {
    let timeouts = &context.spec.timeouts;
    let own = tokio::time::Instant::now() + Duration::from_millis(timeouts.page_ms);
    if own <= context.run_deadline {
        let why = format!(
            "the page ran out of time: timeouts.page_ms ({} ms)",
            timeouts.page_ms
        );
        (own, why)
    } else {
        let why = format!(
            "the run ran out of time: timeouts.run_ms ({} ms)",
            timeouts.run_ms
        );
        (context.run_deadline, why)
    }
}

/// Checks `path` at `viewport` in the context's browser (launched at that viewport), with
/// retries, within the page's time.
pub async fn check_page(
    context: PageContext<'_>,
    path: &str,
    viewport: Viewport,
    events: &Events,
) -> PageCheck {
    let spec = context.spec;
    let (deadline, out_of_time) = page_deadline(&context);
    let mut attempts: Vec<CheckAttempt> = Vec::new();
    let mut last: Option<AttemptResult> = None;
    for attempt in 1..=spec.retry.retries.saturating_add(1) {
        if attempt > 1 {
            let wait = spec.retry.backoff(attempt - 1);
            if tokio::time::Instant::now() + wait >= deadline {
                break;
            }
            let reason = last.as_ref().and_then(|r| r.error.clone());
            events.emit(Event::CheckRetryScheduled {
                path: path.to_owned(),
                viewport: (viewport.width, viewport.height),
                attempt,
                wait_ms: wait.as_millis() as u64,
                reason: reason.unwrap_or_default(),
            });
            tokio::time::sleep(wait).await;
        }
        let started = Instant::now();
        let attempted = one_attempt(context, path, viewport, attempt);
        let (result, timed_out) = match tokio::time::timeout_at(deadline, attempted).await {
            Ok(result) => (result, false),
            Err(_) => (AttemptResult::error(out_of_time.clone(), vec![]), true),
        };
        let record = CheckAttempt {
            attempt,
            verdict: result.verdict,
            confidence: result.judge.as_ref().and_then(|j| j.confidence),
            differences: result.differences.clone(),
            error: result.error.clone(),
            evidence: result.evidence.clone(),
            duration_ms: started.elapsed().as_millis() as u64,
            judge: result.judge.clone(),
        };
        events.emit(Event::CheckAttemptFinished {
            path: path.to_owned(),
            viewport: (viewport.width, viewport.height),
            attempt: Box::new(record.clone()),
        });
        attempts.push(record);
        let retry = result.verdict == Verdict::Error && !timed_out && !result.lasting;
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
        confidence: last.judge.as_ref().and_then(|j| j.confidence),
        differences: last.differences,
        attempts,
        evidence: last.evidence,
        thresholds: serde_json::to_value(&spec.thresholds).unwrap_or_default(),
        error: last.error,
        judge: last.judge,
        timeouts: serde_json::to_value(&spec.timeouts).unwrap_or_default(),
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
        judge: None,
        timeouts: serde_json::to_value(&spec.timeouts).unwrap_or_default(),
    }
}

async fn one_attempt(
    context: PageContext<'_>,
    path: &str,
    viewport: Viewport,
    attempt: u32,
) -> AttemptResult {
    let spec = context.spec;
    let dir = evidence::attempt_dir(&spec.out_dir, path, viewport, attempt);
    let masks = spec.masks_for(path);
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
        let run = context.browser.new_run();
        let url = CheckSpec::url(base, path);
        let ready = spec.ready_selector_for(path);
        let signed_in = context.states.and_then(|states| {
            let state = states.of(side)?;
            Some(crate::capture::SignedIn { state, base })
        });
        let captured = capture(&run, &url, &masks, ready, spec, signed_in).await;
        if let Err(error) = run.close().await {
            tracing::debug!(%error, side, "closing a side's browser context");
        }
        match captured {
            Ok(captured) => sides.push(captured),
            Err(error) => {
                let kept = keep_unstable_frames(&dir, side, &error);
                let lasting = matches!(error, CaptureError::NotSignedIn { .. });
                let mut result = AttemptResult::error(format!("{side}: {error}"), kept);
                result.lasting = lasting;
                return result;
            }
        }
    }
    let (Some(candidate), Some(baseline)) = (sides.pop(), sides.pop()) else {
        return AttemptResult::error("a side was not captured".to_owned(), vec![]);
    };
    let thresholds = spec.thresholds.clone();
    let compared = tokio::task::spawn_blocking(move || {
        let comparison = compare(&baseline.frame, &candidate.frame, &thresholds);
        let accessibility = accessibility_changes(&baseline, &candidate, &comparison);
        (baseline, candidate, comparison, accessibility)
    })
    .await;
    let Ok((baseline, candidate, comparison, accessibility)) = compared else {
        return AttemptResult::error("the comparison panicked".to_owned(), vec![]);
    };
    let changes = accessibility.as_deref().unwrap_or_default();
    let found = differences(spec, &baseline, &candidate, &comparison, changes);
    let written = evidence::write_images(&dir, &baseline.png, &candidate.png, &comparison);
    let mut evidence = match written {
        Ok(paths) => paths,
        Err(error) => return AttemptResult::error(format!("evidence: {error}"), vec![]),
    };
    let judged = match context.judge {
        Some(provider) if judge::should_ask(&spec.judge, &comparison, &found) => {
            let diff_png = evidence
                .iter()
                .find(|p| p.ends_with("diff.png"))
                .and_then(|p| std::fs::read(p).ok());
            let structural = serde_json::json!({
                "diff_pixels": comparison.diff_pixels,
                "page_pixels": u64::from(comparison.width) * u64::from(comparison.height),
                "size_changed": comparison.size_changed,
                "differences": found,
                "accessibility_changes": accessibility,
            });
            let inputs = judge::JudgeInputs {
                baseline_png: &baseline.png,
                candidate_png: &candidate.png,
                diff_png: diff_png.as_deref(),
                structural: &structural,
                masks: &masks,
            };
            let over = judge::over_ceiling(&comparison, &spec.judge);
            Some(judge::ask(provider, spec, &inputs, over).await)
        }
        _ => None,
    };
    let (verdict, differences, error) = match &judged {
        Some(judged) => judge::combine(judged, found),
        None if found.is_empty() => (Verdict::Pass, found, None),
        None => (Verdict::Fail, found, None),
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
        "accessibility": {
            "nodes": {
                "baseline": baseline.accessibility.as_ref().map(|t| t.nodes.len()),
                "candidate": candidate.accessibility.as_ref().map(|t| t.nodes.len()),
            },
            "changes": accessibility,
        },
        "console_errors": {"baseline": baseline.console_errors, "candidate": candidate.console_errors},
        "shots": {"baseline": baseline.shots, "candidate": candidate.shots},
        "thresholds": spec.thresholds,
        "judge": judged,
        "error": error,
    });
    let json = serde_json::to_vec_pretty(&summary).unwrap_or_default();
    match evidence::write(&dir, "result.json", &json) {
        Ok(path) => evidence.push(path),
        Err(error) => return AttemptResult::error(format!("evidence: {error}"), evidence),
    }
    AttemptResult {
        verdict,
        differences,
        error,
        evidence,
        judge: judged,
        lasting: false,
    }
}

/// What changed in the accessibility tree (module `accessibility_diff`) inside the
/// screenshots, when they differ (identical bytes are a PASS with no further work) and both
/// sides' trees were read.
fn accessibility_changes(
    baseline: &Capture,
    candidate: &Capture,
    comparison: &PixelComparison,
) -> Option<Vec<AxChange>> {
    if comparison.identical {
        return None;
    }
    let changes = accessibility_diff::diff(
        accessibility_side(baseline)?,
        accessibility_side(candidate)?,
    );
    Some(accessibility_diff::within(
        changes,
        comparison.width,
        comparison.height,
    ))
}

/// A captured side's accessibility tree and elements, when its tree was read.
fn accessibility_side(capture: &Capture) -> Option<accessibility_diff::Side<'_>> {
    let tree = capture.accessibility.as_ref()?;
    Some(accessibility_diff::Side {
        tree,
        elements: &capture.elements,
    })
}

/// The typed differences: pixel boxes (when above the thresholds), a changed page size, the
/// accessibility tree's text and structure changes no box covers (whatever the pixels'
/// tolerance), and console errors only the candidate logged.
fn differences(
    spec: &CheckSpec,
    baseline: &Capture,
    candidate: &Capture,
    comparison: &PixelComparison,
    accessibility: &[AxChange],
) -> Vec<Difference> {
    let mut found = typed_differences(
        &spec.thresholds,
        (&baseline.elements, &candidate.elements),
        comparison,
        accessibility,
    );
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

/// The pixel boxes (when above the thresholds) typed from both sides' elements, a changed
/// size, and the accessibility tree's counting changes no box covers (whatever the pixels'
/// tolerance): what a page and a desktop window (module `window_check`) share.
pub(crate) fn typed_differences(
    thresholds: &crate::spec::Thresholds,
    (baseline, candidate): (
        &[crate::elements::PageElement],
        &[crate::elements::PageElement],
    ),
    comparison: &PixelComparison,
    accessibility: &[AxChange],
) -> Vec<Difference> {
    let mut found = Vec::new();
    if comparison.exceeds(thresholds) {
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
            found.push(classify_with_accessibility(
                area,
                baseline,
                candidate,
                accessibility,
            ));
        }
    }
    let unreported = accessibility_diff::unreported(accessibility, &found);
    found.extend(unreported);
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
