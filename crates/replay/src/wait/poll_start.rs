//! How a phase's polling starts: which parts of the screen its checks read, whether it
//! polls with screenshots at all, and what the last phase handed over (a screenshot, the
//! page's answers) that it may take as its first look.

use std::sync::Arc;

use retrace_protocol::events::CheckPhase;
use retrace_vision::Image;
use retrace_vision::Region;

use super::verdict::ScreenError;
use super::verdict::blank_screen;
use super::waiter::Waiter;
use super::waiter::polls_without_screenshots;
use crate::checks::Look;
use crate::checks::StepCheck;
use crate::plan::PlannedStep;

/// What a phase starts polling with.
pub(super) struct PollStart {
    /// Whether its checks ask the page alone (no screenshot of their own).
    pub asks_page_alone: bool,
    /// The picture handed to checks that read no screenshot, when they take none.
    pub blank: Option<Arc<Image>>,
    /// The part the first look captures.
    pub first_part: Option<Region>,
    /// The part later looks capture (before acting: the search radius around the control).
    pub part: Option<Region>,
    /// The screenshot the last phase handed over, taken as the first look.
    pub remembered: Option<Arc<Image>>,
    /// The page's answers asked ahead of this step, handed over with that screenshot.
    pub answers: Option<Vec<(&'static str, Look)>>,
}

impl Waiter<'_> {
    /// Decides how the phase `phase` of `step` polls; `reach` is the square around the
    /// control where it could be (its region and the search radius).
    pub(super) async fn poll_start(
        &self,
        step: &PlannedStep,
        at: Option<(i64, i64)>,
        checks: &[Arc<dyn StepCheck>],
        phase: CheckPhase,
        reach: u32,
    ) -> Result<PollStart, ScreenError> {
        let after = phase == CheckPhase::After;
        let repair = phase == CheckPhase::Before && at.is_some();
        // The checks read only the hashed squares around the points they look at: only that
        // part is captured (after acting, with what the next step looks at first), until
        // something needs the whole screen (a search for the control, a failure's
        // evidence): then a failing look is taken again on a whole screenshot at once.
        // Before acting, once the first look failed, the polls also capture the search
        // radius around them, where the control could be on its way (see `watched`).
        // After acting, checks that ask the page alone (the typed value) take no screenshot,
        // unless the next step looks at the screen first: then the part it reads is captured
        // while they ask, and handed over to it.
        let region_size = self.env.hashing.region_size;
        let asks_page_alone = polls_without_screenshots(checks, repair);
        // Checks that read the screen at no point read all of it.
        let after_part = match after && (at.is_some() || asks_page_alone) {
            true => self.part_read(step, at, checks, region_size, true).await,
            false => None,
        };
        let blank = (asks_page_alone && after_part.is_none())
            .then(blank_screen)
            .transpose()?;
        let (first_part, part) = match (at, &blank) {
            (Some(at), None) if repair => (
                self.part_read(step, Some(at), checks, region_size, false)
                    .await,
                self.part_read(step, Some(at), checks, reach, false).await,
            ),
            (_, None) if after => (after_part, after_part),
            _ => (None, None),
        };
        // The first look may be at the screenshot the last phase passed on (no action has
        // been taken in between) when it shows that part: handed over at once, or when the
        // page says nothing changed since; with it, or in place of a look that takes none,
        // the page's answers asked ahead of this step at the same moment.
        let remembered = self.first_look(first_part).await;
        let answers = match remembered.is_some() || blank.is_some() {
            true => self.answers_handed_over(step, checks),
            false => None,
        };
        Ok(PollStart {
            asks_page_alone,
            blank,
            first_part,
            part,
            remembered,
            answers,
        })
    }
}
