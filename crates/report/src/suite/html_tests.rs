#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

use std::path::PathBuf;

use super::*;

use crate::suite::sample;

fn mix(tests: usize, failed: usize) -> sample::Mix {
    sample::Mix {
        tests,
        failed,
        error: 1,
        flaky: 1,
        skipped: 1,
    }
}

/// Where each test's `<details>` opens, by status, in document order.
fn statuses_in_order(html: &str) -> Vec<String> {
    html.match_indices("<details class=\"test\" data-status=\"")
        .map(|(at, prefix)| {
            let rest = &html[at + prefix.len()..];
            rest[..rest.find('"').unwrap()].to_owned()
        })
        .collect()
}

#[test]
fn failures_come_first_with_their_evidence_inlined_and_passes_without_images() {
    let dir = tempfile::tempdir().unwrap();
    let report = sample::report(dir.path(), mix(8, 2));
    // The run order puts passes first.
    assert_eq!(report.tests[0].status, TestStatus::Passed);
    let html = to_html(&report, dir.path()).unwrap();
    assert_eq!(
        statuses_in_order(&html),
        [
            "failed", "failed", "error", "flaky", "passed", "passed", "passed", "skipped"
        ]
    );
    // Per failure: expected, actual, computed diff, the two slider images and the final
    // screenshot; nothing for the others.
    assert_eq!(html.matches("src=\"data:image/png;base64,").count(), 2 * 6);
    assert_eq!(html.matches("class=\"crop diff\"").count(), 2);
    assert_eq!(html.matches("class=\"screenshot\"").count(), 2);
    // minijinja escapes `/` too (`&#x2f;`): the browser shows the text as written.
    let text = html.replace("&#x2f;", "/");
    assert!(text.contains(
        "<span class=\"headline\">step 3 (left_click at (220, 311)): mismatch, distance 26 &gt; 10</span>"
    ));
    assert!(text.contains("retrace replay flows/flow-"));
    assert!(text.contains("+4, -3 px"), "the repair offset is shown");
    assert!(text.contains("visual 26/10 MISMATCH"));
    // Nothing is fetched: no attribute points anywhere but into the document.
    for attribute in ["src=\"", "href=\""] {
        for (at, _) in html.match_indices(attribute) {
            let value = &html[at + attribute.len()..];
            assert!(
                value.starts_with("data:image/"),
                "{}",
                &value[..40.min(value.len())]
            );
        }
    }
    assert!(!html.contains("@import") && !html.contains("url("));
}

#[test]
fn every_user_string_is_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let mut report = sample::report(dir.path(), mix(4, 1));
    let hostile = "<script>alert('x')</script>";
    report.name = format!("suite {hostile}");
    for test in &mut report.tests {
        test.id = format!("{hostile}.json");
        test.file = PathBuf::from(format!("{hostile}.json"));
        test.tags = vec![hostile.to_owned()];
        test.rerun = format!("retrace replay '{hostile}'");
        for step in &mut test.steps {
            step.action = Some(format!("type {hostile}"));
            step.error = Some(hostile.to_owned());
        }
    }
    report.tests[0].skip_reason = Some(hostile.to_owned());
    let html = to_html(&report, dir.path()).unwrap();
    // The template's own script is the only one.
    assert_eq!(html.matches("<script").count(), 1, "{html}");
    assert!(html.contains("&lt;script&gt;alert("));
    assert!(!html.contains("alert('x')"), "quotes are escaped too");
}

#[test]
fn a_missing_or_oversized_evidence_file_is_named_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let report = sample::report(dir.path(), mix(5, 1));
    let failed = report
        .tests
        .iter()
        .find(|test| test.status == TestStatus::Failed)
        .unwrap();
    let artifacts = &failed.artifacts;
    std::fs::remove_file(dir.path().join(artifacts.expected_crop.as_ref().unwrap())).unwrap();
    let final_screen = dir
        .path()
        .join(artifacts.final_screenshot.as_ref().unwrap());
    std::fs::write(
        &final_screen,
        vec![0x89; (MAX_SCREENSHOT_BYTES + 1) as usize],
    )
    .unwrap();
    let html = to_html(&report, dir.path()).unwrap();
    assert!(!html.contains("data:image/png"));
    assert!(html.contains("expected.png: No such file"), "{html}");
    assert!(html.contains("final.png: not inlined"), "{html}");
}

#[test]
fn five_hundred_tests_with_ten_failures_stay_under_20_mb() {
    let dir = tempfile::tempdir().unwrap();
    let report = sample::report(dir.path(), mix(500, 10));
    let written = super::super::write_reports(&report, &[ReportKind::Html], dir.path()).unwrap();
    let size = std::fs::metadata(&written[0]).unwrap().len();
    eprintln!("report.html of 500 tests, 10 failures: {} KB", size / 1024);
    assert!(size < 20 * 1024 * 1024, "{size} bytes");
    // Each failure carries a full screenshot: the bound is not met by leaving them out.
    let html = std::fs::read_to_string(&written[0]).unwrap();
    assert_eq!(html.matches("class=\"screenshot\"").count(), 10);
    assert_eq!(statuses_in_order(&html).len(), 500);
}

#[test]
fn a_page_check_shows_its_verdict_and_differences() {
    let dir = tempfile::tempdir().unwrap();
    let mut report = sample::report(
        dir.path(),
        sample::Mix {
            tests: 1,
            ..sample::Mix::default()
        },
    );
    report.tests.push(sample::page_check_test());
    let html = to_html(&report, dir.path()).unwrap().replace("&#x2f;", "/");
    assert_eq!(statuses_in_order(&html), ["failed", "passed"]);
    assert!(
        html.contains("/settings at 1280x800: FAIL, 1 difference(s)"),
        "{html}"
    );
    assert!(
        html.contains("<li>major styling: the Save button turned grey (at 10,20 80x24)</li>"),
        "{html}"
    );
}
