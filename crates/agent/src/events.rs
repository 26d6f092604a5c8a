//! The event stream: every notable thing a run does, for whoever listens.
//!
//! Components never print. They emit an [`Event`] to [`Events`], and sinks subscribe: the
//! terminal progress line, a JSON Lines log, a report. Tests subscribe a [`MemorySink`] and
//! assert on what happened.

use std::io::Write;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;

use retrace_protocol::StopReason;
use retrace_protocol::Usage;
use serde::Serialize;

/// Something that happened during a run. Serialised with a `type` tag for JSON Lines logs.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    StepStarted {
        /// 1-based step number in this run.
        step: usize,
        /// Who speaks.
        speaker: String,
    },
    /// A model call finished.
    ModelCall {
        /// Step number.
        step: usize,
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
        /// Step number.
        step: usize,
        /// Which attempt failed (1-based).
        attempt: u32,
        /// How long until the next attempt.
        delay_ms: u64,
        /// Why it failed.
        error: String,
    },
    /// A tool ran.
    ToolCalled {
        /// Step number.
        step: usize,
        /// The tool's name.
        tool: String,
        /// The action, for tools that have one (`left_click`, `OPEN_PAGE`).
        action: Option<String>,
        /// Wall time of the call.
        duration_ms: u64,
        /// True when the tool reported an error.
        is_error: bool,
        /// The error text the model saw, when there was one.
        error: Option<String>,
    },
    /// A replayed step was checked against the recorded screen.
    VisualCheck {
        /// Step number in the run.
        step: usize,
        /// Index of the step in the trajectory file.
        trajectory_index: usize,
        /// Hamming distance between the recorded and the current hash.
        distance: u32,
        /// The largest distance that passes.
        threshold: u32,
        /// Whether the check passed.
        passed: bool,
        /// How long replay waited for the screen to match.
        waited_ms: u64,
        /// When the element was found shifted, the offset (dx, dy) replay acted at.
        shift: Option<(i32, i32)>,
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
    /// Token usage after a step.
    Usage {
        /// Step number.
        step: usize,
        /// Tokens of this step.
        step_usage: Usage,
        /// Tokens so far.
        total: Usage,
        /// Cost so far in US dollars, when the model's pricing is known.
        cost_usd: Option<f64>,
    },
    /// A structured answer could not be used (no JSON object, or it broke the response
    /// schema) and was sent back to the model with these errors for a corrected answer.
    StructuredAnswerRejected {
        /// Step number.
        step: usize,
        /// Which answer of this step (1-based).
        attempt: u32,
        /// The errors the model was sent, one `field: message` each.
        errors: Vec<String>,
    },
    /// A structured answer was accepted: the model's decision for this step.
    StructuredDecision {
        /// Step number.
        step: usize,
        /// Which answer of this step was accepted (1-based).
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
    },
    /// The run ended.
    RunFinished {
        /// How: `done`, `failed`, `max_steps`, `max_tokens`, `refusal`.
        outcome: String,
        /// The reason, for anything but `done`.
        reason: Option<String>,
        /// Steps taken.
        steps: usize,
        /// Tokens used.
        usage: Usage,
        /// Wall time.
        duration_ms: u64,
    },
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

/// Writes one JSON object per line to a file: the machine-readable log of a run.
#[derive(Debug)]
pub struct JsonLinesSink {
    file: Mutex<std::io::BufWriter<std::fs::File>>,
}

impl JsonLinesSink {
    /// Creates (or truncates) the log file.
    pub fn create(path: &Path) -> std::io::Result<Arc<Self>> {
        let file = std::fs::File::create(path)?;
        Ok(Arc::new(Self {
            file: Mutex::new(std::io::BufWriter::new(file)),
        }))
    }
}

impl EventSink for JsonLinesSink {
    fn emit(&self, event: &Event) {
        let Ok(mut file) = self.file.lock() else {
            return;
        };
        if let Ok(line) = serde_json::to_string(event) {
            // A log write that fails must not stop the run; the run's result is unaffected.
            let _ = writeln!(file, "{line}");
            let _ = file.flush();
        }
    }
}
