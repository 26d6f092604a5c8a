//! A test's step timeline: the event stream of a replay folded into one [`StepRecord`] per
//! step, the one place that logic lives. The console prints each record as a line
//! ([`crate::console`]); a suite's runner subscribes a [`TimelineSink`] per test and keeps its
//! [`TimelineSink::steps`] in the test's report.
//!
//! A step's record is complete when an event of another step arrives, or an event that ends
//! the step's part of the run (a model call, a hand-over, the replay's end...): see
//! [`StepAssembler::apply`]. Its checks are kept in the order they ran; its waits are added
//! up once per phase (every check of one verdict reports the same wait, so a step checked
//! visually and semantically before acting waited once, not twice).

use std::sync::Arc;
use std::sync::Mutex;

use retrace_protocol::events::CheckPhase;
use retrace_protocol::events::Event;
use retrace_protocol::events::EventSink;
use retrace_protocol::events::StepCheckRecord;
use retrace_protocol::events::StepRecord;

/// The step being put together, with its waits per phase (kept apart until it completes).
#[derive(Debug)]
struct PendingStep {
    record: StepRecord,
    settle_wait_ms: u64,
    before_wait_ms: u64,
    after_wait_ms: u64,
}

impl PendingStep {
    fn new(step: usize) -> Self {
        Self {
            record: StepRecord {
                step,
                action: None,
                checks: Vec::new(),
                waited_ms: 0,
                repaired: None,
                acted_ms: None,
                error: None,
                settled: None,
            },
            settle_wait_ms: 0,
            before_wait_ms: 0,
            after_wait_ms: 0,
        }
    }

    fn record(&self) -> StepRecord {
        let mut record = self.record.clone();
        record.waited_ms = self.settle_wait_ms + self.before_wait_ms + self.after_wait_ms;
        record
    }
}

/// Folds events into step records one step at a time; pure, with no locking (the sinks
/// around it lock).
#[derive(Debug, Default)]
pub struct StepAssembler {
    pending: Option<PendingStep>,
}

impl StepAssembler {
    /// A fresh assembler.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes in one event and returns the steps it completed, in order (usually none or one).
    ///
    /// Step events (`ScreenSettled`, `CheckFinished`, `ToolCalled` with a step, `StepFailed`)
    /// add to their step's record, completing the previous step's when the step changes.
    /// Events that end a stretch of replay (`ReplayStarted`, a tool call outside the
    /// trajectory, a hand-over, a model call or retry, a structured answer, a recording, the
    /// failure and end of a replay, of a run, a session, a test or a suite) complete the
    /// pending step. Turn starts, usage and page-check attempts change nothing.
    pub fn apply(&mut self, event: &Event) -> Vec<StepRecord> {
        match event {
            Event::ScreenSettled {
                step,
                settled,
                waited_ms,
            } => self.with_step(*step, |pending| {
                pending.settle_wait_ms += waited_ms;
                pending.record.settled = Some(*settled);
            }),
            Event::CheckFinished(check) => self.with_step(check.step, |pending| {
                // Every look of one verdict reports the verdict's wait: count it once.
                let wait = match check.phase {
                    CheckPhase::Before => &mut pending.before_wait_ms,
                    CheckPhase::After => &mut pending.after_wait_ms,
                };
                *wait = (*wait).max(check.waited_ms);
                if check.shift.is_some() {
                    pending.record.repaired = check.shift;
                }
                pending.record.checks.push(StepCheckRecord {
                    check: check.check.clone(),
                    phase: check.phase,
                    passed: check.passed,
                    distance: check.distance,
                    threshold: check.threshold,
                    detail: check.detail.clone(),
                });
            }),
            Event::ToolCalled {
                step: Some(step),
                tool,
                summary,
                duration_ms,
                error,
                ..
            } => self.with_step(*step, |pending| {
                pending.record.action = Some(if summary.is_empty() {
                    tool.clone()
                } else {
                    summary.clone()
                });
                pending.record.acted_ms = Some(*duration_ms);
                pending.record.error.clone_from(error);
            }),
            Event::StepFailed(failure) => {
                // A step can fail before anything else was said of it (a missing parameter):
                // it still gets its record, naming what it would have done.
                let mut done = self.with_step(failure.step, |pending| {
                    if pending.record.action.is_none() && !failure.action.is_empty() {
                        pending.record.action = Some(failure.action.clone());
                    }
                });
                done.extend(self.finish());
                done
            }
            Event::ReplayStarted { .. }
            | Event::ToolCalled { step: None, .. }
            | Event::SpeakerSwitched { .. }
            | Event::Retry { .. }
            | Event::ModelNotice { .. }
            | Event::TargetNotice { .. }
            | Event::ModelCall { .. }
            | Event::StructuredDecision { .. }
            | Event::StructuredAnswerRejected { .. }
            | Event::CacheWritten { .. }
            | Event::Demonstration(_)
            | Event::ReplayFinished(_)
            | Event::RunFinished { .. }
            | Event::SessionFinished(_)
            | Event::TestStarted { .. }
            | Event::TestFinished(_)
            | Event::SuiteFinished(_) => self.finish().into_iter().collect(),
            Event::RunStarted { .. }
            | Event::TurnStarted { .. }
            | Event::Usage { .. }
            | Event::CheckAttemptFinished { .. }
            | Event::CheckRetryScheduled { .. } => Vec::new(),
        }
    }

    /// Completes the pending step, if any.
    pub fn finish(&mut self) -> Option<StepRecord> {
        self.pending.take().map(|pending| pending.record())
    }

    /// The pending step as it stands, without completing it.
    pub fn pending(&self) -> Option<StepRecord> {
        self.pending.as_ref().map(PendingStep::record)
    }

    /// Changes the record of `step`, first completing the pending one when it is another step.
    fn with_step(&mut self, step: usize, change: impl FnOnce(&mut PendingStep)) -> Vec<StepRecord> {
        let done = match &self.pending {
            Some(pending) if pending.record.step != step => self.finish(),
            _ => None,
        };
        change(self.pending.get_or_insert_with(|| PendingStep::new(step)));
        done.into_iter().collect()
    }
}

/// The whole timeline of one test: every completed step of its last attempt, and the one
/// being put together.
#[derive(Debug, Default)]
pub struct Timeline {
    assembler: StepAssembler,
    steps: Vec<StepRecord>,
}

impl Timeline {
    /// An empty timeline.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes in one event. A `TestStarted` (a new attempt) starts the timeline afresh: a
    /// test's report keeps its last attempt's steps.
    pub fn apply(&mut self, event: &Event) {
        let done = self.assembler.apply(event);
        if matches!(event, Event::TestStarted { .. }) {
            self.steps.clear();
        } else {
            self.steps.extend(done);
        }
    }

    /// The steps so far, the pending one included.
    pub fn steps(&self) -> Vec<StepRecord> {
        let mut steps = self.steps.clone();
        steps.extend(self.assembler.pending());
        steps
    }

    /// The steps, the pending one completed.
    pub fn into_steps(mut self) -> Vec<StepRecord> {
        self.steps.extend(self.assembler.finish());
        self.steps
    }
}

/// The timeline of a recorded event stream.
pub fn timeline_of<'a>(events: impl IntoIterator<Item = &'a Event>) -> Vec<StepRecord> {
    let mut timeline = Timeline::new();
    for event in events {
        timeline.apply(event);
    }
    timeline.into_steps()
}

/// A [`Timeline`] as an event sink: the runner subscribes one per test and reads
/// [`TimelineSink::steps`] when the test ends.
#[derive(Debug, Default)]
pub struct TimelineSink {
    timeline: Mutex<Timeline>,
}

impl TimelineSink {
    /// An empty timeline sink.
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// The steps so far, the pending one included.
    pub fn steps(&self) -> Vec<StepRecord> {
        self.timeline
            .lock()
            .map(|timeline| timeline.steps())
            .unwrap_or_default()
    }
}

impl EventSink for TimelineSink {
    fn emit(&self, event: &Event) {
        if let Ok(mut timeline) = self.timeline.lock() {
            timeline.apply(event);
        }
    }
}

#[cfg(test)]
#[path = "timeline_tests.rs"]
mod tests;
