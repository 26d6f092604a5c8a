//! What a replay reports: each check, the failure that stopped it, and its outcome.
//!
//! These travel in [`super::Event`]s; the console, the JSON summary and the reports are all
//! built from them. Step numbers are 1-based trajectory positions.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde::Deserialize;
use serde::Serialize;

/// When a check looks at the screen: before the step acts, or after.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckPhase {
    /// Before acting: is this still the screen the step was recorded on?
    Before,
    /// After acting: did the action have the effect it had when recorded?
    After,
}

/// One check of one replayed step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckResult {
    /// The 1-based trajectory step.
    pub step: usize,
    /// The check's name (`visual`, `effect`, `stable`).
    pub check: String,
    /// Before or after acting.
    pub phase: CheckPhase,
    /// Whether it passed.
    pub passed: bool,
    /// The measured distance (Hamming distance of perceptual hashes), when the check measures
    /// one.
    pub distance: Option<u32>,
    /// The largest distance that passes.
    pub threshold: Option<u32>,
    /// How long replay waited for the screen before this verdict.
    pub waited_ms: u64,
    /// When the step was repaired, the offset `(dx, dy)` in pixels it acts at instead.
    pub shift: Option<(i64, i64)>,
    /// A short note for people (what differed, what was waited for).
    pub detail: Option<String>,
}

/// Why a replayed step failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The screen before the step is not the one it was recorded on.
    Mismatch,
    /// After acting, the screen did not reach the state recorded after the action.
    Effect,
    /// The tool reported an error when the step was replayed.
    ToolError,
    /// A parameter the step needs has no value.
    MissingParameter,
    /// The step needs a model (a non-cacheable tool) and none is available.
    NeedsModel,
    /// The run has no tool of the step's name.
    MissingTool,
    /// The recording itself cannot be used at this step (an unreadable hash).
    BadRecording,
}

impl FailureKind {
    /// The snake_case name, as serialised.
    pub fn label(self) -> &'static str {
        match self {
            FailureKind::Mismatch => "mismatch",
            FailureKind::Effect => "effect",
            FailureKind::ToolError => "tool_error",
            FailureKind::MissingParameter => "missing_parameter",
            FailureKind::NeedsModel => "needs_model",
            FailureKind::MissingTool => "missing_tool",
            FailureKind::BadRecording => "bad_recording",
        }
    }
}

/// The failure that stopped a replay, with the evidence to judge it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplayFailure {
    /// The 1-based trajectory step that failed.
    pub step: usize,
    /// What kind of failure.
    pub kind: FailureKind,
    /// What the step does, for people (`left_click at (761, 203)`; typed text is never shown).
    pub action: String,
    /// The whole account, one or two sentences naming the step, the measure and the bound.
    pub message: String,
    /// The distance that failed, when the failing check measures one.
    pub distance: Option<u32>,
    /// The bound it broke.
    pub threshold: Option<u32>,
    /// How long replay waited before failing the step.
    pub waited_ms: Option<u64>,
    /// The recorded region (PNG), when the recording holds it. Not serialised: reports write
    /// it as a file and keep its path.
    #[serde(skip)]
    pub expected_crop: Option<Png>,
    /// The same region of the screen replay last saw (PNG). Not serialised, as above.
    #[serde(skip)]
    pub actual_crop: Option<Png>,
    /// The whole screen replay last saw when the step failed, in the trajectory's
    /// coordinates (PNG): what `retrace approve` re-hashes the step from. Not serialised.
    #[serde(skip)]
    pub actual_screen: Option<Png>,
    /// The element found at the step's point when a check that asks the page (semantic
    /// before acting, state after) did not pass, its field value left out: what
    /// `retrace approve` records for the step. Not serialised.
    #[serde(skip)]
    pub actual_element: Option<Box<crate::element::ElementInfo>>,
}

/// PNG bytes carried by an event (evidence crops), shared and shown by size only.
#[derive(Clone, PartialEq, Eq)]
pub struct Png(pub Arc<[u8]>);

impl std::fmt::Debug for Png {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "Png({} bytes)", self.0.len())
    }
}

impl Png {
    /// The encoded bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

impl From<Vec<u8>> for Png {
    fn from(bytes: Vec<u8>) -> Self {
        Png(bytes.into())
    }
}

/// A step replay acted on at a shifted point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Repair {
    /// The 1-based trajectory step.
    pub step: usize,
    /// The offset `(dx, dy)` applied, in pixels.
    pub offset: (i64, i64),
    /// The distance at the shifted point.
    pub distance: u32,
}

/// How a replay ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplayStatus {
    /// Every step was replayed and every check passed.
    Passed,
    /// A step failed.
    Failed,
    /// A step needs the model (a non-cacheable tool); the replay handed over or stopped there
    /// without counting a failure.
    Paused,
}

/// What a replay did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplayOutcome {
    /// The file replayed.
    pub file: PathBuf,
    /// How it ended.
    pub status: ReplayStatus,
    /// Steps in the file.
    pub steps_total: usize,
    /// Steps acted (skipped observe-only steps not counted).
    pub steps_replayed: usize,
    /// Checks that passed, by check name.
    pub checks_passed: BTreeMap<String, usize>,
    /// Steps acted at a shifted point.
    pub repairs: Vec<Repair>,
    /// The failure, when a step failed (or the pause, when one needed the model).
    pub failure: Option<ReplayFailure>,
    /// Checks this file could not get, with why.
    pub checks_off: Vec<String>,
    /// Time from the first step's wait to the end of the last check.
    pub duration_ms: u64,
}

impl ReplayOutcome {
    /// Whether every step ran and passed.
    pub fn passed(&self) -> bool {
        self.status == ReplayStatus::Passed
    }

    /// The number of passed checks called `check`.
    pub fn passed_checks(&self, check: &str) -> usize {
        self.checks_passed.get(check).copied().unwrap_or(0)
    }
}
