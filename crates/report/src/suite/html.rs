//! The HTML report (`report.html`): one self-contained file that opens offline from
//! `file://`, no CDN, no server. Its template is `crates/report/templates/report.html`
//! (minijinja, every value HTML-escaped; CSS and the slider's few lines of JS inline).
//!
//! Failures first (then errors, flaky, passed, skipped); per test the step timeline (action,
//! checks with distance/threshold, wait, repair offset, time); for a failed step the expected
//! crop, the actual crop and their pixel diff side by side and as a slider, then the final
//! screenshot, and the command that reruns the test. Images are inlined as base64 data URIs
//! and only for tests that did not pass, each bounded in size ([`MAX_CROP_BYTES`],
//! [`MAX_SCREENSHOT_BYTES`]); one too large or missing is named instead of inlined. A page
//! check that did not pass shows its baseline and candidate screenshots with the changed
//! boxes outlined (side by side, as a slider) and its diff image, its typed differences and
//! the thresholds it used (module `html_check`).

use std::path::Path;

use retrace_protocol::events::StepRecord;
use retrace_protocol::events::SuiteReport;
use retrace_protocol::events::TestReport;
use retrace_protocol::events::TestStatus;
use serde::Serialize;

use super::ReportError;
use super::ReportKind;
use super::html_images::MAX_CROP_BYTES;
pub use super::html_images::MAX_SCREENSHOT_BYTES;
use super::html_images::data_uri;
use super::html_images::inline_image;
use super::html_images::read_image;
use super::outcome;
use super::outcome::serde_label;

#[path = "html_check.rs"]
mod check_view;

/// The template, compiled into the binary.
const TEMPLATE: &str = include_str!("../../templates/report.html");

/// The largest crop decoded to compute a diff (pixels).
const MAX_DIFF_PIXELS: u64 = 1024 * 1024;

/// The report as one HTML document; artefact paths are read relative to `report_dir`.
///
/// # Errors
/// [`ReportError::Render`] if the template fails (a bug).
pub fn to_html(report: &SuiteReport, report_dir: &Path) -> Result<String, ReportError> {
    let mut tests: Vec<&TestReport> = report.tests.iter().collect();
    tests.sort_by_key(|test| outcome::status_rank(test.status));
    let page = PageView {
        name: &report.name,
        started_at: &report.started_at,
        wall: seconds(report.wall_ms),
        totals: report.totals,
        interrupted: report.interrupted,
        shard: report
            .shard
            .map(|shard| format!("shard {} of {}", shard.index, shard.total)),
        merged_shards: report.shards.len(),
        tests: tests
            .into_iter()
            .map(|test| TestView::of(test, report_dir))
            .collect(),
    };
    render(&page)
}

fn render(page: &PageView<'_>) -> Result<String, ReportError> {
    let fail = |error: minijinja::Error| ReportError::Render {
        kind: ReportKind::Html,
        message: format!("{error:#}"),
    };
    let mut environment = minijinja::Environment::new();
    environment.set_auto_escape_callback(|_| minijinja::AutoEscape::Html);
    environment
        .add_template("report.html", TEMPLATE)
        .map_err(fail)?;
    environment
        .get_template("report.html")
        .and_then(|template| template.render(minijinja::Value::from(minijinja::value::Serde(page))))
        .map_err(fail)
}

#[derive(Serialize)]
struct PageView<'a> {
    name: &'a str,
    started_at: &'a str,
    wall: String,
    totals: retrace_protocol::events::Totals,
    interrupted: bool,
    shard: Option<String>,
    merged_shards: usize,
    tests: Vec<TestView<'a>>,
}

#[derive(Serialize)]
struct TestView<'a> {
    id: &'a str,
    file: String,
    status: &'static str,
    /// Open on load: tests that did not pass.
    open: bool,
    tags: &'a [String],
    headline: Option<String>,
    details: Option<String>,
    failed_step: Option<usize>,
    rerun: &'a str,
    wall: String,
    attempts: Vec<String>,
    steps: Vec<StepView>,
    /// A page check's differences, one line each.
    differences: Vec<String>,
    evidence: Option<EvidenceView>,
    /// A page check's screenshots, diff, boxes and thresholds (tests that did not pass).
    shots: Option<check_view::ShotsView>,
    /// The time limits a page check ran under (tests that did not pass: an ERROR may be one
    /// of them running out).
    limits: Option<String>,
    final_screenshot: Option<String>,
    /// Evidence that could not be shown, and why.
    notes: Vec<String>,
}

#[derive(Serialize)]
struct StepView {
    step: usize,
    action: String,
    checks: Vec<CheckView>,
    waited: String,
    repaired: Option<String>,
    acted: Option<String>,
    error: Option<String>,
    failed: bool,
    unsettled: bool,
}

#[derive(Serialize)]
struct CheckView {
    text: String,
    passed: bool,
}

/// The failed step's crops as data URIs.
#[derive(Serialize)]
struct EvidenceView {
    expected: String,
    actual: String,
    diff: Option<String>,
}

impl<'a> TestView<'a> {
    fn of(test: &'a TestReport, report_dir: &Path) -> Self {
        let failed_step = outcome::failed_step(test);
        let passed = matches!(test.status, TestStatus::Passed | TestStatus::Flaky);
        let mut notes = Vec::new();
        let (evidence, shots, final_screenshot) = if passed || test.status == TestStatus::Skipped {
            (None, None, None)
        } else {
            (
                evidence(test, report_dir, &mut notes),
                check_view::shots(test, report_dir, &mut notes),
                test.artifacts.final_screenshot.as_ref().and_then(|path| {
                    inline_image(report_dir, path, MAX_SCREENSHOT_BYTES, &mut notes)
                }),
            )
        };
        let attempts = if test.attempts.len() > 1 {
            test.attempts
                .iter()
                .enumerate()
                .map(|(index, attempt)| {
                    format!(
                        "attempt {}: {} ({})",
                        index + 1,
                        outcome::attempt_error(attempt).unwrap_or_else(|| format!(
                            "{:?}",
                            attempt.status
                        )
                        .to_lowercase()),
                        seconds(attempt.wall_ms)
                    )
                })
                .collect()
        } else {
            Vec::new()
        };
        TestView {
            id: &test.id,
            file: test.file.display().to_string(),
            status: test.status.label(),
            open: !passed && test.status != TestStatus::Skipped,
            tags: &test.tags,
            headline: outcome::headline(test),
            details: outcome::details(test),
            failed_step,
            rerun: &test.rerun,
            wall: seconds(test.wall_ms),
            attempts,
            steps: test
                .steps
                .iter()
                .map(|step| StepView::of(step, failed_step))
                .collect(),
            differences: differences(test),
            evidence,
            shots,
            limits: test
                .check
                .as_ref()
                .filter(|_| !passed)
                .map(|check| check_view::fields_line(&check.timeouts)),
            final_screenshot,
            notes,
        }
    }
}

impl StepView {
    fn of(step: &StepRecord, failed_step: Option<usize>) -> Self {
        StepView {
            step: step.step,
            action: step.action.clone().unwrap_or_default(),
            checks: step
                .checks
                .iter()
                .map(|check| CheckView {
                    text: crate::console::check_text(check),
                    passed: check.passed,
                })
                .collect(),
            waited: seconds(step.waited_ms),
            repaired: step.repaired.map(|(dx, dy)| format!("{dx:+}, {dy:+} px")),
            acted: step.acted_ms.map(|ms| format!("{ms} ms")),
            error: step.error.clone(),
            failed: failed_step == Some(step.step) || step.checks.iter().any(|check| !check.passed),
            unsettled: step.settled == Some(false),
        }
    }
}

/// `major styling: the Save button turned grey (at 10,20 80x24)`, per difference of a page
/// check.
fn differences(test: &TestReport) -> Vec<String> {
    let Some(check) = &test.check else {
        return Vec::new();
    };
    check
        .differences
        .iter()
        .map(|difference| {
            let region = difference
                .region
                .as_ref()
                .map(|b| format!(" (at {},{} {}x{})", b.x, b.y, b.width, b.height))
                .unwrap_or_default();
            format!(
                "{} {}: {}{region}",
                serde_label(&difference.severity),
                serde_label(&difference.kind),
                difference.description
            )
        })
        .collect()
}

/// `1.50 s`.
fn seconds(ms: u64) -> String {
    format!("{:.2} s", ms as f64 / 1000.0)
}

/// The failed step's expected and actual crops, and their diff (the report's own, or one
/// computed here when both crops have one size).
fn evidence(test: &TestReport, report_dir: &Path, notes: &mut Vec<String>) -> Option<EvidenceView> {
    let artifacts = &test.artifacts;
    let (Some(expected_path), Some(actual_path)) =
        (&artifacts.expected_crop, &artifacts.actual_crop)
    else {
        return None;
    };
    let expected = read_image(report_dir, expected_path, MAX_CROP_BYTES, notes)?;
    let actual = read_image(report_dir, actual_path, MAX_CROP_BYTES, notes)?;
    let diff = match &artifacts.diff_crop {
        Some(path) => read_image(report_dir, path, MAX_CROP_BYTES, notes),
        None => pixel_diff(&expected, &actual, notes),
    };
    Some(EvidenceView {
        expected: data_uri(&expected),
        actual: data_uri(&actual),
        diff: diff.as_deref().map(data_uri),
    })
}

/// A pixelmatch diff image of two PNG crops, when both decode and have one size.
fn pixel_diff(expected: &[u8], actual: &[u8], notes: &mut Vec<String>) -> Option<Vec<u8>> {
    let decode = |bytes: &[u8]| retrace_vision::decode_png_with_limit(bytes, MAX_DIFF_PIXELS);
    let (expected, actual) = match (decode(expected), decode(actual)) {
        (Ok(expected), Ok(actual)) => (expected, actual),
        (Err(error), _) | (_, Err(error)) => {
            notes.push(format!("no pixel diff: a crop does not decode ({error})"));
            return None;
        }
    };
    match retrace_vision::diff(&expected, &actual, &retrace_vision::DiffOptions::default()) {
        retrace_vision::Diff::Pixels(diff) => {
            retrace_vision::encode_png_rgba(diff.width, diff.height, &diff.diff_image).ok()
        }
        retrace_vision::Diff::Layout { left, right } => {
            notes.push(format!(
                "no pixel diff: the crops differ in size ({}x{} and {}x{})",
                left.0, left.1, right.0, right.1
            ));
            None
        }
    }
}

#[cfg(test)]
#[path = "html_tests.rs"]
mod tests;
