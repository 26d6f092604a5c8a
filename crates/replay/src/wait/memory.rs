//! The wait engine's use of [`crate::frame_memory`]: the screenshot the last phase passed on,
//! looked at again while the page says it is still shown.

use std::sync::Arc;
use std::time::Instant;

use retrace_drive::readiness::PageActivity;
use retrace_vision::Image;
use retrace_vision::Region;

use super::waiter::Waiter;
use crate::checks::Look;
use crate::checks::StepCheck;
use crate::frame_memory::Shot;
use crate::plan::PlannedStep;

impl Waiter<'_> {
    /// A phase's first look, when it can be at the screenshot the last phase passed on and
    /// that shows all of `needed`: handed over as it is when that phase passed on it just
    /// now, else when the page says it is still shown (see [`crate::frame_memory`]).
    pub(super) async fn first_look(&self, needed: Option<Region>) -> Option<Arc<Image>> {
        let within = self.env.settings.poll_interval;
        if let Some(screen) = self.memory.handed_over(needed, within) {
            tracing::debug!(
                handed_over = true,
                "the last phase's screenshot, taken just now"
            );
            return Some(screen);
        }
        self.still_shown(needed).await
    }

    /// The page's answers to those of `checks` that ask it alone, asked ahead of `step` by
    /// the last phase's poll and handed over with its screenshot (see
    /// [`crate::frame_memory`]); `None` when they were not asked, are older than a poll
    /// interval, or are not these checks' answers.
    pub(super) fn answers_handed_over(
        &self,
        step: &PlannedStep,
        checks: &[Arc<dyn StepCheck>],
    ) -> Option<Vec<(&'static str, Look)>> {
        let within = self.env.settings.poll_interval;
        let looks = self.memory.answers_handed_over(step.index, within)?;
        let asked = checks
            .iter()
            .filter(|check| !check.reads_screen())
            .map(|check| check.name());
        if !asked.eq(looks.iter().map(|(name, _)| *name)) {
            return None;
        }
        tracing::debug!(
            step = step.number(),
            "the page's answers asked ahead of this step, just now"
        );
        Some(looks)
    }

    /// The screenshot the last phase passed on, when the page (a browser's: a desktop has
    /// nothing to ask) says it still shows, and it shows all of `needed` (the whole screen
    /// when `None`).
    pub(super) async fn still_shown(&self, needed: Option<Region>) -> Option<Arc<Image>> {
        if !self.memory.holds(needed) {
            return None;
        }
        let answer = self.activity_now().await;
        self.still_shown_given(answer, needed)
    }

    /// What the page (a browser's) says it is doing now, and when its answer arrived (taken
    /// as soon as it does, even while the caller waits for something else); `None` without a
    /// page, or when it does not answer.
    pub(super) async fn activity_now(&self) -> Option<(PageActivity, Instant)> {
        let activity = self.env.page.as_ref()?.activity().await.ok()?;
        Some((activity, Instant::now()))
    }

    /// The remembered screenshot, when it shows all of `needed` and `answer` (asked after it
    /// was asked for, with when it arrived) says the page has not changed since.
    pub(super) fn still_shown_given(
        &self,
        answer: Option<(PageActivity, Instant)>,
        needed: Option<Region>,
    ) -> Option<Arc<Image>> {
        let (activity, answered) = answer?;
        let shown = self.memory.still_shown(&activity, answered, needed);
        if shown.is_none() && self.memory.holds(needed) {
            tracing::debug!(
                ?activity,
                "the page changed since the last verified screenshot"
            );
        }
        shown
    }

    /// Remembers a screenshot a phase passed on, on a browser page that was not busy.
    pub(super) fn remember(&self, shot: Shot) {
        if self.env.page.is_some() {
            self.memory.remember(shot);
        }
    }
}
