//! The wait engine's use of [`crate::frame_memory`]: the screenshot the last phase passed on,
//! looked at again while the page says it is still shown.

use std::sync::Arc;

use retrace_drive::readiness::PageActivity;
use retrace_vision::Image;
use retrace_vision::Region;

use super::Waiter;
use crate::frame_memory::Shot;

impl Waiter<'_> {
    /// The screenshot the last phase passed on, when the page (a browser's: a desktop has
    /// nothing to ask) says it still shows, and it shows all of `needed` (the whole screen
    /// when `None`).
    pub(super) async fn still_shown(&self, needed: Option<Region>) -> Option<Arc<Image>> {
        if !self.memory.holds(needed) {
            return None;
        }
        let activity = self.activity_now().await;
        self.still_shown_given(activity, needed)
    }

    /// What the page (a browser's) says it is doing now; `None` without a page, or when it
    /// does not answer.
    pub(super) async fn activity_now(&self) -> Option<PageActivity> {
        self.env.page.as_ref()?.activity().await.ok()
    }

    /// The remembered screenshot, when it shows all of `needed` and `activity` (asked after
    /// it was taken) says the page has not changed since.
    pub(super) fn still_shown_given(
        &self,
        activity: Option<PageActivity>,
        needed: Option<Region>,
    ) -> Option<Arc<Image>> {
        let activity = activity?;
        let shown = self.memory.still_shown(&activity, needed);
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
