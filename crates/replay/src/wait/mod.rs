//! The wait engine: how long replay looks at the screen before it acts, and after.
//!
//! Replay never sleeps on a guess. For each phase of a step it polls fresh screenshots until
//! the checks of that phase pass ([`Waiter::until_checks_pass`]); a step nothing checks waits
//! until the screen stops changing ([`Waiter::until_settled`]). On a browser the page is asked
//! too ([`crate::screen::PageProbe::activity`]): checks do not count on a page still loading,
//! and a page that has settled without matching fails at once instead of after the step
//! timeout. Screenshots are taken of the part the checks read, reused across phases when
//! nothing changed ([`crate::frame_memory`]), and retried for [`SCREENSHOT_BUDGET`].
//! `docs/replay-waiting.md` explains each rule and why it is there.

use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

use retrace_protocol::events::CheckPhase;
use retrace_vision::Image;
use retrace_vision::Region;

use crate::checks::Relocation;
use crate::checks::StepCheck;
use crate::frame_memory::Shot;
use crate::plan::PlannedStep;
use crate::request::WaitMode;

mod focus;
pub mod listening;
mod look;
mod memory;
mod poll_start;
mod settling;
mod verdict;
mod waiter;

use look::Busy;
use look::ObservedPoll;
use look::PollPlan;
use look::View;
use poll_start::PollStart;
use settling::PollFacts;
use settling::Settling;
use settling::Still;
use settling::settled;
use settling::settled_note;
use settling::watched_region;
pub use verdict::SCREENSHOT_BUDGET;
pub use verdict::ScreenError;
pub use verdict::Verdict;
pub use waiter::Waiter;
use waiter::polls_without_screenshots;

impl Waiter<'_> {
    /// Waits until every check in `checks` (of `phase`) passes for `step` acting at `at` (see
    /// the module docs), or the step's time is up. Before acting at a point, checks that can
    /// relocate the recorded thing are asked where it moved.
    pub async fn until_checks_pass(
        &self,
        step: &PlannedStep,
        at: Option<(i64, i64)>,
        checks: &[Arc<dyn StepCheck>],
        phase: CheckPhase,
    ) -> Result<Verdict, ScreenError> {
        // A step acting on no point (typing) has no control to search for.
        let repair = phase == CheckPhase::Before && at.is_some();
        let settings = &self.env.settings;
        let started = Instant::now();
        let screen = match settings.wait {
            WaitMode::Fixed(delay) => {
                tokio::time::sleep(delay).await;
                self.capture(View::AsShown).await?
            }
            WaitMode::Stable => self.settled_screen(started, false).await?.0,
            WaitMode::Visual => {
                let mut verdict = self.poll_visual(step, at, checks, phase, started).await?;
                // A phase that asked only the page shows, when it fails, what the screen was.
                if !verdict.passed() && polls_without_screenshots(checks, repair) {
                    verdict.screen = self.capture(View::Rendered).await?;
                }
                return Ok(verdict);
            }
        };
        // One look, then one search if it failed.
        let mut verdict = self.look_all(step, at, checks, &screen, started).await?;
        if !verdict.passed()
            && repair
            && let Some(at) = at
        {
            self.try_repair(step, at, checks, &mut verdict, started)
                .await?;
        }
        Ok(verdict)
    }

    /// Visual waiting: polls until the checks pass on a ready page, searching once the screen
    /// stood still, failing early once the page has settled.
    async fn poll_visual(
        &self,
        step: &PlannedStep,
        at: Option<(i64, i64)>,
        checks: &[Arc<dyn StepCheck>],
        phase: CheckPhase,
        started: Instant,
    ) -> Result<Verdict, ScreenError> {
        let settings = &self.env.settings;
        let after = phase == CheckPhase::After;
        let repair = phase == CheckPhase::Before && at.is_some();
        let repair_at = at.filter(|_| repair && settings.search_radius > 0);
        let mut last_hit: Option<Relocation> = None;
        let mut last_search: Option<Instant> = None;
        let mut settling = Settling::new();
        // Where the step's control could be: its region and the search around it. A change
        // elsewhere (a progress bar in a corner) does not keep this step waiting.
        let reach = self.env.hashing.region_size + 2 * settings.search_radius;
        let PollStart {
            asks_page_alone,
            blank,
            first_part,
            part,
            mut remembered,
            mut answers,
        } = self.poll_start(step, at, checks, phase, reach).await?;
        let asks_alone = blank.is_some() || (after && asks_page_alone);
        let still = Still::of_phase(self.env.page.is_some(), asks_alone, repair, after);
        let mut polled_part = first_part;
        let mut whole_next = false;
        // Whether the last poll found a navigation under way.
        let mut navigating = false;
        loop {
            let asked = Instant::now();
            let asked_at = started.elapsed();
            if navigating && self.still_navigating(step, asked_at).await {
                settling.last_activity = Instant::now();
                // The page's answer waits for the navigation to commit: the next question
                // follows a poll interval after this one was asked, not after its answer.
                tokio::time::sleep(settings.poll_interval.saturating_sub(asked.elapsed())).await;
                continue;
            }
            let reused = remembered.is_some();
            let fresh = !reused && blank.is_none();
            let answered_ahead = answers.is_some();
            let whole = std::mem::take(&mut whole_next);
            let shows = polled_part.filter(|_| fresh && !whole);
            let view = shows.map_or(View::Rendered, View::Part);
            polled_part = part;
            // A screenshot remembered for this part may show only it.
            let partial = shows.is_some() || (reused && part.is_some());
            let plan = PollPlan {
                remembered: remembered.take(),
                answers: answers.take(),
                blank: blank.as_ref(),
                view,
                ask_ahead: after,
            };
            let ObservedPoll {
                screen,
                busy,
                looks,
                answered,
                ahead,
                quiet,
            } = self.observe(step, at, checks, plan).await?;
            // The next poll: a poll interval after this screenshot (or page) was answered, not
            // after a page that held its answer (a navigation committing).
            let next_poll = answered + settings.poll_interval;
            let observed = started.elapsed();
            let watched = watched_region(at, reach, part, (screen.width(), screen.height()));
            // Scripts still on their way (no listeners yet) count as activity: see `listening`.
            let hydrating = listening::holds_settling(&looks, asked_at, settings);
            settling.saw(&screen, busy.is_some() || hydrating, watched);
            navigating = busy == Some(Busy::Navigating);
            let mut verdict = Verdict::looked(looks, screen, started);
            tracing::debug!(
                step = step.number(),
                at_ms = asked_at.as_millis() as u64,
                reused,
                answered_ahead,
                part = shows.is_some(),
                observe_ms = (observed - asked_at).as_millis() as u64,
                busy = %busy.as_ref().map_or_else(|| "no".to_owned(), Busy::to_string),
                still_ms = settling.last_activity.elapsed().as_millis() as u64,
                passed = verdict.passed(),
                "waiting"
            );
            if verdict.passed() {
                let shot = fresh.then(|| Shot {
                    screen: Arc::clone(&verdict.screen),
                    asked,
                    passed: Instant::now(),
                    shows,
                    ahead,
                });
                if let Some(verdict) = self.accept_passed(verdict, busy.as_ref(), asked_at, shot) {
                    return Ok(verdict);
                }
                tokio::time::sleep_until(next_poll.into()).await;
                continue;
            }
            let time_up = asked_at >= settings.step_timeout;
            let due = repair_at.is_some()
                && started.elapsed() >= settings.search_after
                && last_search.is_none_or(|at| at.elapsed() >= settings.search_after / 2);
            // A settled page will not change by waiting longer (see `settling`).
            let facts = PollFacts::new(busy.is_some() || hydrating, blank.is_some(), quiet);
            let settled_for = settled(still, &settling, facts, settings.search_after)
                .filter(|_| last_hit.is_none());
            let settled = settled_for.is_some();
            if partial && (time_up || due || settled) {
                // The search, the evidence and the early failure look at the whole screen.
                whole_next = true;
                continue;
            }
            if time_up {
                if let Some(at) = repair_at {
                    self.try_repair(step, at, checks, &mut verdict, started)
                        .await?;
                }
                return Ok(verdict);
            }
            if let Some(at) = repair_at
                && due
            {
                last_search = Some(Instant::now());
                let confirmed = self
                    .search_confirms(step, at, checks, &mut verdict, &mut last_hit)
                    .await?;
                if confirmed {
                    verdict.waited = started.elapsed();
                    return Ok(verdict);
                }
            }
            let searched_since_settled = repair_at.is_none()
                || last_search.is_some_and(|search| search >= settling.last_activity);
            if let (Some(still), Some(settled_for)) = (still, settled_for)
                && searched_since_settled
                && last_hit.is_none()
            {
                self.masked_looks(step, at, checks, &settling, quiet, &mut verdict)
                    .await;
                verdict.waited = started.elapsed();
                verdict.note = Some(settled_note(still, settled_for));
                return Ok(verdict);
            }
            tokio::time::sleep_until(next_poll.into()).await;
        }
    }

    /// A poll whose checks passed: the verdict to act on when the page is not busy (its
    /// screenshot remembered for the next phase), or when it stayed busy past
    /// `ready_timeout` (said in a note); `None` to poll again.
    fn accept_passed(
        &self,
        mut verdict: Verdict,
        busy: Option<&Busy>,
        asked_at: Duration,
        shot: Option<Shot>,
    ) -> Option<Verdict> {
        match busy {
            None => {
                if let Some(shot) = shot {
                    self.remember(shot);
                }
                Some(verdict)
            }
            Some(reason) if asked_at >= self.env.settings.ready_timeout => {
                verdict.note = Some(format!(
                    "acted on a page still busy after {:.1} s ({reason})",
                    asked_at.as_secs_f64()
                ));
                Some(verdict)
            }
            Some(_) => None,
        }
    }

    /// Searches around `at` for the recorded control on `verdict`'s screen. A hit where the
    /// last search found it too is confirmed: the verdict then passes there (true). Otherwise
    /// the hit (or none) is remembered for the next search.
    async fn search_confirms(
        &self,
        step: &PlannedStep,
        at: (i64, i64),
        checks: &[Arc<dyn StepCheck>],
        verdict: &mut Verdict,
        last_hit: &mut Option<Relocation>,
    ) -> Result<bool, ScreenError> {
        let hit = self.relocated(step, at, checks, &verdict.screen).await?;
        match (hit, last_hit.take()) {
            (Some((hit, looks)), Some(previous)) if hit.offset == previous.offset => {
                verdict.looks = looks;
                verdict.relocation = Some(hit);
                Ok(true)
            }
            (hit, _) => {
                *last_hit = hit.map(|(hit, _)| hit);
                Ok(false)
            }
        }
    }

    /// Whether the page is still navigating, asked alone: a screenshot then would show the
    /// document going away (or none yet), which no check may pass on before
    /// `ready_timeout`. Only while there is time left: the step's last look is a full one.
    async fn still_navigating(&self, step: &PlannedStep, asked_at: Duration) -> bool {
        let settings = &self.env.settings;
        let navigating = asked_at < settings.ready_timeout
            && asked_at < settings.step_timeout
            && self.page_busy().await == Some(Busy::Navigating);
        if navigating {
            tracing::debug!(
                step = step.number(),
                at_ms = asked_at.as_millis() as u64,
                "still navigating: no screenshot"
            );
        }
        navigating
    }

    /// Waits until two screenshots in a row are the same and the page (on a browser) is not
    /// busy, or the step's time is up: what a step nothing checks waits for before it acts.
    /// A keyboard step on a browser page with a focused field watches that field (and a
    /// margin around it) instead of the whole screen: the keys go there, and an animation
    /// elsewhere does not make typing unsafe. Returns whether it settled and how long it
    /// took. A fixed delay just sleeps.
    pub async fn until_settled(&self, step: &PlannedStep) -> Result<(bool, Duration), ScreenError> {
        let started = Instant::now();
        if let WaitMode::Fixed(delay) = self.env.settings.wait {
            tokio::time::sleep(delay).await;
            return Ok((true, started.elapsed()));
        }
        let keyboard = step.acts_on_focus();
        let (_, settled) = self.settled_screen(started, keyboard).await?;
        Ok((settled, started.elapsed()))
    }

    /// Polls until two consecutive screenshots show the same picture (around the focused
    /// field, for a keyboard step on a page that has one) on a page that is not busy, or the
    /// step's time is up; the last screenshot and whether it settled. Around a focused field
    /// a browser page shown at the trajectory's size is captured only there. The page is
    /// asked where its focus is and whether it changed at the same time, and whether it is
    /// busy while each screenshot is taken: no answer waits for another.
    async fn settled_screen(
        &self,
        started: Instant,
        keyboard: bool,
    ) -> Result<(Arc<Image>, bool), ScreenError> {
        let settings = &self.env.settings;
        // What must stand still: the focused field for a keyboard step, else the whole screen.
        let watched_in = |(width, height): (u32, u32)| async move {
            match keyboard {
                true => self.focus_region(width, height).await,
                false => None,
            }
        };
        // The screen the last phase passed on, if the page says it is still shown.
        let mut known: Option<((u32, u32), Option<Region>)> = None;
        if let Some(size) = self.memory.size() {
            let (watched, activity) = tokio::join!(watched_in(size), self.activity_now());
            if let Some(screen) = self.still_shown_given(activity, watched) {
                tracing::debug!(
                    reused = true,
                    "the screen the last phase passed on is still shown"
                );
                return Ok((screen, true));
            }
            known = Some((size, watched));
        }
        let part_size = match keyboard {
            true => self.screen.part_capture_size().await,
            false => None,
        };
        // The screen the last phase passed on (no action since) is the first of the two
        // screenshots that must agree; without one, a new one is.
        let mut previous = self.memory.last();
        let mut size = self.memory.size().or(part_size);
        // Whether a pair of screenshots has been compared (and disagreed).
        let mut compared = false;
        loop {
            if let Some(previous) = previous.as_ref().filter(|_| compared) {
                // After a pair that disagreed, screenshots asked for a poll interval apart.
                let since = previous.asked.elapsed();
                tokio::time::sleep(settings.poll_interval.saturating_sub(since)).await;
            }
            // The field was just found for this size: the first screenshot uses that answer.
            let watched = match (size, known.take()) {
                (Some(size), Some((known_size, watched))) if known_size == size => watched,
                (Some(size), _) => watched_in(size).await,
                (None, _) => None,
            };
            let shows = watched.filter(|_| part_size.is_some());
            let view = match shows {
                Some(field) => View::Part(field),
                None => View::Rendered,
            };
            let asked = Instant::now();
            let asked_at = started.elapsed();
            let busy = async {
                match asked_at >= settings.ready_timeout {
                    true => None,
                    false => self.page_busy().await,
                }
            };
            let (screen, busy) = tokio::join!(self.capture(view), busy);
            let next = Shot {
                screen: screen?,
                asked,
                passed: Instant::now(),
                shows,
                ahead: None,
            };
            size = Some((next.screen.width(), next.screen.height()));
            let still = previous.as_ref().is_some_and(|previous| {
                previous.shows_all_of(watched)
                    && retrace_vision::is_stable(&previous.screen, &next.screen, watched)
                        .unwrap_or(false)
            });
            let ready = busy.is_none();
            if still && ready {
                self.remember(next.clone());
            }
            if (still && ready) || asked_at >= settings.step_timeout {
                return Ok((next.screen, still && ready));
            }
            compared |= previous
                .as_ref()
                .is_some_and(|previous| previous.shows_all_of(watched));
            previous = Some(next);
        }
    }
}
