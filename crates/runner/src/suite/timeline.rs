//! [`Timeline`]: a test's own subscriber to its replay's events, from which its step timeline
//! ([`StepRecord`]s, 1-based trajectory steps) and its failure's evidence crops are read, the
//! way [`crate::collect::Collector`] reads the outcome.

use std::collections::BTreeMap;
use std::sync::Mutex;

use retrace_protocol::events::Event;
use retrace_protocol::events::EventSink;
use retrace_protocol::events::ReplayFailure;
use retrace_protocol::events::StepCheckRecord;
use retrace_protocol::events::StepRecord;

/// Steps seen so far, and the failure with its crops.
#[derive(Debug, Default)]
pub struct Timeline {
    seen: Mutex<Seen>,
}

#[derive(Debug, Default)]
struct Seen {
    steps: BTreeMap<usize, StepRecord>,
    failure: Option<ReplayFailure>,
}

impl Timeline {
    /// Every step seen, in trajectory order.
    pub fn steps(&self) -> Vec<StepRecord> {
        self.seen
            .lock()
            .map(|seen| seen.steps.values().cloned().collect())
            .unwrap_or_default()
    }

    /// The failed step, with its expected and actual crops when the check took them.
    pub fn failure(&self) -> Option<ReplayFailure> {
        self.seen.lock().ok().and_then(|seen| seen.failure.clone())
    }
}

fn record(steps: &mut BTreeMap<usize, StepRecord>, step: usize) -> &mut StepRecord {
    steps.entry(step).or_insert_with(|| StepRecord {
        step,
        action: None,
        checks: Vec::new(),
        waited_ms: 0,
        repaired: None,
        acted_ms: None,
        error: None,
    })
}

impl EventSink for Timeline {
    fn emit(&self, event: &Event) {
        let Ok(mut seen) = self.seen.lock() else {
            return;
        };
        match event {
            Event::ToolCalled {
                step: Some(step),
                summary,
                duration_ms,
                is_error,
                error,
                ..
            } => {
                let record = record(&mut seen.steps, *step);
                record.action = Some(summary.clone());
                record.acted_ms = Some(*duration_ms);
                if *is_error {
                    record.error = error.clone().or_else(|| Some("the tool failed".into()));
                }
            }
            Event::CheckFinished(check) => {
                let record = record(&mut seen.steps, check.step);
                record.waited_ms += check.waited_ms;
                if check.passed && check.shift.is_some() {
                    record.repaired = check.shift;
                }
                record.checks.push(StepCheckRecord {
                    check: check.check.clone(),
                    phase: check.phase,
                    passed: check.passed,
                    distance: check.distance,
                    threshold: check.threshold,
                    detail: check.detail.clone(),
                });
            }
            Event::ScreenSettled {
                step, waited_ms, ..
            } => record(&mut seen.steps, *step).waited_ms += waited_ms,
            Event::StepFailed(failure) => {
                let record = record(&mut seen.steps, failure.step);
                record.action.get_or_insert_with(|| failure.action.clone());
                record.error = Some(failure.message.clone());
                seen.failure = Some(failure.clone());
            }
            _ => {}
        }
    }
}
