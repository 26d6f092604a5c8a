//! [`Collector`]: the runner's own subscriber to a session's event stream, from which it
//! reads the session's result (the replay's outcome, how the conversation ended). Results
//! reach the runner the way they reach every sink.

use std::sync::Mutex;

use retrace_protocol::events::Event;
use retrace_protocol::events::EventSink;
use retrace_protocol::events::ReplayOutcome;

/// Keeps the last replay outcome and the last recording written.
#[derive(Debug, Default)]
pub struct Collector {
    seen: Mutex<Seen>,
}

#[derive(Debug, Default, Clone)]
struct Seen {
    replay: Option<ReplayOutcome>,
    recorded: Option<(std::path::PathBuf, Option<std::path::PathBuf>)>,
}

impl Collector {
    /// The last replay outcome reported, if any.
    pub fn replay(&self) -> Option<ReplayOutcome> {
        self.seen.lock().ok().and_then(|seen| seen.replay.clone())
    }

    /// The last recording written, with the file it replaced, if any.
    pub fn recorded(&self) -> Option<(std::path::PathBuf, Option<std::path::PathBuf>)> {
        self.seen.lock().ok().and_then(|seen| seen.recorded.clone())
    }
}

impl EventSink for Collector {
    fn emit(&self, event: &Event) {
        let Ok(mut seen) = self.seen.lock() else {
            return;
        };
        match event {
            Event::ReplayFinished(outcome) => seen.replay = Some((**outcome).clone()),
            Event::CacheWritten { path, previous, .. } => {
                seen.recorded = Some((path.clone(), previous.clone()));
            }
            _ => {}
        }
    }
}
