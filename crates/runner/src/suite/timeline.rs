//! [`Timeline`]: a test's own subscriber to its replay's events, from which its step timeline
//! ([`StepRecord`]s, 1-based trajectory steps, folded by `retrace-report`'s timeline, as the
//! console folds them) and its failure's evidence crops are read, the way
//! [`crate::collect::Collector`] reads the outcome.

use std::sync::Mutex;

use retrace_protocol::events::Event;
use retrace_protocol::events::EventSink;
use retrace_protocol::events::ReplayFailure;
use retrace_protocol::events::StepRecord;

/// Steps seen so far, and the failure with its crops.
#[derive(Debug, Default)]
pub struct Timeline {
    seen: Mutex<Seen>,
}

#[derive(Debug, Default)]
struct Seen {
    steps: retrace_report::timeline::Timeline,
    failure: Option<ReplayFailure>,
}

impl Timeline {
    /// Every step seen, in trajectory order.
    pub fn steps(&self) -> Vec<StepRecord> {
        self.seen
            .lock()
            .map(|seen| seen.steps.steps())
            .unwrap_or_default()
    }

    /// The failed step, with its expected and actual crops when the check took them.
    pub fn failure(&self) -> Option<ReplayFailure> {
        self.seen.lock().ok().and_then(|seen| seen.failure.clone())
    }
}

impl EventSink for Timeline {
    fn emit(&self, event: &Event) {
        let Ok(mut seen) = self.seen.lock() else {
            return;
        };
        seen.steps.apply(event);
        if let Event::StepFailed(failure) = event {
            seen.failure = Some(failure.clone());
        }
    }
}
