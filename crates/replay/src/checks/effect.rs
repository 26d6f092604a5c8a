//! The effect check: after a step acts, did the screen reach the state recorded after the
//! action? The recording holds the hash of the region around the point in the screenshot the
//! action returned (`visual_representation_after`); replay waits for the region around the
//! point it acted at to match it (for a repaired step, the moved point or the recorded one:
//! a moved control shows its new state where it moved, a moved submit button leads to a page
//! that did not move). A click that did nothing fails at its own step, not at whichever later
//! step happens to look.
//!
//! Pixels are the check of last resort: a step that started a navigation when recorded is
//! checked by where it led ([`super::navigation`]) on a browser, and a recorded region that is
//! blank (or nearly: [`retrace_vision::ImageHash::is_near_flat`]) is not checked at all (it
//! can detect nothing, and fails the step when anything unrelated is drawn there later; the
//! replay says so up front). A region the recorder re-centred on the nearest content
//! (`visual_representation_after_recentred`) is looked at there, moved with the step's repair.

use std::sync::Arc;

use async_trait::async_trait;
use retrace_protocol::events::CheckPhase;
use retrace_vision::Image;

use super::step_check::CheckEnv;
use super::step_check::Look;
use super::step_check::StepCheck;
use super::step_check::distance_look;
use super::step_check::point;
use super::step_check::region_distance;
use crate::plan::PlannedStep;

/// The after-action hash check.
#[derive(Debug, Clone, Copy, Default)]
pub struct EffectCheck;

/// Its name in events and reports.
pub const EFFECT: &str = "effect";

#[async_trait]
impl StepCheck for EffectCheck {
    fn name(&self) -> &'static str {
        EFFECT
    }

    fn phase(&self) -> CheckPhase {
        CheckPhase::After
    }

    fn applies(&self, step: &PlannedStep, env: &CheckEnv) -> bool {
        let navigation_checked = env.page.is_some() && step.page_after.is_some();
        env.effects_checked()
            && step.point.is_some()
            && step
                .after
                .as_ref()
                .is_some_and(|after| !after.is_near_flat())
            && !navigation_checked
    }

    /// The point it acted at, and for a repaired step the recorded one too (each moved to
    /// the re-centred region, when the recording re-centred it).
    fn points_read(&self, step: &PlannedStep, at: (i64, i64)) -> Vec<(i64, i64)> {
        step.point
            .filter(|point| *point != at)
            .into_iter()
            .chain([at])
            .map(|point| region_centre(step, point))
            .collect()
    }

    async fn look(
        &self,
        step: &PlannedStep,
        at: Option<(i64, i64)>,
        screen: &Arc<Image>,
        env: &CheckEnv,
    ) -> Result<Look, String> {
        let at = point(at)?;
        let Some(recorded) = &step.after else {
            return Err("the step has no recorded after-action hash".into());
        };
        // A repaired step acted at a moved point: a control that moved shows its new state
        // there, but a step that leads to another page (a moved submit button) shows that page
        // where it was recorded. Either one is the recorded effect.
        let mut distance = region_distance(screen, region_centre(step, at), recorded, env.hashing)?;
        if let Some(recorded_at) = step.point.filter(|point| *point != at) {
            let centre = region_centre(step, recorded_at);
            distance = distance.min(region_distance(screen, centre, recorded, env.hashing)?);
        }
        Ok(distance_look(
            distance,
            env.threshold_for(recorded.bits().len()),
            "the screen region did not reach the state recorded after the action",
        ))
    }
}

/// Where the after-action region of `step` acting at `at` is centred: the re-centred point
/// moved as the step's point moved, else `at`.
pub(crate) fn region_centre(step: &PlannedStep, at: (i64, i64)) -> (i64, i64) {
    match (step.after_at, step.point) {
        (Some(centre), Some(point)) => (centre.0 + at.0 - point.0, centre.1 + at.1 - point.1),
        _ => at,
    }
}
