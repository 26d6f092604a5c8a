//! The event stream: every notable thing a run does, for whoever listens.
//!
//! Components never print and never hand results back through side channels: they emit an
//! [`Event`] to [`Events`], and sinks subscribe (the terminal lines, a JSON Lines log, the
//! reports, a collector the runner reads its result from). Tests subscribe a [`MemorySink`]
//! and assert on what happened.
//!
//! Numbering: `turn` counts the conversation's turns (one speaker's say each, 1-based);
//! `step` is a position in the trajectory, 1-based, the same number `retrace act`, `retrace
//! replay`, `retrace cache show` and every report give the same step.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;

use serde::Deserialize;
use serde::Serialize;

use crate::StopReason;
use crate::Usage;

mod check;
mod demonstration;
mod replay;
mod session;
mod suite;

pub use check::ChangeKind;
pub use check::CheckAttempt;
pub use check::Difference;
pub use check::DifferenceKind;
pub use check::JudgeRecord;
pub use check::PageCheck;
pub use check::Severity;
pub use check::Verdict;
pub use demonstration::DemonstrationEvent;
pub use replay::CheckPhase;
pub use replay::CheckResult;
pub use replay::FailureKind;
pub use replay::Png;
pub use replay::Repair;
pub use replay::ReplayFailure;
pub use replay::ReplayOutcome;
pub use replay::ReplayStatus;
pub use session::ActSummary;
pub use session::SessionKind;
pub use session::SessionReport;
pub use session::SessionStatus;
pub use suite::Artifacts;
pub use suite::Shard;
pub use suite::StepCheckRecord;
pub use suite::StepRecord;
pub use suite::SuiteReport;
pub use suite::TestKind;
pub use suite::TestReport;
pub use suite::TestStatus;
pub use suite::Totals;

/// Something that happened during a run. Serialised with a `type` tag for JSON Lines logs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A run began.
    RunStarted {
        /// The goal as given (parameter placeholders unfilled).
        goal: String,
        /// The speaker that starts.
        speaker: String,
    },
    /// A speaker is about to take a turn.
    TurnStarted {
        /// 1-based turn number in this run.
        turn: usize,
        /// Who speaks.
        speaker: String,
    },
    /// A model call finished.
    ModelCall {
        /// Turn number.
        turn: usize,
        /// The model id.
        model: String,
        /// Wall time of the call, retries included.
        duration_ms: u64,
        /// Tokens of this call.
        usage: Usage,
        /// Why the model stopped.
        stop_reason: StopReason,
    },
    /// A model call failed and will be retried after a wait.
    Retry {
        /// Turn number.
        turn: usize,
        /// Which attempt failed (1-based).
        attempt: u32,
        /// How long until the next attempt.
        delay_ms: u64,
        /// Why it failed.
        error: String,
    },
    /// Something about the model a user should know: its end of life is near or past, or it
    /// refused a computer tool form and took another.
    ModelNotice {
        /// The model id.
        model: String,
        /// What to know, in one sentence or two.
        message: String,
    },
    /// Something about the target a user should know: the desktop application under test
    /// handed its window to an instance already running, or left processes behind.
    TargetNotice {
        /// The target (`desktop :99`, a window).
        target: String,
        /// What to know, in a sentence or two.
        message: String,
    },
    /// A tool ran.
    ToolCalled {
        /// Turn number.
        turn: usize,
        /// The call's 1-based position in the trajectory (the recording a model run becomes,
        /// or the file a replay runs); `None` for tools that steer the conversation.
        step: Option<usize>,
        /// The tool's name.
        tool: String,
        /// The action, for tools that have one (`left_click`, `OPEN_PAGE`).
        action: Option<String>,
        /// The input in one line for people (`left_click at (640, 311)`, `type text of 4
        /// characters`): typed text is never repeated.
        summary: String,
        /// Wall time of the call.
        duration_ms: u64,
        /// True when the tool reported an error.
        is_error: bool,
        /// The error text the model saw, when there was one.
        error: Option<String>,
    },
    /// The conversation moved to another speaker.
    SpeakerSwitched {
        /// Who spoke before.
        from: String,
        /// Who speaks now.
        to: String,
        /// Why.
        reason: String,
    },
    /// Token usage after a turn that called a model.
    Usage {
        /// Turn number.
        turn: usize,
        /// Tokens of this turn.
        turn_usage: Usage,
        /// Tokens so far.
        total: Usage,
        /// Cost so far in US dollars, when the model's pricing is known.
        cost_usd: Option<f64>,
    },
    /// A structured answer could not be used (no JSON object, or it broke the response
    /// schema) and was sent back to the model with these errors for a corrected answer.
    StructuredAnswerRejected {
        /// Turn number.
        turn: usize,
        /// Which answer of this turn (1-based).
        attempt: u32,
        /// The errors the model was sent, one `field: message` each.
        errors: Vec<String>,
    },
    /// A structured answer was accepted: the model's decision for this turn.
    StructuredDecision {
        /// Turn number.
        turn: usize,
        /// Which answer of this turn was accepted (1-based).
        attempt: u32,
        /// `PROCEED`, `RETRY` or `ABORT`.
        decision: String,
        /// The web command's action (`CLICK_ELEMENT`), when the answer carries one.
        command: Option<String>,
        /// The decision's message.
        message: String,
    },
    /// A trajectory cache file was written.
    CacheWritten {
        /// Where.
        path: PathBuf,
        /// Number of steps.
        steps: usize,
        /// Where the file it replaced was kept, for a repaired recording.
        previous: Option<PathBuf>,
        /// What the file's format could not keep (askui's tools have no after-action hash).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        notes: Vec<String>,
    },
    /// `retrace record` recorded a person's demonstration (see [`DemonstrationEvent`]).
    Demonstration(DemonstrationEvent),
    /// The conversation ended.
    RunFinished {
        /// How: `done`, `failed`, `max_steps`, `max_tokens`, `refusal`.
        outcome: String,
        /// The reason, for anything but `done`.
        reason: Option<String>,
        /// Turns taken.
        turns: usize,
        /// Tokens used.
        usage: Usage,
        /// Wall time of the conversation.
        duration_ms: u64,
    },
    /// A replay of a trajectory file began.
    ReplayStarted {
        /// The file.
        file: PathBuf,
        /// Steps in the file.
        steps: usize,
        /// The 1-based step it starts at.
        start: usize,
        /// Checks this file cannot get, with why (`effect: the file holds no after-action
        /// hashes`), said once so a replay that checks less never looks like one that checks
        /// everything.
        checks_off: Vec<String>,
    },
    /// A replayed step nothing checks waited for the screen to stop changing before acting.
    ScreenSettled {
        /// The 1-based trajectory step.
        step: usize,
        /// Whether two screenshots in a row matched before the step's time was up (when not,
        /// the step acted anyway: there was nothing to check it against).
        settled: bool,
        /// How long it waited.
        waited_ms: u64,
    },
    /// A replayed step was checked.
    CheckFinished(CheckResult),
    /// A replayed step failed; the replay stops there.
    StepFailed(ReplayFailure),
    /// A replay ended (passed, failed or paused).
    ReplayFinished(Box<ReplayOutcome>),
    /// A whole command's session (browser start, page load, the run, its recording) ended:
    /// the one result a front end prints and a report keeps.
    SessionFinished(Box<SessionReport>),
    /// A suite's test is about to run.
    TestStarted {
        /// Its id.
        id: String,
        /// Which attempt (1-based).
        attempt: u32,
    },
    /// A suite's test ended (all attempts).
    TestFinished(Box<TestReport>),
    /// A page check attempt ended (the validation log of a visual check).
    CheckAttemptFinished {
        /// The page's path.
        path: String,
        /// The viewport.
        viewport: (u32, u32),
        /// The attempt.
        attempt: Box<CheckAttempt>,
    },
    /// A page check attempt ended in ERROR and the next attempt starts after a wait (the
    /// retry backoff); emitted before the wait, so a long backoff is never silent.
    CheckRetryScheduled {
        /// The page's path.
        path: String,
        /// The viewport.
        viewport: (u32, u32),
        /// The attempt that starts after the wait (2 for the first retry).
        attempt: u32,
        /// How long the wait is.
        wait_ms: u64,
        /// The ERROR of the attempt before it.
        reason: String,
    },
    /// A suite ended (or was interrupted).
    SuiteFinished(Box<SuiteReport>),
}

/// A subscriber to the event stream.
pub trait EventSink: Send + Sync {
    /// Receives one event. Must not block for long: the run waits for it.
    fn emit(&self, event: &Event);
}

/// The event stream of a run: a cheap-to-clone list of sinks.
#[derive(Clone, Default)]
pub struct Events {
    sinks: Vec<Arc<dyn EventSink>>,
}

impl std::fmt::Debug for Events {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "Events({} sinks)", self.sinks.len())
    }
}

impl Events {
    /// A stream nobody listens to.
    pub fn none() -> Self {
        Self::default()
    }

    /// Adds a sink.
    pub fn subscribe(&mut self, sink: Arc<dyn EventSink>) {
        self.sinks.push(sink);
    }

    /// The same stream with one more sink.
    pub fn with(mut self, sink: Arc<dyn EventSink>) -> Self {
        self.subscribe(sink);
        self
    }

    /// Sends `event` to every sink.
    pub fn emit(&self, event: Event) {
        for sink in &self.sinks {
            sink.emit(&event);
        }
    }
}

/// Keeps every event in memory: for reports built at the end of a run, and for tests.
#[derive(Debug, Default)]
pub struct MemorySink {
    events: Mutex<Vec<Event>>,
}

impl MemorySink {
    /// An empty sink.
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// A copy of the events received so far.
    pub fn events(&self) -> Vec<Event> {
        self.events
            .lock()
            .map(|events| events.clone())
            .unwrap_or_default()
    }
}

impl EventSink for MemorySink {
    fn emit(&self, event: &Event) {
        if let Ok(mut events) = self.events.lock() {
            events.push(event.clone());
        }
    }
}
