#![allow(clippy::unwrap_used, clippy::expect_used)]

use pretty_assertions::assert_eq;
use retrace_protocol::events::TestStatus;

use super::*;

use crate::suite::sample;

fn finished_without_tests(report: &SuiteReport) -> SuiteReport {
    SuiteReport {
        tests: Vec::new(),
        totals: Totals::default(),
        ..report.clone()
    }
}

#[test]
fn the_sink_collects_finished_tests_into_the_suite_report_and_writes_it() {
    let dir = tempfile::tempdir().unwrap();
    let report = sample::report(
        dir.path(),
        sample::Mix {
            tests: 5,
            failed: 1,
            error: 1,
            flaky: 0,
            skipped: 0,
        },
    );
    let sink = SuiteReportSink::writing(Secrets::default(), &ReportKind::ALL, dir.path());
    sink.emit(&Event::TestStarted {
        id: report.tests[0].id.clone(),
        attempt: 1,
    });
    for test in &report.tests {
        sink.emit(&Event::TestFinished(Box::new(test.clone())));
    }
    assert_eq!(sink.tests().len(), 5);
    assert_eq!(sink.report(), None);
    assert!(sink.take_written().is_none());
    sink.emit(&Event::SuiteFinished(Box::new(finished_without_tests(
        &report,
    ))));
    assert_eq!(sink.report().unwrap(), report);
    let written = sink.take_written().unwrap().unwrap();
    let names: Vec<_> = written
        .iter()
        .map(|path| path.file_name().unwrap().to_str().unwrap())
        .collect();
    assert_eq!(names, ["report.json", "junit.xml", "report.html"]);
    let read = super::super::json::read_report(&written[0]).unwrap();
    assert_eq!(read.totals.failed, 1);
    assert_eq!(read.tests[4].status, TestStatus::Error);
}

#[test]
fn a_secret_parameter_value_reaches_no_written_report() {
    let secret = "hunter2-Tr0ub4dor";
    let secrets = Secrets::of_parameters([("user", "demo"), ("password", secret)], &[]);
    let dir = tempfile::tempdir().unwrap();
    let mut report = sample::report(
        dir.path(),
        sample::Mix {
            tests: 3,
            failed: 1,
            error: 1,
            flaky: 0,
            skipped: 0,
        },
    );
    // Everywhere a careless component could have put it.
    for test in &mut report.tests {
        test.rerun = format!("retrace replay {} --param password={secret}", test.id);
        test.tags.push(format!("for-{secret}"));
        for step in &mut test.steps {
            step.action = Some(format!("type {secret}"));
        }
        for attempt in &mut test.attempts {
            attempt.url = Some(format!("http://demo:{secret}@127.0.0.1:8080/"));
            if let Some(error) = &mut attempt.error {
                error.push_str(&format!(" (while typing {secret})"));
            }
        }
    }
    report.name = format!("suite {secret}");
    let sink = SuiteReportSink::writing(secrets, &ReportKind::ALL, dir.path());
    for test in &report.tests {
        sink.emit(&Event::TestFinished(Box::new(test.clone())));
    }
    sink.emit(&Event::SuiteFinished(Box::new(finished_without_tests(
        &report,
    ))));
    let written = sink.take_written().unwrap().unwrap();
    assert_eq!(written.len(), 3);
    for path in written {
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            !text.contains(secret),
            "{} holds the secret",
            path.display()
        );
        assert!(
            !text.contains("hunter2"),
            "{} holds part of it",
            path.display()
        );
        assert!(
            text.contains("redacted&gt;") || text.contains("<redacted>"),
            "{} lost the text around the secret",
            path.display()
        );
        assert!(text.contains("--param password="), "{}", path.display());
    }
}

#[test]
fn a_secret_that_is_also_a_status_word_leaves_the_report_readable() {
    // `pass` is in `passed`: the statuses stay, the free text loses it.
    let secrets = Secrets::of_parameters([("password", "pass")], &[]);
    let dir = tempfile::tempdir().unwrap();
    let mut report = sample::report(
        dir.path(),
        sample::Mix {
            tests: 3,
            failed: 1,
            ..sample::Mix::default()
        },
    );
    for test in &mut report.tests {
        test.rerun = format!("retrace replay {} --param password=pass", test.id);
    }
    let sink = SuiteReportSink::new(secrets);
    for test in &report.tests {
        sink.emit(&Event::TestFinished(Box::new(test.clone())));
    }
    let tests = sink.tests();
    let statuses: Vec<_> = tests.iter().map(|test| test.status).collect();
    assert_eq!(
        statuses,
        [TestStatus::Passed, TestStatus::Passed, TestStatus::Failed]
    );
    for test in &tests {
        assert!(
            test.rerun.ends_with("=<redacted>") && !test.rerun.contains("pass"),
            "{}",
            test.rerun
        );
        assert!(!test.steps.is_empty(), "the details were kept");
    }
}
