//! [`Tally`]: what a replay did so far, kept as it goes and sent out as events: each check
//! as it finishes, the failure, and the [`ReplayOutcome`] at the end. Results leave a replay
//! through the event stream only.

use std::collections::BTreeMap;
use std::time::Instant;

use retrace_protocol::events::CheckPhase;
use retrace_protocol::events::CheckResult;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use retrace_protocol::events::Repair;
use retrace_protocol::events::ReplayFailure;
use retrace_protocol::events::ReplayOutcome;
use retrace_protocol::events::ReplayStatus;

use crate::plan::Plan;
use crate::wait::Verdict;

/// A replay's running account.
#[derive(Debug)]
pub struct Tally {
    started: Instant,
    steps_replayed: usize,
    checks_passed: BTreeMap<String, usize>,
    repairs: Vec<Repair>,
}

impl Tally {
    /// A new account, announced with a [`Event::ReplayStarted`].
    pub fn start(plan: &Plan, events: &Events) -> Self {
        events.emit(Event::ReplayStarted {
            file: plan.path.clone(),
            steps: plan.steps.len(),
            start: plan.start + 1,
            checks_off: plan.checks_off.clone(),
        });
        Self {
            started: Instant::now(),
            steps_replayed: 0,
            checks_passed: BTreeMap::new(),
            repairs: Vec::new(),
        }
    }

    /// Counts a step acted.
    pub fn acted(&mut self) {
        self.steps_replayed += 1;
    }

    /// Reports every look of a verdict on step `number` as a [`Event::CheckFinished`], and
    /// notes its repair.
    pub fn checked(
        &mut self,
        events: &Events,
        number: usize,
        phase: CheckPhase,
        verdict: &Verdict,
    ) {
        let shift = verdict.relocation.map(|hit| hit.offset);
        if let Some(offset) = shift {
            let distance = verdict
                .looks
                .first()
                .and_then(|(_, look)| look.distance)
                .unwrap_or(0);
            self.repairs.push(Repair {
                step: number,
                offset,
                distance,
            });
        }
        for (name, look) in &verdict.looks {
            if look.passed {
                *self.checks_passed.entry((*name).to_owned()).or_default() += 1;
            }
            events.emit(Event::CheckFinished(CheckResult {
                step: number,
                check: (*name).to_owned(),
                phase,
                passed: look.passed,
                distance: look.distance,
                threshold: look.threshold,
                waited_ms: millis(verdict.waited.as_millis()),
                shift,
                detail: look.detail.clone(),
            }));
        }
    }

    /// Ends the account: [`Event::StepFailed`] when there is a failure, then
    /// [`Event::ReplayFinished`] with the outcome.
    pub fn finish(
        self,
        events: &Events,
        plan: &Plan,
        status: ReplayStatus,
        failure: Option<ReplayFailure>,
    ) -> ReplayOutcome {
        if let Some(failure) = &failure {
            events.emit(Event::StepFailed(failure.clone()));
        }
        let outcome = ReplayOutcome {
            file: plan.path.clone(),
            status,
            steps_total: plan.steps.len(),
            steps_replayed: self.steps_replayed,
            checks_passed: self.checks_passed,
            repairs: self.repairs,
            failure,
            checks_off: plan.checks_off.clone(),
            duration_ms: millis(self.started.elapsed().as_millis()),
        };
        events.emit(Event::ReplayFinished(Box::new(outcome.clone())));
        outcome
    }
}

/// Milliseconds as the events carry them.
pub fn millis(value: u128) -> u64 {
    u64::try_from(value).unwrap_or(u64::MAX)
}
