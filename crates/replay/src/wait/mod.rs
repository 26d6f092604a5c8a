//! The wait engine: how long replay looks at the screen before it acts, and after.
//!
//! Replay never sleeps on a guess. For each phase of a step it polls fresh screenshots until
//! the checks of that phase pass ([`Waiter::until_checks_pass`]); a step nothing checks waits
//! until the screen stops changing ([`Waiter::until_settled`]), so no step acts on a screen
//! still in motion. Typing and keys on a browser page whose recording names the element that
//! had the focus wait for the focus to be on it instead (the semantic check, asked of the
//! page alone, with no screenshot): keys go to the focused element wherever it is drawn, so
//! a field still fading in takes them, and one that lost the focus or was replaced fails the
//! step before a key is sent; the typed value is checked after (the state check). When the
//! checks do not pass, the ones that can find where the recorded thing moved are asked once
//! the screen has stood still for `search_after` (and again at the end): a hit counts once
//! two searches in a row agree on it, so an element caught
//! mid-animation is not clicked where it was passing. `--wait stable` waits for a still
//! screen and then looks once; `--wait fixed:S` sleeps and looks once at the screen as shown
//! (askui's behaviour).
//!
//! **On a browser** the page is asked too ([`crate::screen::PageProbe::activity`]):
//! - *Ready before acting*: checks that pass on a page still loading (a request in flight, a
//!   navigation under way, the document not complete) do not count until it is done (for at
//!   most `ready_timeout`): a half-loaded page whose pixels happen to match is not acted on.
//! - *Failing without the full timeout*: a step whose page has settled (no request in flight,
//!   no navigation, no change for `search_after` where the step's control could be: its
//!   region and the search radius around it, so a progress bar elsewhere does not hold the
//!   step; before typing, which looks at no pixels, no repaint the document reports; a change
//!   back to a picture seen earlier in the wait, such as a caret blinking, does not count) and
//!   whose before-action checks still fail, the search included, fails then, not after
//!   `step_timeout`; so does a step whose after-action checks ask the page alone (where it
//!   navigated, a state, a typed value). A pixel effect after acting gets the whole step time
//!   (the app may be waiting on a server whose request is not seen); a slow server keeps the
//!   step waiting, because its request or navigation is in flight.
//!   A desktop gives no such signal: there replay waits the step's whole time.
//!
//! **Screenshots not taken**: an after-action phase whose checks ask only the page (the typed
//! value) takes none for itself: it captures, while the page is asked, what the next step
//! looks at first, when that step reads the screen (else none until it fails and needs one
//! as evidence). Between one phase that passed and the next, with no action in between, the
//! screenshot the first passed on is the next one's first look when the next comes at once
//! (within a poll interval) or when the page says nothing changed since
//! ([`crate::frame_memory`]), and is otherwise the first of the two a still screen needs.
//! **Questions not asked twice**: an after-action poll also asks the page what the next
//! step's checks ask it alone (the element at its point, the focus), with its screenshot;
//! handed over at once with it, those answers are the next step's first look at the page (a
//! typing step's whole look), and it asks the page nothing more before it acts. While a
//! navigation the last poll saw is still under way, a poll asks the page alone: a
//! screenshot would show the document going away, which no check may pass on (until
//! `ready_timeout`).
//!
//! A poll interval separates a poll's screenshot (its answer) from the next poll, so a loaded
//! machine is not asked for screenshots back to back; a page that held the poll's other
//! question longer (a navigation committing) adds nothing to that wait: the next poll looks
//! as soon as the answer is in when the interval has passed by then. A question to the page
//! alone (which a navigation holds until it commits) is asked again a poll interval after it
//! was asked. A still screen is two consecutive screenshots that agree (each capture draws a
//! new frame), taken back to back when the first pair is compared, as Playwright's
//! `toHaveScreenshot` compares consecutive captures and its actionability check two
//! consecutive animation frames; after a pair that disagreed, a poll interval apart.
//!
//! **Screenshots of part of the page**: the checks read only the hashed squares around the
//! points they look at (before acting, the step's control; after, the point it acted at), so
//! on a browser page shown at the trajectory's size only that part is captured
//! ([`crate::screen::Screen::capture_part`]: a clipped `Page.captureScreenshot`, a fraction
//! of a whole one's cost to Chromium). Before acting, once the first look failed, the polls
//! also capture the search radius around the control, where it could be on its way. After
//! acting, the part also holds what the next step looks at first: the squares its checks
//! read before it acts (it takes this screenshot as its first look when it passes), and,
//! when it types or presses keys, the focused field (and its margin): that step waits for
//! the field to be still, and can start from, or reuse, that screenshot; its own screenshots
//! are of the field alone. (Where the focus is costs the page a question before the
//! screenshot, so it is asked only then.) A phase polls parts while it waits (an effect the
//! server is slow to show costs no whole screenshots), and takes a failing look again at
//! once on a whole screenshot when it needs the whole screen: the search for a moved control,
//! the early failure of a settled page and a failure's evidence always see it. A remembered
//! part is handed only to a look that reads nothing outside it.
//!
//! Each screenshot attempt is bounded (2 s, doubling on every retry) and retried for
//! [`SCREENSHOT_BUDGET`] (or the step's time when longer): Chromium can leave a capture
//! requested while a navigation commits unanswered until its CDP timeout, a new request after
//! the navigation is answered at once, and on a loaded machine one screenshot can take
//! seconds. A slow screenshot is neither an error nor a failure: a step's time is up only
//! for a screenshot *asked for* after it, so one that was asked for in time and shows the
//! recorded screen still passes.

use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

use retrace_protocol::events::CheckPhase;
use retrace_vision::Image;
use retrace_vision::Region;

use crate::checks::CheckEnv;
use crate::checks::Look;
use crate::checks::Relocation;
use crate::checks::StepCheck;
use crate::frame_memory::FrameMemory;
use crate::frame_memory::Shot;
use crate::plan::PlannedStep;
use crate::request::WaitMode;
use crate::screen::Screen;

mod focus;
mod look;
mod memory;

use look::Busy;
use look::ObservedPoll;
use look::PollPlan;
use look::View;

/// How long one screenshot may keep failing before the replay gives up on the screen (an
/// error, not a failed step): generous, because a loaded machine is slow, not broken.
pub const SCREENSHOT_BUDGET: Duration = Duration::from_secs(30);

/// What waiting for a phase's checks ended with.
#[derive(Debug)]
pub struct Verdict {
    /// Each check's last look, in the order the checks were given.
    pub looks: Vec<(&'static str, Look)>,
    /// The repair applied, when the checks passed only at a moved point.
    pub relocation: Option<Relocation>,
    /// How long it took.
    pub waited: Duration,
    /// The last screenshot.
    pub screen: Arc<Image>,
    /// Why it ended before the step's time was up without passing (the page settled), or
    /// what it waited for in vain (a page that never finished loading).
    pub note: Option<String>,
}

impl Verdict {
    /// Whether every check passed.
    pub fn passed(&self) -> bool {
        self.looks.iter().all(|(_, look)| look.passed)
    }

    /// The first check that did not pass, with its look.
    pub fn failing(&self) -> Option<&(&'static str, Look)> {
        self.looks.iter().find(|(_, look)| !look.passed)
    }
}

/// Whether a phase polls without screenshots: after acting (`repair` is for the phase before
/// it), when none of `checks` looks at the screenshot. Before acting the screenshots are taken
/// all the same: a change near the control keeps a failing step waiting instead of failing it
/// as settled.
fn polls_without_screenshots(checks: &[Arc<dyn StepCheck>], repair: bool) -> bool {
    !repair && !checks.iter().any(|check| check.reads_screen())
}

/// The picture handed to checks that read no screenshot.
fn blank_screen() -> Result<Arc<Image>, ScreenError> {
    retrace_vision::Image::new(1, 1, retrace_vision::PixelLayout::Gray, vec![0])
        .map(Arc::new)
        .map_err(|error| ScreenError(error.to_string()))
}

/// The screen could not be captured for the whole of a step's time.
#[derive(Debug, thiserror::Error)]
#[error("no screenshot could be taken: {0}")]
pub struct ScreenError(pub String);

/// Polls one screen for one replay.
pub struct Waiter<'a> {
    /// The screen.
    pub screen: &'a dyn Screen,
    /// The settings and file facts the checks read.
    pub env: &'a CheckEnv,
    /// The last verified screenshot, looked at again while the page says it still shows
    /// (see [`crate::frame_memory`]).
    pub memory: &'a FrameMemory,
}

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
struct Settling {
    /// The distinct pictures seen, the latest last.
    seen: std::collections::VecDeque<Arc<Image>>,
    /// The last time a screenshot showed a picture not seen before, or the page was busy.
    last_activity: Instant,
}

impl Settling {
    fn new() -> Self {
        Self {
            seen: std::collections::VecDeque::with_capacity(PERIODIC_STATES),
            last_activity: Instant::now(),
        }
    }

    /// Notes a screenshot and whether the page was busy when it was taken. Only `watched`
    /// counts as a change (the whole screen when `None`); a return to a picture seen before
    /// does not (see the type's docs).
    fn saw(&mut self, screen: &Arc<Image>, busy: bool, watched: Option<Region>) {
        let same =
            |seen: &Arc<Image>| retrace_vision::is_stable(seen, screen, watched).unwrap_or(false);
        let unchanged = self.seen.back().is_some_and(same);
        let periodic = !unchanged && self.seen.iter().any(same);
        if !unchanged && !periodic {
            self.last_activity = Instant::now();
        }
        if busy {
            self.last_activity = Instant::now();
        }
        if !unchanged {
            self.seen.retain(|seen| !same(seen));
            if self.seen.len() == PERIODIC_STATES {
                self.seen.pop_front();
            }
            self.seen.push_back(Arc::clone(screen));
        }
    }
}

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
        let mut remembered = self.first_look(first_part).await;
        let mut answers = match remembered.is_some() || blank.is_some() {
            true => self.answers_handed_over(step, checks),
            false => None,
        };
        let mut polled_part = first_part;
        let mut whole_next = false;
        // Whether the last poll found a navigation under way.
        let mut navigating = false;
        loop {
            let asked = Instant::now();
            let asked_at = started.elapsed();
            if navigating && self.still_navigating(asked_at).await {
                tracing::debug!(
                    step = step.number(),
                    at_ms = asked_at.as_millis() as u64,
                    "still navigating: no screenshot"
                );
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
            let view = match polled_part.filter(|_| fresh && !whole) {
                Some(part) => View::Part(part),
                None => View::Rendered,
            };
            polled_part = part;
            let shows = match view {
                View::Part(part) => Some(part),
                _ => None,
            };
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
                render_quiet,
            } = self.observe(step, at, checks, plan).await?;
            // The next poll comes a poll interval after this one's screenshot was answered
            // (or its page, when it took none): not after a page that held its answer (a
            // navigation committing), which would only add to the wait.
            let next_poll = answered + settings.poll_interval;
            let observed = started.elapsed();
            let watched = at.map(|at| {
                retrace_vision::action_region(at, reach, screen.width(), screen.height())
            });
            settling.saw(&screen, busy.is_some(), watched);
            navigating = busy == Some(Busy::Navigating);
            let mut verdict = Verdict {
                looks,
                relocation: None,
                waited: started.elapsed(),
                screen,
                note: None,
            };
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
                match &busy {
                    None => {
                        if fresh {
                            self.remember(Shot {
                                screen: Arc::clone(&verdict.screen),
                                asked,
                                passed: Instant::now(),
                                shows,
                                ahead,
                            });
                        }
                        return Ok(verdict);
                    }
                    Some(_) if asked_at >= settings.ready_timeout => {
                        verdict.note = busy.map(|reason| {
                            format!(
                                "acted on a page still busy after {:.1} s ({reason})",
                                asked_at.as_secs_f64()
                            )
                        });
                        return Ok(verdict);
                    }
                    Some(_) => {
                        tokio::time::sleep_until(next_poll.into()).await;
                        continue;
                    }
                }
            }
            let time_up = asked_at >= settings.step_timeout;
            let due = repair_at.is_some()
                && started.elapsed() >= settings.search_after
                && last_search.is_none_or(|at| at.elapsed() >= settings.search_after / 2);
            // A browser page that has settled will not change by waiting longer. Before
            // acting; after acting only for checks that ask the page alone (where it
            // navigated, a state, a typed value): a pixel effect may come from a server whose
            // request is not always seen in flight, so it is given the step's whole time,
            // while a navigation is seen from the moment the page starts it. A look that asks
            // the page alone (where the focus is, where the page is) sees no pixels: the
            // page's word that its document has not repainted stands for a still screen.
            let asks_alone = blank.is_some() || (after && asks_page_alone);
            let settled_for = match blank.is_some() {
                true => render_quiet.map_or(Duration::ZERO, |quiet| {
                    quiet.min(settling.last_activity.elapsed())
                }),
                false => settling.last_activity.elapsed(),
            };
            let settled = (repair || asks_alone)
                && self.env.page.is_some()
                && busy.is_none()
                && last_hit.is_none()
                && settled_for >= settings.search_after;
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
                let hit = self.relocated(step, at, checks, &verdict.screen).await?;
                match (hit, last_hit) {
                    (Some((hit, looks)), Some(previous)) if hit.offset == previous.offset => {
                        verdict.looks = looks;
                        verdict.relocation = Some(hit);
                        verdict.waited = started.elapsed();
                        return Ok(verdict);
                    }
                    (hit, _) => last_hit = hit.map(|(hit, _)| hit),
                }
            }
            let searched_since_settled = repair_at.is_none()
                || last_search.is_some_and(|search| search >= settling.last_activity);
            if settled && last_hit.is_none() && searched_since_settled {
                verdict.waited = started.elapsed();
                let still = match asks_alone {
                    true => "on the page",
                    false => "around the control",
                };
                verdict.note = Some(format!(
                    "the page settled (no request, no navigation, no change {still} for {:.1} s) without matching",
                    settled_for.as_secs_f64()
                ));
                return Ok(verdict);
            }
            tokio::time::sleep_until(next_poll.into()).await;
        }
    }

    /// Whether the page is still navigating, asked alone: a screenshot then would show the
    /// document going away (or none yet), which no check may pass on before
    /// `ready_timeout`. Only while there is time left: the step's last look is a full one.
    async fn still_navigating(&self, asked_at: Duration) -> bool {
        let settings = &self.env.settings;
        asked_at < settings.ready_timeout
            && asked_at < settings.step_timeout
            && self.page_busy().await == Some(Busy::Navigating)
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
