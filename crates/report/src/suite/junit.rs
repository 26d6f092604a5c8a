//! The JUnit XML report (`junit.xml`) that GitLab, Jenkins, CircleCI and GitHub actions read,
//! written with `quick-junit`.
//!
//! One `<testsuite>` named after the suite; a `<testcase>` per test with `classname` (the
//! suite and the test file's folder, dotted), `name` (the test's id), `file` and `time`. A
//! mismatch is a `<failure>` whose message names the step and the distance; a test that could
//! not run is an `<error>`; a flaky test passed with a `<flakyError>` per failed attempt; a
//! skipped one is `<skipped>` with its reason. The evidence PNGs are listed as
//! `[[ATTACHMENT|path]]` lines in the test's `<system-out>` (the Jenkins attachments plugin's
//! and GitLab's convention), with the rerun command.

use std::path::Path;
use std::time::Duration;

use quick_junit::NonSuccessKind;
use quick_junit::Report;
use quick_junit::TestCase;
use quick_junit::TestCaseStatus;
use quick_junit::TestRerun;
use quick_junit::TestSuite;
use retrace_protocol::events::SuiteReport;
use retrace_protocol::events::TestReport;
use retrace_protocol::events::TestStatus;

use super::ReportError;
use super::ReportKind;
use super::outcome;

/// The report as JUnit XML. Attachment paths are `attachments_dir` joined with the artefacts'
/// paths (pass the directory the report is written to, as CI sees it).
///
/// # Errors
/// [`ReportError::Render`] if the XML could not be serialised.
pub fn to_junit(report: &SuiteReport, attachments_dir: &Path) -> Result<String, ReportError> {
    let mut suite = TestSuite::new(report.name.as_str());
    suite.set_time(Duration::from_millis(report.wall_ms));
    suite.add_test_cases(
        report
            .tests
            .iter()
            .map(|test| test_case(&report.name, test, attachments_dir)),
    );
    let mut junit = Report::new(format!("retrace: {}", report.name));
    junit.set_time(Duration::from_millis(report.wall_ms));
    junit.add_test_suite(suite);
    junit.to_string().map_err(|error| ReportError::Render {
        kind: ReportKind::Junit,
        message: error.to_string(),
    })
}

/// `suite.flows.checkout` for `flows/checkout/pay.json` in suite `suite`.
fn classname(suite: &str, test: &TestReport) -> String {
    let mut classname = suite.replace('.', "_");
    if let Some(parent) = test.file.parent() {
        for part in parent.iter() {
            let part = part.to_string_lossy();
            if part != "/" && !part.is_empty() {
                classname.push('.');
                classname.push_str(&part.replace('.', "_"));
            }
        }
    }
    classname
}

fn test_case(suite: &str, test: &TestReport, attachments_dir: &Path) -> TestCase {
    let headline = outcome::headline(test);
    let status = match test.status {
        TestStatus::Passed => TestCaseStatus::success(),
        TestStatus::Flaky => {
            let mut status = TestCaseStatus::success();
            // Every attempt but the last ended in an infrastructure error.
            let failed_attempts = test.attempts.len().saturating_sub(1);
            for (number, attempt) in test.attempts.iter().take(failed_attempts).enumerate() {
                let mut rerun = TestRerun::new(NonSuccessKind::Error);
                // No `time`: the Jenkins schema has none on reruns.
                rerun.set_type("infrastructure");
                rerun.set_message(format!(
                    "attempt {}: {}",
                    number + 1,
                    outcome::attempt_error(attempt)
                        .unwrap_or_else(|| "an error without a recorded reason".to_owned())
                ));
                status.add_rerun(rerun);
            }
            status
        }
        TestStatus::Failed | TestStatus::Error => {
            let kind = if test.status == TestStatus::Failed {
                NonSuccessKind::Failure
            } else {
                NonSuccessKind::Error
            };
            let mut status = TestCaseStatus::non_success(kind);
            if let Some(headline) = &headline {
                status.set_message(headline.as_str());
            }
            let ty = match outcome::replay_failure(test) {
                Some(failure) => failure.kind.label(),
                None if test.status == TestStatus::Failed && test.check.is_some() => {
                    "visual_difference"
                }
                None if test.status == TestStatus::Failed => "mismatch",
                None => "infrastructure",
            };
            status.set_type(ty);
            if let Some(details) = outcome::details(test) {
                status.set_description(details);
            }
            status
        }
        TestStatus::Skipped => {
            let mut status = TestCaseStatus::skipped();
            if let Some(headline) = &headline {
                status.set_message(headline.as_str());
            }
            status
        }
    };
    let mut case = TestCase::new(test.id.as_str(), status);
    case.set_classname(classname(suite, test));
    case.set_time(Duration::from_millis(test.wall_ms));
    case.extra
        .insert("file".into(), test.file.to_string_lossy().as_ref().into());
    let system_out = system_out(test, attachments_dir);
    if !system_out.is_empty() {
        case.set_system_out(system_out);
    }
    case
}

/// The rerun command and an `[[ATTACHMENT|path]]` line per evidence image.
fn system_out(test: &TestReport, attachments_dir: &Path) -> String {
    let mut lines = Vec::new();
    if !test.rerun.is_empty() && test.status != TestStatus::Passed {
        lines.push(format!("rerun: {}", test.rerun));
    }
    let artifacts = &test.artifacts;
    let images = [
        &artifacts.expected_crop,
        &artifacts.actual_crop,
        &artifacts.diff_crop,
        &artifacts.final_screenshot,
    ];
    let check_images = artifacts
        .other
        .iter()
        .filter(|path| path.extension().is_some_and(|ext| ext == "png"));
    for path in images.into_iter().flatten().chain(check_images) {
        lines.push(format!(
            "[[ATTACHMENT|{}]]",
            attachments_dir.join(path).display()
        ));
    }
    lines.join("\n")
}

#[cfg(test)]
#[path = "junit_tests.rs"]
mod tests;
