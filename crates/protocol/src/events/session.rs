//! [`SessionReport`]: the one result of a command's session (`retrace replay`, `retrace
//! act`, one test of a suite), from browser start to the recording written.
//!
//! Its serde form is the `--json` document of those commands and a test's entry in the JSON
//! report: one serializer, versioned by [`SessionReport::VERSION`].

use std::path::PathBuf;

use serde::Deserialize;
use serde::Serialize;

use super::replay::ReplayOutcome;
use crate::Usage;

/// What kind of session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionKind {
    /// A trajectory replayed with no model.
    Replay,
    /// A model worked towards a goal (perhaps replaying through the cache tools).
    Act,
}

/// How a session ended, and the exit code class it maps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionStatus {
    /// Everything passed (exit 0).
    Passed,
    /// A check failed, or the model did not reach the goal (exit 1).
    Failed,
    /// The session could not run: bad input or broken infrastructure (exit 2).
    Error,
}

/// The result of one session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionReport {
    /// The document's version ([`SessionReport::VERSION`]).
    pub version: u32,
    /// What ran.
    pub kind: SessionKind,
    /// How it ended.
    pub status: SessionStatus,
    /// What it ran: the trajectory file, or the goal.
    pub name: String,
    /// The page it started on.
    pub url: Option<String>,
    /// The replay, when one ran.
    pub replay: Option<ReplayOutcome>,
    /// The model run, for `act`.
    pub act: Option<ActSummary>,
    /// Why it could not run, for [`SessionStatus::Error`].
    pub error: Option<String>,
    /// Wall time of the whole session: browser start, page load, the run, the recording.
    pub wall_ms: u64,
    /// Files written as evidence (event log, screenshots), in the order written.
    pub evidence: Vec<PathBuf>,
}

impl SessionReport {
    /// The version of this document's shape.
    pub const VERSION: u32 = 1;

    /// A report of `kind` for `name` with nothing filled in yet.
    pub fn new(kind: SessionKind, name: impl Into<String>) -> Self {
        Self {
            version: Self::VERSION,
            kind,
            status: SessionStatus::Error,
            name: name.into(),
            url: None,
            replay: None,
            act: None,
            error: None,
            wall_ms: 0,
            evidence: Vec::new(),
        }
    }
}

/// What a model run did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActSummary {
    /// How the conversation ended: `done`, `failed`, `max_steps`, `max_tokens`, `refusal`.
    pub outcome: String,
    /// The reason, for anything but `done`.
    pub reason: Option<String>,
    /// Turns taken.
    pub turns: usize,
    /// The model id.
    pub model: String,
    /// The speakers that took turns, in order of first appearance.
    pub speakers: Vec<String>,
    /// Tokens used.
    pub usage: Usage,
    /// Cost in US dollars, when the model's prices are known.
    pub cost_usd: Option<f64>,
    /// The trajectory written, if any.
    pub recorded: Option<PathBuf>,
    /// The file a repaired recording replaced, kept beside it.
    pub previous: Option<PathBuf>,
    /// The page's URL when the run ended.
    pub final_url: Option<String>,
}
