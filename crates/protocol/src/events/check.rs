//! What a visual regression check of one page reports: a strict verdict, the typed
//! differences with their boxes, the judge's confidence, every attempt, and the evidence.

use std::path::PathBuf;

use serde::Deserialize;
use serde::Serialize;

use crate::element::BoundingBox;

/// A page check's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Verdict {
    /// The candidate looks like the baseline.
    Pass,
    /// It does not: the differences say how.
    Fail,
    /// The comparison could not be made (a page that never loaded or never settled, an
    /// environment mismatch, an unusable judgement).
    Error,
}

/// What kind of difference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DifferenceKind {
    /// Something moved or changed size.
    Layout,
    /// A colour, font or border changed.
    Styling,
    /// Text or an element was added, removed or changed.
    Content,
    /// Behaviour differs (focus, hover, a control's state).
    Interaction,
    /// A side logged an error the other did not.
    ConsoleError,
}

/// What exactly changed, where the check could tell (finer than [`DifferenceKind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// An element moved (layout).
    Shift,
    /// An element's text changed (content).
    Text,
    /// A colour the DOM shows changed (styling): a computed background, text or border
    /// colour differs.
    Colour,
    /// Pixels changed under elements the DOM shows unchanged (same tag, text, box and
    /// colours): an image, a canvas, a shadow or gradient, a font's rendering (styling).
    /// Nothing structural confirms it, so it is the one kind a model judge may call noise.
    Pixels,
    /// An element is gone (content).
    Removed,
    /// An element is new (content).
    Added,
    /// The page's size changed (layout).
    PageSize,
    /// A console error or uncaught exception (console_error).
    ConsoleError,
    /// A control's state changed: checked, pressed, selected, expanded, disabled
    /// (interaction).
    State,
    /// Pixels differ and the DOM does not say why.
    Other,
}

/// How much a difference matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Broken for users.
    Critical,
    /// Clearly visible.
    Major,
    /// Hardly noticeable.
    Minor,
}

/// One difference between baseline and candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    /// What kind.
    #[serde(rename = "type")]
    pub kind: DifferenceKind,
    /// How much it matters.
    pub severity: Severity,
    /// What differs, for people.
    pub description: String,
    /// Where, in page pixels, when it has a place.
    #[serde(rename = "box")]
    pub region: Option<BoundingBox>,
    /// What exactly changed, when known (added after the first version: absent in older
    /// documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<ChangeKind>,
}

/// One attempt at checking a page (attempts after an ERROR are retried with backoff).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckAttempt {
    /// 1-based.
    pub attempt: u32,
    /// Its verdict.
    pub verdict: Verdict,
    /// The judge's confidence, 0-100, when a model judged.
    pub confidence: Option<u8>,
    /// The differences found.
    pub differences: Vec<Difference>,
    /// Why it was an ERROR.
    pub error: Option<String>,
    /// Evidence written by this attempt.
    pub evidence: Vec<PathBuf>,
    /// Wall time.
    pub duration_ms: u64,
    /// What the model judge said in this attempt, when it was asked (absent in older
    /// documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeRecord>,
}

/// A model judge's judgement of one attempt, after the rules (a PASS listing differences is
/// a FAIL; a PASS under the confidence floor, or above the pixels' hard ceiling, an ERROR;
/// an unusable answer an ERROR).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeRecord {
    /// The model asked.
    pub model: String,
    /// The verdict after the rules.
    pub verdict: Verdict,
    /// The judge's confidence, 0-100, when it gave a valid one.
    pub confidence: Option<u8>,
    /// The differences it listed.
    pub differences: Vec<Difference>,
    /// Its one-sentence summary.
    pub summary: Option<String>,
    /// Why its judgement is an ERROR.
    pub error: Option<String>,
    /// Read from the judgement cache: no model request was made.
    pub cached: bool,
}

/// The check of one page at one viewport.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageCheck {
    /// The page's path (`/x`), joined to both base URLs.
    pub path: String,
    /// The viewport `(width, height)`.
    pub viewport: (u32, u32),
    /// The final verdict.
    pub verdict: Verdict,
    /// The judge's confidence, when a model judged.
    pub confidence: Option<u8>,
    /// The final attempt's differences.
    pub differences: Vec<Difference>,
    /// Every attempt.
    pub attempts: Vec<CheckAttempt>,
    /// Evidence: baseline, candidate and diff images, the JSON result.
    pub evidence: Vec<PathBuf>,
    /// The thresholds the deterministic layers used, for the report.
    pub thresholds: serde_json::Value,
    /// Why it was an ERROR, for [`Verdict::Error`].
    pub error: Option<String>,
    /// The final attempt's judgement, when a model judge was asked (absent in older
    /// documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeRecord>,
    /// The time limits the check ran under, for the report (absent in older documents).
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub timeouts: serde_json::Value,
}
