//! The settle rule: when a phase whose checks do not pass has waited long enough, because
//! nothing on the page will change by waiting longer (see `docs/replay-waiting.md`).
//!
//! The pixels watched are where the checks read: before acting, the control's region and
//! the search radius around it; after acting, the region where the step acted. A change back
//! to a picture seen earlier in the phase (a caret blinking) does not count, nor does any
//! change while the page says nothing could have changed its picture ([`PageQuiet::picture`]:
//! a caret blinks unseen by the page). After acting, pixels alone are not enough: the page
//! must also say that nothing happened for as long (no request started or ended, no frame
//! loading, no DOM change since the action), since an effect may be on its way from a
//! server.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

use retrace_vision::Image;
use retrace_vision::Region;

use super::look::PageQuiet;
use super::verdict::Verdict;
use super::waiter::Waiter;
use crate::checks::StepCheck;
use crate::plan::PlannedStep;

/// How many distinct pictures a phase remembers to tell a periodic change (a caret blinking,
/// a two-state pulse) from a new one.
const PERIODIC_STATES: usize = 4;

/// When the screen and the page last did anything, while a phase polls.
///
/// A change back to a picture seen earlier in the phase (within the last
/// [`PERIODIC_STATES`] distinct ones) is periodic: a caret blinking in a focused field next to
/// the control, a dot pulsing between two states. It is masked: it does not count as activity,
/// so a failing step on a page otherwise settled fails then, not at the step timeout. A
/// picture never seen before (a page still drawing, a control on its way) counts.
#[derive(Debug)]
pub(super) struct Settling {
    /// The distinct pictures seen, each with when it was last seen, the latest last.
    seen: VecDeque<(Arc<Image>, Instant)>,
    /// The last time a screenshot showed a picture not seen before, or the page was busy.
    pub last_activity: Instant,
}

impl Settling {
    pub fn new() -> Self {
        Self {
            seen: VecDeque::with_capacity(PERIODIC_STATES),
            last_activity: Instant::now(),
        }
    }

    /// Notes a screenshot and whether the page was busy when it was taken. Only `watched`
    /// counts as a change (the whole screen when `None`); a return to a picture seen before
    /// does not (see the type's docs).
    pub fn saw(&mut self, screen: &Arc<Image>, busy: bool, watched: Option<Region>) {
        let now = Instant::now();
        let same = |(seen, _): &(Arc<Image>, Instant)| {
            retrace_vision::is_stable(seen, screen, watched).unwrap_or(false)
        };
        let unchanged = self.seen.back().is_some_and(same);
        let periodic = !unchanged && self.seen.iter().any(same);
        if (!unchanged && !periodic) || busy {
            self.last_activity = now;
        }
        self.seen.retain(|seen| !same(seen));
        if self.seen.len() == PERIODIC_STATES {
            self.seen.pop_front();
        }
        self.seen.push_back((Arc::clone(screen), now));
    }

    /// The pictures seen within `since` of now, but the last: while the page says nothing
    /// could have changed its picture, what differs between them is what draws unseen (a
    /// caret blinking).
    fn seen_within(&self, since: Duration) -> impl Iterator<Item = &Arc<Image>> {
        let count = self.seen.len().saturating_sub(1);
        self.seen
            .iter()
            .take(count)
            .filter(move |(_, at)| at.elapsed() <= since)
            .map(|(picture, _)| picture)
    }
}

impl Waiter<'_> {
    /// On a phase that settled without matching: a check that reads the screen and failed on
    /// the last picture, but passes on another one shown while the page says nothing could
    /// have changed its picture (`quiet`: a caret in its other state), is taken as passed, so
    /// the failure names only what differs. Only while another check still fails.
    pub(super) async fn masked_looks(
        &self,
        step: &PlannedStep,
        at: Option<(i64, i64)>,
        checks: &[Arc<dyn StepCheck>],
        settling: &Settling,
        quiet: PageQuiet,
        verdict: &mut Verdict,
    ) {
        let Some(since) = quiet.picture else {
            return;
        };
        let mut looks = verdict.looks.clone();
        for (check, (_, look)) in checks.iter().zip(looks.iter_mut()) {
            if look.passed || !check.reads_screen() {
                continue;
            }
            for picture in settling.seen_within(since) {
                if let Ok(other) = check.look(step, at, picture, self.env).await
                    && other.passed
                {
                    *look = other;
                    break;
                }
            }
        }
        if looks.iter().any(|(_, look)| !look.passed) {
            verdict.looks = looks;
        }
    }
}

/// The pixels a phase's stillness is judged on: the square of `reach` around `at`, within
/// the part of the screen the phase's screenshots show (`part`), so a whole screenshot taken
/// after parts (for a search or a failure's evidence) compares the same pixels as they did,
/// not the blank around a part. `None` (the whole screen) when the step acts at no point.
pub(super) fn watched_region(
    at: Option<(i64, i64)>,
    reach: u32,
    part: Option<Region>,
    (width, height): (u32, u32),
) -> Option<Region> {
    let around = retrace_vision::action_region(at?, reach, width, height);
    let Some(part) = part else {
        return Some(around);
    };
    let within = Region::new(
        around.left.max(part.left),
        around.top.max(part.top),
        around.right.min(part.right),
        around.bottom.min(part.bottom),
    );
    Some(match within.is_empty() {
        true => part,
        false => within,
    })
}

/// How long the screen (or the page) has stood still. A look that takes no screenshot
/// (`no_screenshot`: it asks where the focus is, where the page is) sees no pixels: the
/// page's word that its document has not repainted (`render_quiet`) stands for a still
/// screen.
fn settled_for(
    no_screenshot: bool,
    render_quiet: Option<Duration>,
    settling: &Settling,
) -> Duration {
    let still = settling.last_activity.elapsed();
    match no_screenshot {
        true => render_quiet.map_or(Duration::ZERO, |quiet| quiet.min(still)),
        false => still,
    }
}

/// What a failing poll saw of the page, for [`settled`].
#[derive(Debug, Clone, Copy)]
pub(super) struct PollFacts {
    /// Whether the page said it was busy (a request, a navigation, a document loading).
    pub busy: bool,
    /// Whether the poll took no screenshot (its checks ask the page alone).
    pub no_screenshot: bool,
    /// How long the page had been quiet, as it said.
    pub quiet: PageQuiet,
}

impl PollFacts {
    pub fn new(busy: bool, no_screenshot: bool, quiet: PageQuiet) -> Self {
        Self {
            busy,
            no_screenshot,
            quiet,
        }
    }
}

/// Whether a phase that waits for `still` (`None`: it never fails early) has settled after
/// this poll, for at least `quiet`: how long, when it has. The pixels' stillness counts, or
/// the page's word that nothing could have changed the picture
/// ([`PageQuiet::picture`]), whichever is longer: a caret blinking in a focused field draws
/// without the page doing anything.
pub(super) fn settled(
    still: Option<Still>,
    settling: &Settling,
    facts: PollFacts,
    quiet: Duration,
) -> Option<Duration> {
    let still = still?;
    if facts.busy {
        return None;
    }
    let pixels = settled_for(facts.no_screenshot, facts.quiet.render, settling);
    let picture = pixels.max(facts.quiet.picture.unwrap_or(Duration::ZERO));
    let settled_for = match still {
        Still::Effect => picture.min(facts.quiet.activity?),
        Still::Page => pixels,
        Still::Control => picture,
    };
    (settled_for >= quiet).then_some(settled_for)
}

/// What stood still when a phase ended early without matching.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Still {
    /// The page reported no repaint (its checks read no pixels).
    Page,
    /// The pixels around the control the step acts on.
    Control,
    /// The pixels where the step acted, and the page reported nothing since.
    Effect,
}

impl Still {
    /// What must stand still for a phase to fail early: only on a browser `page`; the page
    /// for checks that ask it alone (`asks_alone`), the control before acting at a point
    /// (`repair`), the effect after acting (`after`); `None` otherwise.
    pub fn of_phase(page: bool, asks_alone: bool, repair: bool, after: bool) -> Option<Still> {
        match (page, asks_alone, repair, after) {
            (false, ..) => None,
            (true, true, _, _) => Some(Still::Page),
            (true, false, true, _) => Some(Still::Control),
            (true, false, false, true) => Some(Still::Effect),
            (true, false, false, false) => None,
        }
    }
}

/// Why a phase ended early without matching: `still` stood still for `settled_for`.
pub(super) fn settled_note(still: Still, settled_for: Duration) -> String {
    let still = match still {
        Still::Page => "no change on the page",
        Still::Control => "no change around the control",
        Still::Effect => "no DOM change and no change where it acted",
    };
    format!(
        "the page settled (no request, no navigation, {still} for {:.1} s) without matching",
        settled_for.as_secs_f64()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn facts(busy: bool, quiet: PageQuiet) -> PollFacts {
        PollFacts {
            busy,
            no_screenshot: false,
            quiet,
        }
    }

    #[test]
    fn an_effect_settles_only_once_the_page_says_nothing_happened_for_as_long() {
        // Pixels that just changed (a caret's new state): 0 ms still.
        let settling = Settling::new();
        let quiet = |activity, picture| PageQuiet {
            render: picture,
            activity,
            picture,
        };
        let after = 500 * MS;
        // The page says nothing could change its picture, and nothing happened: settled.
        let page_still = quiet(Some(900 * MS), Some(800 * MS));
        assert_eq!(
            settled(
                Some(Still::Effect),
                &settling,
                facts(false, page_still),
                after
            ),
            Some(800 * MS)
        );
        // A request started or a node changed 100 ms ago: an effect may be on its way.
        let recent = quiet(Some(100 * MS), Some(800 * MS));
        assert_eq!(
            settled(Some(Still::Effect), &settling, facts(false, recent), after),
            None
        );
        // The page did not say: an effect never settles; a control's pixels decide alone.
        let unsaid = PageQuiet::default();
        assert_eq!(
            settled(Some(Still::Effect), &settling, facts(false, unsaid), after),
            None
        );
        assert_eq!(
            settled(Some(Still::Control), &settling, facts(false, unsaid), after),
            None
        );
        // A control's stillness is the page's word when the pixels changed.
        assert_eq!(
            settled(
                Some(Still::Control),
                &settling,
                facts(false, page_still),
                after
            ),
            Some(800 * MS)
        );
        // Busy, or a phase that never fails early: never settled.
        assert_eq!(
            settled(
                Some(Still::Control),
                &settling,
                facts(true, page_still),
                after
            ),
            None
        );
        assert_eq!(
            settled(None, &settling, facts(false, page_still), after),
            None
        );
    }

    #[test]
    fn the_watched_square_stays_within_the_part_the_screenshots_show() {
        let screen = (1280, 800);
        // No part: the square around the point.
        assert_eq!(
            watched_region(Some((640, 400)), 100, None, screen),
            Some(Region::new(590, 350, 690, 450))
        );
        // A part cutting the square: only what both hold.
        let part = Region::new(600, 300, 900, 420);
        assert_eq!(
            watched_region(Some((640, 400)), 100, Some(part), screen),
            Some(Region::new(600, 350, 690, 420))
        );
        // A part away from the point: the part.
        let far = Region::new(0, 0, 50, 50);
        assert_eq!(
            watched_region(Some((640, 400)), 100, Some(far), screen),
            Some(far)
        );
        assert_eq!(watched_region(None, 100, Some(part), screen), None);
    }
}
