//! What a suite run reports: one [`TestReport`] per test (a trajectory replayed, a page
//! checked), and the [`SuiteReport`] of them all. The JSON report is this document's serde form
//! (versioned by [`SuiteReport::VERSION`]); the HTML and JUnit reports are built from it; `retrace
//! report merge` adds shards' documents up.
//!
//! Paths to artefacts are relative to the report's directory, so a report directory can be
//! moved, archived by CI and opened elsewhere.

use std::path::PathBuf;

use serde::Deserialize;
use serde::Serialize;

use super::check::PageCheck;
use super::replay::CheckPhase;
use super::session::SessionReport;

/// How a test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestStatus {
    /// Every check passed on the first attempt.
    Passed,
    /// A check failed (a mismatch, a FAIL verdict): never retried.
    Failed,
    /// The test could not run (browser crash, navigation timeout, bad input) on any attempt.
    Error,
    /// It passed, but only after an attempt that ended in an infrastructure error.
    Flaky,
    /// It was not run (filtered out, invalidated, interrupted before it started); the reason
    /// says which.
    Skipped,
}

impl TestStatus {
    /// The snake_case name, as serialised.
    pub fn label(self) -> &'static str {
        match self {
            TestStatus::Passed => "passed",
            TestStatus::Failed => "failed",
            TestStatus::Error => "error",
            TestStatus::Flaky => "flaky",
            TestStatus::Skipped => "skipped",
        }
    }
}

/// What kind of test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestKind {
    /// A trajectory replayed.
    Replay,
    /// A page of a visual regression check.
    Check,
}

/// One check of one step, in a test's timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepCheckRecord {
    /// The check's name (`visual`, `effect`, `semantic`).
    pub check: String,
    /// Before or after acting.
    pub phase: CheckPhase,
    /// Whether it passed.
    pub passed: bool,
    /// The measured distance, when the check measures one.
    pub distance: Option<u32>,
    /// The bound.
    pub threshold: Option<u32>,
    /// A note for people.
    pub detail: Option<String>,
}

/// One step of a replayed test, as its timeline shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// The 1-based trajectory step.
    pub step: usize,
    /// What it did (`left_click at (640, 311)`; typed text never shown).
    pub action: Option<String>,
    /// Its checks, in the order they ran.
    pub checks: Vec<StepCheckRecord>,
    /// How long it waited for its screen, before and after acting.
    pub waited_ms: u64,
    /// The repair offset `(dx, dy)`, when it acted at a moved point.
    pub repaired: Option<(i64, i64)>,
    /// How long the action itself took.
    pub acted_ms: Option<u64>,
    /// The tool's error, when it reported one.
    pub error: Option<String>,
    /// For a step nothing checks before acting: whether the screen stopped changing before
    /// it acted (`false`: it acted anyway). `None` when the step waited for a check instead.
    /// Added after version 1 was first written; absent in older documents.
    #[serde(default)]
    pub settled: Option<bool>,
}

/// Evidence files of a test, relative to the report directory.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Artifacts {
    /// The recorded region of the failed step (PNG).
    pub expected_crop: Option<PathBuf>,
    /// The same region as the screen showed it (PNG).
    pub actual_crop: Option<PathBuf>,
    /// The pixel diff of the two (PNG).
    pub diff_crop: Option<PathBuf>,
    /// The whole screen when the test ended (failures only, to keep reports small).
    pub final_screenshot: Option<PathBuf>,
    /// The test's JSON Lines event log.
    pub events_log: Option<PathBuf>,
    /// Any other file (a check's baseline, candidate and diff images...).
    pub other: Vec<PathBuf>,
}

/// One test of a suite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestReport {
    /// A stable id: the file's path relative to the suite root (`login.json`), or for a check
    /// `PATH@WxH`.
    pub id: String,
    /// What kind of test.
    pub kind: TestKind,
    /// The trajectory file, or the checked page's path.
    pub file: PathBuf,
    /// How it ended.
    pub status: TestStatus,
    /// Its tags, from the suite file.
    pub tags: Vec<String>,
    /// Why it was skipped, for [`TestStatus::Skipped`].
    pub skip_reason: Option<String>,
    /// The 1-based step that failed, for a failed replay.
    pub step: Option<usize>,
    /// Each attempt's session report, in order (more than one only after infrastructure
    /// errors).
    pub attempts: Vec<SessionReport>,
    /// The last attempt's step timeline (replays).
    pub steps: Vec<StepRecord>,
    /// The page check's result (checks).
    pub check: Option<PageCheck>,
    /// Evidence files.
    pub artifacts: Artifacts,
    /// The exact command that runs this test again on its own.
    pub rerun: String,
    /// Wall time of all attempts.
    pub wall_ms: u64,
}

/// Counts of tests by status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    /// Tests.
    pub tests: usize,
    /// Passed on the first attempt.
    pub passed: usize,
    /// Failed.
    pub failed: usize,
    /// Could not run.
    pub error: usize,
    /// Passed after an infrastructure error.
    pub flaky: usize,
    /// Not run.
    pub skipped: usize,
}

impl Totals {
    /// Counts `tests` by status.
    pub fn of<'a>(tests: impl IntoIterator<Item = &'a TestReport>) -> Self {
        let mut totals = Totals::default();
        for test in tests {
            totals.add(test.status);
        }
        totals
    }

    /// Counts one more test of `status`.
    pub fn add(&mut self, status: TestStatus) {
        self.tests += 1;
        match status {
            TestStatus::Passed => self.passed += 1,
            TestStatus::Failed => self.failed += 1,
            TestStatus::Error => self.error += 1,
            TestStatus::Flaky => self.flaky += 1,
            TestStatus::Skipped => self.skipped += 1,
        }
    }
}

/// Which part of a sharded suite a report covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// 1-based shard number.
    pub index: u32,
    /// Number of shards.
    pub total: u32,
}

/// A suite run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteReport {
    /// The document's version ([`SuiteReport::VERSION`]).
    pub version: u32,
    /// The suite's name (its root directory, or what the user named it).
    pub name: String,
    /// The shard this report covers, when the suite was sharded; `None` for a whole suite or
    /// a merge of all shards.
    pub shard: Option<Shard>,
    /// When it started (RFC 3339, UTC).
    pub started_at: String,
    /// Wall time (for a merge: the longest shard's).
    pub wall_ms: u64,
    /// Counts by status.
    pub totals: Totals,
    /// Whether the run was interrupted (Ctrl-C): the tests not run are missing or skipped.
    pub interrupted: bool,
    /// For a merge of shards' reports (`retrace report merge`): the shard each merged report
    /// covered, in the order merged; empty otherwise. Added after version 1 was first
    /// written; absent in older documents.
    #[serde(default)]
    pub shards: Vec<Shard>,
    /// Every test, failures first is the reports' business: here, in the order they ran.
    pub tests: Vec<TestReport>,
}

impl SuiteReport {
    /// The version of this document's shape.
    pub const VERSION: u32 = 1;
}
