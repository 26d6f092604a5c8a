//! A desktop window checked as a page is: two captures of the same window (a baseline run of
//! an application and a candidate run, or two builds), each the window's pixels and its
//! accessibility elements (AT-SPI), compared by the page's layers: pixels (module `pixels`),
//! boxes typed from the elements (module `classify`, through `window_tree`), then the
//! accessibility trees (module `accessibility_diff`): a renamed button, a changed text or
//! state, a named element added or gone FAILs even under the pixel tolerance.
//!
//! The caller (the runner) brings each side to its state and captures it
//! ([`WindowSource`]); [`run_window_check`] reports through the event stream as a page check
//! does (`TestStarted`, `CheckAttemptFinished`, `TestFinished` with the [`PageCheck`]). A side
//! that could not be captured (its flow failed, its window never showed) is an ERROR naming
//! the side; the other side is not compared.
//!
//! **A blinking caret** is not a difference: a changed box at most [`CARET_WIDTH`] px wide
//! inside the field that has the focus on both sides (same role and place) is taken out, the
//! baseline's pixels copied over the candidate's there, before the pixels are compared again.

use std::path::PathBuf;
use std::time::Instant;

use futures::future::LocalBoxFuture;
use retrace_protocol::element::ElementInfo;
use retrace_protocol::events::CheckAttempt;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use retrace_protocol::events::PageCheck;
use retrace_protocol::events::Verdict;

use crate::accessibility_diff;
use crate::accessibility_diff::AxChange;
use crate::cluster::PixelBox;
use crate::evidence;
use crate::pixels::Frame;
use crate::pixels::PixelComparison;
use crate::pixels::compare;
use crate::run::CheckRun;
use crate::spec::Thresholds;
use crate::spec::Viewport;
use crate::window_tree;

/// A changed box at most this wide, inside the focused field, is its caret.
pub const CARET_WIDTH: u32 = 3;

/// One side's capture: the window's pixels and, when the application publishes them, its
/// accessibility elements (boxes relative to the window).
#[derive(Debug, Clone)]
pub struct WindowShot {
    /// The window's screenshot.
    pub png: Vec<u8>,
    /// Its elements; `None`: the application publishes no accessibility tree.
    pub elements: Option<Vec<ElementInfo>>,
}

/// Brings a side (`baseline`, `candidate`) to its state and captures its window; the error
/// says why not (the side is named by the caller).
pub trait WindowSource {
    /// Captures `side`.
    fn capture<'a>(&'a self, side: &'a str) -> LocalBoxFuture<'a, Result<WindowShot, String>>;
}

/// A window check: what it is called, how it is judged, where its evidence goes.
#[derive(Debug, Clone)]
pub struct WindowCheck {
    /// The window looked for (`Probe`), the check's name.
    pub window: String,
    /// The flow both sides replay, when one does (the report's file).
    pub flow: Option<PathBuf>,
    /// The pixel thresholds.
    pub thresholds: Thresholds,
    /// Where evidence goes.
    pub out_dir: PathBuf,
    /// The command that reruns it, for the report.
    pub rerun: String,
}

impl WindowCheck {
    /// Its test id and report path: `window Probe`.
    pub fn id(&self) -> String {
        format!("window {}", self.window)
    }
}

/// Captures both sides from `source` (baseline first) and compares them; one result, reported
/// through `events`.
pub async fn run_window_check(
    check: &WindowCheck,
    source: &dyn WindowSource,
    events: &Events,
) -> CheckRun {
    let id = check.id();
    events.emit(Event::TestStarted {
        id: id.clone(),
        attempt: 1,
    });
    let started = Instant::now();
    let mut shots = Vec::new();
    let mut failed = None;
    for side in ["baseline", "candidate"] {
        match source.capture(side).await {
            Ok(shot) => shots.push(shot),
            Err(error) => {
                failed = Some(format!("{side}: {error}"));
                break;
            }
        }
    }
    let (result, viewport) = match (failed, shots.as_slice()) {
        (None, [baseline, candidate]) => compare_shots(check, baseline, candidate),
        (error, _) => {
            let error = error.unwrap_or_else(|| "a side was not captured".to_owned());
            (Attempt::error(error), (0, 0))
        }
    };
    let page = page_check(check, viewport, result, started);
    events.emit(Event::CheckAttemptFinished {
        path: page.path.clone(),
        viewport,
        attempt: Box::new(page.attempts[0].clone()),
    });
    let file = check
        .flow
        .clone()
        .unwrap_or_else(|| page.path.clone().into());
    let wall_ms = started.elapsed().as_millis() as u64;
    let report = crate::run::check_report(id, &page, file, check.rerun.clone(), wall_ms);
    events.emit(Event::TestFinished(Box::new(report)));
    CheckRun { pages: vec![page] }
}

/// What the one attempt found.
struct Attempt {
    verdict: Verdict,
    differences: Vec<retrace_protocol::events::Difference>,
    error: Option<String>,
    evidence: Vec<PathBuf>,
}

impl Attempt {
    fn error(message: String) -> Self {
        Self {
            verdict: Verdict::Error,
            differences: Vec::new(),
            error: Some(message),
            evidence: Vec::new(),
        }
    }
}

fn page_check(
    check: &WindowCheck,
    viewport: (u32, u32),
    result: Attempt,
    started: Instant,
) -> PageCheck {
    let attempt = CheckAttempt {
        attempt: 1,
        verdict: result.verdict,
        confidence: None,
        differences: result.differences.clone(),
        error: result.error.clone(),
        evidence: result.evidence.clone(),
        duration_ms: started.elapsed().as_millis() as u64,
        judge: None,
    };
    PageCheck {
        path: check.id(),
        viewport,
        verdict: result.verdict,
        confidence: None,
        differences: result.differences,
        attempts: vec![attempt],
        evidence: result.evidence,
        thresholds: serde_json::to_value(&check.thresholds).unwrap_or_default(),
        error: result.error,
        judge: None,
        timeouts: serde_json::Value::Null,
    }
}

/// Compares the two captures: the attempt, and the baseline window's size.
fn compare_shots(
    check: &WindowCheck,
    baseline: &WindowShot,
    candidate: &WindowShot,
) -> (Attempt, (u32, u32)) {
    let decoded =
        Frame::from_png(&baseline.png).and_then(|b| Ok((b, Frame::from_png(&candidate.png)?)));
    let (before, mut after) = match decoded {
        Ok(frames) => frames,
        Err(error) => return (Attempt::error(format!("a screenshot: {error}")), (0, 0)),
    };
    let size = (before.width, before.height);
    let mut comparison = compare(&before, &after, &check.thresholds);
    let carets = caret_boxes(baseline, candidate, &comparison);
    if !carets.is_empty() {
        copy_boxes(&before, &mut after, &carets);
        comparison = compare(&before, &after, &check.thresholds);
    }
    let elements = |shot: &WindowShot, frame: &Frame| {
        let elements = shot.elements.as_deref().unwrap_or_default();
        (
            window_tree::ax_tree(elements),
            window_tree::page_elements(elements, frame),
        )
    };
    let (before_tree, before_elements) = elements(baseline, &before);
    let (after_tree, after_elements) = elements(candidate, &after);
    let both_trees = baseline.elements.is_some() && candidate.elements.is_some();
    let changes: Vec<AxChange> = match comparison.identical || !both_trees {
        true => Vec::new(),
        false => {
            let side = |tree, elements| accessibility_diff::Side { tree, elements };
            let changes = accessibility_diff::diff(
                side(&before_tree, &before_elements),
                side(&after_tree, &after_elements),
            );
            accessibility_diff::within(changes, comparison.width, comparison.height)
        }
    };
    let differences = crate::page_check::typed_differences(
        &check.thresholds,
        (&before_elements, &after_elements),
        &comparison,
        &changes,
    );
    let dir = evidence::attempt_dir(
        &check.out_dir,
        &check.id(),
        Viewport {
            width: size.0,
            height: size.1,
        },
        1,
    );
    let written = evidence::write_images(&dir, &baseline.png, &candidate.png, &comparison);
    let mut paths = match written {
        Ok(paths) => paths,
        Err(error) => return (Attempt::error(format!("evidence: {error}")), size),
    };
    let verdict = match differences.is_empty() {
        true => Verdict::Pass,
        false => Verdict::Fail,
    };
    let summary = serde_json::json!({
        "window": check.window,
        "flow": check.flow,
        "size": size,
        "verdict": verdict,
        "diff_pixels": comparison.diff_pixels,
        "delta_e_pixels": comparison.delta_e_pixels,
        "size_changed": comparison.size_changed,
        "boxes": comparison.boxes,
        "carets_ignored": carets,
        "differences": differences,
        "accessibility": {
            "nodes": {"baseline": node_count(baseline), "candidate": node_count(candidate)},
            "changes": changes,
        },
        "thresholds": check.thresholds,
    });
    let json = serde_json::to_vec_pretty(&summary).unwrap_or_default();
    match evidence::write(&dir, "result.json", &json) {
        Ok(path) => paths.push(path),
        Err(error) => return (Attempt::error(format!("evidence: {error}")), size),
    }
    let attempt = Attempt {
        verdict,
        differences,
        error: None,
        evidence: paths,
    };
    (attempt, size)
}

/// How many elements a side's tree has (`None`: no tree).
fn node_count(shot: &WindowShot) -> Option<usize> {
    shot.elements.as_ref().map(Vec::len)
}

/// The changed boxes that are the focused field's caret (see the module docs).
fn caret_boxes(
    baseline: &WindowShot,
    candidate: &WindowShot,
    comparison: &PixelComparison,
) -> Vec<PixelBox> {
    let focused = |shot: &WindowShot| {
        shot.elements
            .as_ref()?
            .iter()
            .rfind(|e| e.focused && e.editable)
            .cloned()
    };
    let (Some(before), Some(after)) = (focused(baseline), focused(candidate)) else {
        return Vec::new();
    };
    let (a, b) = (before.bounds, after.bounds);
    let same = before.role == after.role
        && (a.x - b.x).abs() < 0.5
        && (a.y - b.y).abs() < 0.5
        && (a.width - b.width).abs() < 0.5
        && (a.height - b.height).abs() < 0.5;
    if !same {
        return Vec::new();
    }
    comparison
        .boxes
        .iter()
        .filter(|area| {
            area.width <= CARET_WIDTH
                && f64::from(area.x) >= a.x
                && f64::from(area.y) >= a.y
                && f64::from(area.right()) <= a.x + a.width
                && f64::from(area.bottom()) <= a.y + a.height
        })
        .copied()
        .collect()
}

/// Copies `from`'s pixels over `to`'s in `boxes` (frames of the same size; otherwise nothing).
fn copy_boxes(from: &Frame, to: &mut Frame, boxes: &[PixelBox]) {
    if (from.width, from.height) != (to.width, to.height) {
        return;
    }
    for area in boxes {
        for y in area.y..area.bottom().min(from.height) {
            let start = (y as usize * from.width as usize + area.x as usize) * 4;
            let end =
                (y as usize * from.width as usize + area.right().min(from.width) as usize) * 4;
            if let (Some(source), Some(target)) =
                (from.rgba.get(start..end), to.rgba.get_mut(start..end))
            {
                target.copy_from_slice(source);
            }
        }
    }
}

#[cfg(test)]
#[path = "window_check_tests.rs"]
mod tests;
