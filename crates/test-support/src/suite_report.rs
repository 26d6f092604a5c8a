//! A synthetic suite report with real evidence files (crops and a final screenshot cut from a
//! real 1280x800 screenshot and its edited variant in `../shared/vectors`), for the tests of
//! the suite reports (`retrace-report`) and of `retrace report merge`.
// Test setup: a failure should stop the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;

use retrace_protocol::events::Artifacts;
use retrace_protocol::events::CheckPhase;
use retrace_protocol::events::FailureKind;
use retrace_protocol::events::ReplayFailure;
use retrace_protocol::events::ReplayOutcome;
use retrace_protocol::events::ReplayStatus;
use retrace_protocol::events::SessionKind;
use retrace_protocol::events::SessionReport;
use retrace_protocol::events::SessionStatus;
use retrace_protocol::events::StepCheckRecord;
use retrace_protocol::events::StepRecord;
use retrace_protocol::events::SuiteReport;
use retrace_protocol::events::TestKind;
use retrace_protocol::events::TestReport;
use retrace_protocol::events::TestStatus;
use retrace_protocol::events::Totals;

/// How many tests of each status, in this order: failed, error, flaky, skipped, the rest passed.
#[derive(Debug, Clone, Copy, Default)]
pub struct Mix {
    pub tests: usize,
    pub failed: usize,
    pub error: usize,
    pub flaky: usize,
    pub skipped: usize,
}

/// The recorded screen, and the same screen after a button changed.
fn screens() -> (Vec<u8>, Vec<u8>) {
    let dir = crate::vectors_dir().join("images/screens");
    (
        std::fs::read(dir.join("python_policy_1280x800.png")).unwrap(),
        std::fs::read(dir.join("python_policy_1280x800__button.png")).unwrap(),
    )
}

/// Crops `region` (left, top, size) of a PNG into a PNG.
fn crop(png: &[u8], left: u32, top: u32, size: u32) -> Vec<u8> {
    let image = retrace_vision::decode_png(png).unwrap();
    let rgba = image.to_rgba();
    let mut out = Vec::with_capacity((size * size * 4) as usize);
    for y in top..top + size {
        let start = ((y * image.width() + left) * 4) as usize;
        out.extend_from_slice(&rgba[start..start + (size * 4) as usize]);
    }
    retrace_vision::encode_png_rgba(size, size, &out).unwrap()
}

/// Evidence of one mismatch: the expected crop, the actual crop, the final screenshot.
pub struct Evidence {
    pub expected: Vec<u8>,
    pub actual: Vec<u8>,
    pub final_screen: Vec<u8>,
}

/// Crops the place where the two screens differ (the first changed area), 96 px square.
pub fn evidence() -> Evidence {
    let (before, after) = screens();
    let a = retrace_vision::decode_png(&before).unwrap();
    let b = retrace_vision::decode_png(&after).unwrap();
    let retrace_vision::Diff::Pixels(diff) =
        retrace_vision::diff(&a, &b, &retrace_vision::DiffOptions::default())
    else {
        panic!("the two screens have one size");
    };
    let area = diff.changed_areas.first().expect("the screens differ");
    let size = 96;
    let centre_x = (area.left + area.right) / 2;
    let centre_y = (area.top + area.bottom) / 2;
    let left = centre_x.saturating_sub(size / 2).min(a.width() - size);
    let top = centre_y.saturating_sub(size / 2).min(a.height() - size);
    Evidence {
        expected: crop(&before, left, top, size),
        actual: crop(&after, left, top, size),
        final_screen: after,
    }
}

fn steps(count: usize, failed_at: Option<usize>) -> Vec<StepRecord> {
    (1..=count)
        .map(|step| {
            let passed = failed_at != Some(step);
            StepRecord {
                step,
                action: Some(format!("left_click at ({}, 311)", 100 + step * 40)),
                checks: vec![StepCheckRecord {
                    check: "visual".into(),
                    phase: CheckPhase::Before,
                    passed,
                    distance: Some(if passed { 2 } else { 26 }),
                    threshold: Some(10),
                    detail: None,
                }],
                waited_ms: 120,
                repaired: (step == 2).then_some((4, -3)),
                acted_ms: passed.then_some(15),
                error: None,
                settled: None,
            }
        })
        .collect()
}

fn attempt(name: &str, status: SessionStatus, failure: Option<ReplayFailure>) -> SessionReport {
    let mut report = SessionReport::new(SessionKind::Replay, name);
    report.status = status;
    report.url = Some("http://127.0.0.1:8080/".into());
    report.wall_ms = 1500;
    report.replay = Some(ReplayOutcome {
        file: PathBuf::from(name),
        status: if failure.is_some() {
            ReplayStatus::Failed
        } else {
            ReplayStatus::Passed
        },
        steps_total: 5,
        steps_replayed: 5,
        checks_passed: BTreeMap::from([("visual".to_owned(), 5)]),
        repairs: Vec::new(),
        failure,
        checks_off: Vec::new(),
        duration_ms: 1400,
    });
    report
}

fn error_attempt(name: &str, error: &str) -> SessionReport {
    let mut report = SessionReport::new(SessionKind::Replay, name);
    report.error = Some(error.to_owned());
    report.wall_ms = 30_000;
    report
}

/// One test; `evidence_dir` relative to the report's directory for a failure's files.
pub fn test(index: usize, status: TestStatus) -> TestReport {
    let id = format!("flows/flow-{index:03}.json");
    let mut test = TestReport {
        id: id.clone(),
        kind: TestKind::Replay,
        file: PathBuf::from(&id),
        status,
        tags: vec!["smoke".into()],
        skip_reason: None,
        step: None,
        attempts: Vec::new(),
        steps: steps(5, None),
        check: None,
        artifacts: Artifacts::default(),
        rerun: format!("retrace replay {id} --url http://127.0.0.1:8080/"),
        wall_ms: 1500 + index as u64,
    };
    match status {
        TestStatus::Passed => test.attempts = vec![attempt(&id, SessionStatus::Passed, None)],
        TestStatus::Failed => {
            let failure = ReplayFailure {
                step: 3,
                kind: FailureKind::Mismatch,
                action: "left_click at (220, 311)".into(),
                message: "Step 3 (left_click at (220, 311)): the screen does not match the recording: visual distance 26 > 10 after waiting 5.0 s.".into(),
                distance: Some(26),
                threshold: Some(10),
                waited_ms: Some(5000),
                expected_crop: None,
                actual_crop: None,
                actual_screen: None,
                actual_element: None,
            };
            test.step = Some(3);
            test.steps = steps(3, Some(3));
            test.attempts = vec![attempt(&id, SessionStatus::Failed, Some(failure))];
            let dir = PathBuf::from("evidence").join(format!("flow-{index:03}"));
            test.artifacts = Artifacts {
                expected_crop: Some(dir.join("expected.png")),
                actual_crop: Some(dir.join("actual.png")),
                diff_crop: None,
                final_screenshot: Some(dir.join("final.png")),
                events_log: Some(dir.join("events.jsonl")),
                other: Vec::new(),
            };
        }
        TestStatus::Error => {
            test.steps = Vec::new();
            test.attempts = vec![
                error_attempt(&id, "the browser crashed (target closed)"),
                error_attempt(
                    &id,
                    "navigation to http://127.0.0.1:8080/ timed out after 30 s",
                ),
            ];
        }
        TestStatus::Flaky => {
            test.attempts = vec![
                error_attempt(&id, "the browser crashed (target closed)"),
                attempt(&id, SessionStatus::Passed, None),
            ];
        }
        TestStatus::Skipped => {
            test.steps = Vec::new();
            test.skip_reason = Some("marked invalid: 3 failures in a row".into());
        }
    }
    test
}

/// A suite of `mix.tests` tests in run order (passes first, the failures later, as a run
/// might give them), with the failures' evidence files written under `dir`.
pub fn report(dir: &Path, mix: Mix) -> SuiteReport {
    let mut statuses = Vec::new();
    statuses.extend(std::iter::repeat_n(TestStatus::Failed, mix.failed));
    statuses.extend(std::iter::repeat_n(TestStatus::Error, mix.error));
    statuses.extend(std::iter::repeat_n(TestStatus::Flaky, mix.flaky));
    statuses.extend(std::iter::repeat_n(TestStatus::Skipped, mix.skipped));
    let passed = mix.tests - statuses.len();
    statuses.splice(0..0, std::iter::repeat_n(TestStatus::Passed, passed));
    let tests: Vec<TestReport> = statuses
        .iter()
        .enumerate()
        .map(|(index, status)| test(index + 1, *status))
        .collect();
    if mix.failed > 0 {
        let evidence = evidence();
        for test in tests
            .iter()
            .filter(|test| test.status == TestStatus::Failed)
        {
            let artifacts = &test.artifacts;
            let write = |path: &Option<PathBuf>, bytes: &[u8]| {
                let path = dir.join(path.as_ref().unwrap());
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, bytes).unwrap();
            };
            write(&artifacts.expected_crop, &evidence.expected);
            write(&artifacts.actual_crop, &evidence.actual);
            write(&artifacts.final_screenshot, &evidence.final_screen);
            write(&artifacts.events_log, b"{\"type\":\"test_started\"}\n");
        }
    }
    SuiteReport {
        version: SuiteReport::VERSION,
        name: "demo-suite".into(),
        shard: None,
        started_at: "2026-11-25T14:00:00Z".into(),
        wall_ms: 60_000,
        totals: Totals::of(&tests),
        interrupted: false,
        shards: Vec::new(),
        tests,
    }
}

/// A page check that failed, with one difference and a boxed region.
pub fn page_check_test() -> TestReport {
    use retrace_protocol::element::BoundingBox;
    use retrace_protocol::events::CheckAttempt;
    use retrace_protocol::events::Difference;
    use retrace_protocol::events::DifferenceKind;
    use retrace_protocol::events::PageCheck;
    use retrace_protocol::events::Severity;
    use retrace_protocol::events::Verdict;
    let difference = Difference {
        kind: DifferenceKind::Styling,
        severity: Severity::Major,
        description: "the Save button turned grey".into(),
        region: Some(BoundingBox {
            x: 10.0,
            y: 20.0,
            width: 80.0,
            height: 24.0,
        }),
        change: Some(retrace_protocol::events::ChangeKind::Colour),
    };
    TestReport {
        id: "/settings@1280x800".into(),
        kind: TestKind::Check,
        file: PathBuf::from("/settings"),
        status: TestStatus::Failed,
        tags: Vec::new(),
        skip_reason: None,
        step: None,
        attempts: Vec::new(),
        steps: Vec::new(),
        check: Some(PageCheck {
            path: "/settings".into(),
            viewport: (1280, 800),
            verdict: Verdict::Fail,
            confidence: Some(92),
            differences: vec![difference.clone()],
            attempts: vec![CheckAttempt {
                attempt: 1,
                verdict: Verdict::Fail,
                confidence: Some(92),
                differences: vec![difference],
                error: None,
                evidence: Vec::new(),
                duration_ms: 800,
                judge: None,
            }],
            evidence: Vec::new(),
            thresholds: serde_json::json!({ "pixel_ratio": 0.001 }),
            error: None,
            judge: None,
            timeouts: serde_json::Value::Null,
        }),
        artifacts: Artifacts::default(),
        rerun: "retrace check /settings --viewport 1280x800".into(),
        wall_ms: 900,
    }
}
