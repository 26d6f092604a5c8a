//! [`FrameMemory`]: the last screenshot a phase's checks passed on, reused by the next phase
//! when the page says nothing has changed since it was taken.
//!
//! Between one step's after-action checks and the next step's before-action checks (or its
//! wait for a still screen) replay does not act. A browser page that, in that time, had no
//! request, no navigation, no DOM change, nothing its script sees repaint (a scroll, a load,
//! a focus move, a field's input, an animation starting), no running animation or playing
//! media, and nothing that paints unseen by the DOM (a canvas, an iframe, a video), shows
//! the same picture it showed then: a new screenshot (60-130 ms of Chromium's time) would
//! only repeat it. The page's answer (one script call, a few ms) is asked instead, and the
//! remembered screenshot is looked at again only when every one of those holds for longer
//! than the time from when that screenshot was *asked for* to when the answer *arrived*: the
//! page measured its quiet times at some moment before its answer arrived, so the last change
//! it saw happened before the screenshot was asked for, and the screenshot holds it (a change
//! that happened while it was being taken disqualifies it). The time is not measured later
//! than the answer's arrival (when another answer the caller waits for arrives, say), which
//! would only turn away screenshots that are still shown.
//!
//! **Handed over at once.** The look after an action also captures the squares the next
//! step's checks read before it acts (see [`crate::wait`]). When the next step looks within a
//! poll interval of the moment the after-action checks passed (nothing but bookkeeping in
//! between: no action, no wait), it takes that screenshot as its first look without asking
//! the page: it is what a fresh look of its own would have been, taken a few milliseconds
//! earlier, on a page that was not busy when it was taken. An after-action look passes only
//! on a page that is not busy, and the next step's own checks still decide on it (any that
//! fail make it poll fresh screenshots as always), so this is not weaker than the poll it
//! replaces, whose screenshot is as old when the step acts; a next step that comes later
//! than that asks the page as above.
//!
//! **The page's answers with it.** The look after an action also asks the page the questions
//! the next step's checks ask it alone before it acts (which element is at its point, which
//! has the focus), at the same moment as the screenshot. When the screenshot is handed over,
//! so are those answers: they describe the same moment, on a page that was not busy. A next
//! step whose checks only ask the page (typing checks the focus) takes them within a poll
//! interval as well, without a screenshot.
//!
//! The memory is emptied each time the replay acts, so it never carries a screen across an
//! action. A desktop has no page to ask: there every look takes a screenshot.
//!
//! A screenshot of part of the screen (see [`crate::screen::Screen::capture_part`]) is
//! remembered with the part it shows, and is handed only to a look that reads nothing
//! outside it: the rest of it is blank, not the screen.

use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;

use retrace_drive::readiness::PageActivity;
use retrace_vision::Image;
use retrace_vision::Region;

use crate::checks::Look;

/// The last verified screenshot of one replay, with when it was asked for.
#[derive(Debug, Default)]
pub struct FrameMemory {
    last: Mutex<Option<Shot>>,
}

/// A screenshot, when it was asked for, and the part of the screen it shows.
#[derive(Debug, Clone)]
pub struct Shot {
    /// The screenshot, in the whole screen's coordinates.
    pub screen: Arc<Image>,
    /// When it was asked for.
    pub asked: Instant,
    /// When it was found good (after it arrived): the checks passed on it, or it matched
    /// the one before on a still screen.
    pub passed: Instant,
    /// The part of the screen it shows (the rest is blank); `None`: all of it.
    pub shows: Option<Region>,
    /// The page's answers to the next step's checks, asked while it was taken.
    pub ahead: Option<AnswersAhead>,
}

/// The page's answers to the checks of a step that has not started, asked ahead of it.
#[derive(Debug, Clone)]
pub struct AnswersAhead {
    /// The step they were asked for: its index in the plan.
    pub step: usize,
    /// Each check's look, in the order the checks run.
    pub looks: Vec<(&'static str, Look)>,
}

impl Shot {
    /// Whether it shows all of `needed` (the whole screen when `None`).
    pub fn shows_all_of(&self, needed: Option<Region>) -> bool {
        match (self.shows, needed) {
            (None, _) => true,
            (Some(shows), Some(needed)) => shows.contains(needed),
            (Some(_), None) => false,
        }
    }
}

impl FrameMemory {
    /// Remembers `shot`, a screenshot a phase's checks passed on (or that settled) on a page
    /// that was not busy.
    pub fn remember(&self, shot: Shot) {
        if let Ok(mut last) = self.last.lock() {
            *last = Some(shot);
        }
    }

    /// Forgets the remembered screenshot: the replay is about to act.
    pub fn forget(&self) {
        if let Ok(mut last) = self.last.lock() {
            *last = None;
        }
    }

    /// The size of the remembered screenshot (the whole screen's, for a part too).
    pub fn size(&self) -> Option<(u32, u32)> {
        let last = self.last.lock().ok()?;
        last.as_ref()
            .map(|last| (last.screen.width(), last.screen.height()))
    }

    /// The remembered screenshot, whatever the page did since.
    pub fn last(&self) -> Option<Shot> {
        self.last.lock().ok()?.clone()
    }

    /// Whether a screenshot showing all of `needed` is remembered (so asking the page is
    /// worth it).
    pub fn holds(&self, needed: Option<Region>) -> bool {
        self.last
            .lock()
            .is_ok_and(|last| last.as_ref().is_some_and(|last| last.shows_all_of(needed)))
    }

    /// The remembered screenshot, when it shows all of `needed` (the whole screen when
    /// `None`) and its checks passed on it less than `within` ago: handed over as it is, with
    /// no question to the page (see the module docs).
    pub fn handed_over(&self, needed: Option<Region>, within: Duration) -> Option<Arc<Image>> {
        let last = self.last.lock().ok()?.clone()?;
        (last.shows_all_of(needed) && last.passed.elapsed() < within).then_some(last.screen)
    }

    /// The page's answers asked ahead for the step with index `step` while the remembered
    /// screenshot was taken, when its checks passed on it less than `within` ago: handed over
    /// with it (see the module docs).
    pub fn answers_handed_over(
        &self,
        step: usize,
        within: Duration,
    ) -> Option<Vec<(&'static str, Look)>> {
        let last = self.last.lock().ok()?.clone()?;
        let ahead = last.ahead.filter(|ahead| ahead.step == step)?;
        (last.passed.elapsed() < within).then_some(ahead.looks)
    }

    /// The remembered screenshot, when it shows all of `needed` (the whole screen when
    /// `None`) and `activity`, the page's answer that arrived at `answered` (after the
    /// screenshot was asked for), shows that the page has not changed since it was asked for.
    pub fn still_shown(
        &self,
        activity: &PageActivity,
        answered: Instant,
        needed: Option<Region>,
    ) -> Option<Arc<Image>> {
        let last = self.last.lock().ok()?.clone()?;
        let since = answered.checked_duration_since(last.asked)?;
        (last.shows_all_of(needed) && unchanged_for(activity, since)).then_some(last.screen)
    }
}

/// Whether a page reporting `activity` shows the picture it showed `since` ago: nothing in
/// flight or under way, no animation, media or opaque painter, and every "quiet for" longer
/// than `since` (see the module docs).
pub fn unchanged_for(activity: &PageActivity, since: Duration) -> bool {
    let Ok(document) = &activity.document else {
        return false;
    };
    activity.requests_in_flight == 0
        && !activity.navigation_pending
        && activity.network_quiet_for > since
        && activity.navigation_quiet_for > since
        && document.ready_state == "complete"
        && document.fonts_ready
        && document.animations_running == 0
        && document.media_playing == 0
        && document.opaque_painters == 0
        && document.dom_quiet_for > since
        && document.render_quiet_for > since
}

#[cfg(test)]
mod tests {
    use retrace_drive::readiness::DocumentActivity;
    use retrace_vision::PixelLayout;

    use super::*;

    const SINCE: Duration = Duration::from_millis(200);

    /// One way the page could have changed.
    type Change = fn(&mut PageActivity);

    /// A page quiet for a second in every respect.
    fn quiet() -> PageActivity {
        let second = Duration::from_secs(1);
        PageActivity {
            requests_in_flight: 0,
            network_quiet_for: second,
            navigation_pending: false,
            navigation_quiet_for: second,
            document: Ok(DocumentActivity {
                ready_state: "complete".into(),
                fonts_ready: true,
                animations_running: 0,
                animations: Vec::new(),
                media_playing: 0,
                dom_quiet_for: second,
                dom_mutations: 7,
                render_quiet_for: second,
                opaque_painters: 0,
                leaving_for: None,
            }),
        }
    }

    fn shot(screen: &Arc<Image>, shows: Option<Region>) -> Shot {
        Shot {
            screen: Arc::clone(screen),
            asked: Instant::now(),
            passed: Instant::now(),
            shows,
            ahead: None,
        }
    }

    fn document(activity: &mut PageActivity) -> &mut DocumentActivity {
        activity.document.as_mut().unwrap()
    }

    #[test]
    fn a_page_quiet_for_longer_than_the_screenshot_is_old_still_shows_it() {
        assert!(unchanged_for(&quiet(), SINCE));
    }

    #[test]
    fn any_activity_since_the_screenshot_was_asked_for_rules_it_out() {
        let changes: [(&str, Change); 13] = [
            ("a request in flight", |a| a.requests_in_flight = 1),
            ("a request since", |a| a.network_quiet_for = SINCE / 2),
            ("a navigation under way", |a| a.navigation_pending = true),
            ("a navigation since", |a| a.navigation_quiet_for = SINCE / 2),
            ("no answer", |a| a.document = Err("busy".into())),
            ("loading", |a| {
                document(a).ready_state = "interactive".into()
            }),
            ("fonts", |a| document(a).fonts_ready = false),
            ("animation", |a| document(a).animations_running = 1),
            ("media", |a| document(a).media_playing = 1),
            ("a canvas", |a| document(a).opaque_painters = 1),
            ("a DOM change since", |a| {
                document(a).dom_quiet_for = SINCE / 2
            }),
            ("a repaint since", |a| {
                document(a).render_quiet_for = SINCE / 2
            }),
            ("exactly as old", |a| document(a).render_quiet_for = SINCE),
        ];
        for (what, change) in changes {
            let mut activity = quiet();
            change(&mut activity);
            assert!(!unchanged_for(&activity, SINCE), "{what}");
        }
    }

    #[test]
    fn a_forgotten_or_never_taken_screenshot_is_not_reused() {
        let memory = FrameMemory::default();
        assert!(memory.still_shown(&quiet(), Instant::now(), None).is_none());
        let screen = Arc::new(Image::new(2, 2, PixelLayout::Rgb, vec![0; 12]).unwrap());
        memory.remember(shot(&screen, None));
        assert!(memory.still_shown(&quiet(), Instant::now(), None).is_some());
        memory.forget();
        assert!(memory.still_shown(&quiet(), Instant::now(), None).is_none());
    }

    /// The page's answers asked ahead go only to the step they were asked for, within the
    /// time given, and never across an action.
    #[test]
    fn answers_asked_ahead_go_only_to_their_step_at_once() {
        let memory = FrameMemory::default();
        let screen = Arc::new(Image::new(2, 2, PixelLayout::Rgb, vec![0; 12]).unwrap());
        let looks = vec![("semantic", crate::checks::step_check::pass())];
        memory.remember(Shot {
            ahead: Some(AnswersAhead { step: 3, looks }),
            ..shot(&screen, None)
        });
        let hour = Duration::from_secs(3600);
        let handed = memory
            .answers_handed_over(3, hour)
            .expect("step 3's answers");
        assert_eq!(handed[0].0, "semantic");
        assert!(
            memory.answers_handed_over(4, hour).is_none(),
            "another step"
        );
        assert!(
            memory.answers_handed_over(3, Duration::ZERO).is_none(),
            "too old"
        );
        memory.forget();
        assert!(memory.answers_handed_over(3, hour).is_none(), "acted since");
    }

    /// The screenshot's age is measured to when the page's answer arrived, not to when the
    /// caller looks at the answer (it may have waited for another): quiet for longer than
    /// the first, it is still shown; for less, it is not; an answer from before the
    /// screenshot was asked for says nothing about it.
    #[test]
    fn the_age_that_counts_ends_when_the_answer_arrived() {
        let memory = FrameMemory::default();
        let screen = Arc::new(Image::new(2, 2, PixelLayout::Rgb, vec![0; 12]).unwrap());
        // Asked for a second ago: looked at now, well after the answer arrived.
        let asked = Instant::now().checked_sub(Duration::from_secs(1)).unwrap();
        memory.remember(Shot {
            screen,
            asked,
            passed: asked,
            shows: None,
            ahead: None,
        });
        let answered = asked + Duration::from_millis(40);
        let quiet_for = |millis| {
            let mut activity = quiet();
            activity.network_quiet_for = Duration::from_millis(millis);
            document(&mut activity).render_quiet_for = Duration::from_millis(millis);
            activity
        };
        // Only the 40 ms to the answer count.
        assert!(memory.still_shown(&quiet_for(45), answered, None).is_some());
        assert!(memory.still_shown(&quiet_for(35), answered, None).is_none());
        let before = asked.checked_sub(Duration::from_millis(1)).unwrap();
        assert!(memory.still_shown(&quiet(), before, None).is_none());
    }

    /// A screenshot of part of the screen serves only looks that read inside that part; a
    /// whole one serves every look.
    #[test]
    fn a_part_is_handed_only_to_a_look_inside_it() {
        let memory = FrameMemory::default();
        let screen = Arc::new(Image::new(100, 100, PixelLayout::Gray, vec![0; 10_000]).unwrap());
        let part = Region::new(20, 20, 60, 60);
        memory.remember(shot(&screen, Some(part)));
        for (needed, served) in [
            (Some(part), true),
            (Some(Region::new(30, 30, 40, 40)), true),
            (Some(Region::new(30, 30, 61, 40)), false),
            (None, false),
        ] {
            let shown = memory
                .still_shown(&quiet(), Instant::now(), needed)
                .is_some();
            let last = memory.last().unwrap().shows_all_of(needed);
            let holds = memory.holds(needed);
            assert_eq!((shown, last, holds), (served, served, served), "{needed:?}");
        }
        memory.remember(shot(&screen, None));
        assert!(memory.still_shown(&quiet(), Instant::now(), None).is_some());
        assert!(
            memory
                .still_shown(&quiet(), Instant::now(), Some(part))
                .is_some()
        );
    }
}
