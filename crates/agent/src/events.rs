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
    /// After the last replayed step, its effect was checked against the recorded
    /// after-action hash.
    EffectCheck {
        /// Step number in the run.
        step: usize,
        /// Index in the trajectory file of the step whose effect was checked.
        trajectory_index: usize,
        /// Hamming distance between the recorded after-action hash and the current one.
        distance: u32,
        /// The largest distance that passes.
        threshold: u32,
        /// Whether the check passed.
        passed: bool,
        /// How long replay waited for the screen to match.
        waited_ms: u64,
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

/// Values that must never reach a log or the terminal (parameter values such as passwords),
/// and the scrubbing of them out of text. A model may echo a value it was given in its own
/// words; whatever carries such text out of the process scrubs it first.
#[derive(Clone, Default)]
pub struct Secrets(Arc<[SecretForms]>);

/// One secret as written and as it appears inside a JSON string (escaped), worked out once.
#[derive(Clone)]
struct SecretForms {
    plain: String,
    escaped: String,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "Secrets({} redacted)", self.0.len())
    }
}

impl Secrets {
    /// The text put where a secret was.
    pub const MARK: &'static str = "<redacted>";

    /// Secrets from their values (empty values are ignored: they cannot be found).
    pub fn new<'a>(values: impl IntoIterator<Item = &'a str>) -> Self {
        let mut forms: Vec<SecretForms> = values
            .into_iter()
            .filter(|value| !value.is_empty())
            .map(|value| {
                let quoted = serde_json::Value::from(value).to_string();
                let escaped = quoted
                    .strip_prefix('"')
                    .and_then(|inner| inner.strip_suffix('"'))
                    .unwrap_or(value)
                    .to_owned();
                SecretForms {
                    plain: value.to_owned(),
                    escaped,
                }
            })
            .collect();
        // Longest first, so a secret containing another is replaced whole.
        forms.sort_by_key(|forms| std::cmp::Reverse(forms.plain.len()));
        Self(forms.into())
    }

    /// `text` with every secret replaced by [`Secrets::MARK`], both as written and as it
    /// appears inside a JSON string (escaped).
    pub fn scrub<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        let mut text = std::borrow::Cow::Borrowed(text);
        for secret in self.0.iter() {
            for form in [&secret.plain, &secret.escaped] {
                if text.contains(form.as_str()) {
                    text = std::borrow::Cow::Owned(text.replace(form.as_str(), Self::MARK));
                }
            }
        }
        text
    }
}

/// Writes one JSON object per line to a file: the machine-readable log of a run.
#[derive(Debug)]
pub struct JsonLinesSink {
    file: Mutex<std::io::BufWriter<std::fs::File>>,
    secrets: Secrets,
}

impl JsonLinesSink {
    /// Creates (or truncates) the log file.
    pub fn create(path: &Path) -> std::io::Result<Arc<Self>> {
        Self::create_scrubbing(path, Secrets::default())
    }

    /// Creates (or truncates) the log file; every line is scrubbed of `secrets`.
    pub fn create_scrubbing(path: &Path, secrets: Secrets) -> std::io::Result<Arc<Self>> {
        let file = std::fs::File::create(path)?;
        Ok(Arc::new(Self {
            file: Mutex::new(std::io::BufWriter::new(file)),
            secrets,
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
            let _ = writeln!(file, "{}", self.secrets.scrub(&line));
            let _ = file.flush();
        }
    }
}

#[cfg(test)]
mod secrets_tests {
    use super::*;

    #[test]
    fn scrubs_plain_and_json_escaped_values_longest_first_and_ignores_empty_ones() {
        let secrets = Secrets::new(["pa\"ss", "pa", ""]);
        assert_eq!(secrets.scrub("typed pa\"ss here"), "typed <redacted> here");
        let line = serde_json::json!({"message": "typed pa\"ss"}).to_string();
        assert_eq!(secrets.scrub(&line), r#"{"message":"typed <redacted>"}"#);
        assert_eq!(secrets.scrub("pa and pa"), "<redacted> and <redacted>");
        assert!(matches!(
            secrets.scrub("nothing secret"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(format!("{secrets:?}"), "Secrets(2 redacted)");
    }

    #[test]
    fn the_json_lines_log_never_holds_a_secret() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let sink = JsonLinesSink::create_scrubbing(&path, Secrets::new(["hunter2"])).unwrap();
        sink.emit(&Event::StructuredDecision {
            step: 1,
            attempt: 1,
            decision: "PROCEED".into(),
            command: Some("INPUT_TEXT".into()),
            message: "typing hunter2 into #password".into(),
        });
        let log = std::fs::read_to_string(&path).unwrap();
        assert!(!log.contains("hunter2"), "{log}");
        assert!(log.contains("typing <redacted> into #password"), "{log}");
    }
}
