//! How one poll of the wait engine looks: the screenshot it takes (whole, part or none), what
//! it asks the page (whether it is busy, the checks that read no pixels) while the screenshot
//! is taken, each check's look at both, and the search for a control that moved.

use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

use retrace_vision::Image;
use retrace_vision::Region;

use super::verdict::SCREENSHOT_BUDGET;
use super::verdict::ScreenError;
use super::verdict::Verdict;
use super::verdict::blank_screen;
use super::waiter::Waiter;
use crate::checks::Look;
use crate::checks::Relocation;
use crate::checks::StepCheck;
use crate::frame_memory::AnswersAhead;
use crate::plan::PlannedStep;

/// Which screenshot to take.
#[derive(Debug, Clone, Copy)]
pub(super) enum View {
    /// One holding every change made before it (the backend may wait for a pending page
    /// load): visual and stable waiting.
    Rendered,
    /// The screen as shown at that moment: a fixed delay's single look.
    AsShown,
    /// Like [`View::Rendered`], but only this part need show the screen (see
    /// [`crate::screen::Screen::capture_part`]).
    Part(Region),
}

/// What one poll takes and asks.
pub(super) struct PollPlan<'p> {
    /// The screenshot to look at instead of taking one: the last phase's (see
    /// [`crate::frame_memory`]).
    pub remembered: Option<Arc<Image>>,
    /// The page's answers to the checks that ask it alone, asked ahead of this step by the
    /// last phase's poll and handed over with it: not asked again, nor whether the page is
    /// busy (it was not).
    pub answers: Option<Vec<(&'static str, Look)>>,
    /// The picture for a poll that takes no screenshot.
    pub blank: Option<&'p Arc<Image>>,
    /// Which screenshot to take when neither is given.
    pub view: View,
    /// Whether the page is also asked what the next step's checks ask it alone
    /// ([`crate::checks::CheckEnv::next_page_checks`]): after acting.
    pub ask_ahead: bool,
}

/// What one poll saw.
pub(super) struct ObservedPoll {
    /// The screenshot its checks looked at.
    pub screen: Arc<Image>,
    /// Why the page was busy (`None`: it was not).
    pub busy: Option<Busy>,
    /// Each check's look, in the order the checks were given.
    pub looks: Vec<(&'static str, Look)>,
    /// When the poll's last question was answered: its fresh screenshot when it took one
    /// (the page may have answered later), else the page.
    pub answered: Instant,
    /// The page's answers to the next step's checks, when it was asked them.
    pub ahead: Option<AnswersAhead>,
    /// How long the page had been quiet, as it said.
    pub quiet: PageQuiet,
}

/// How long a page had been quiet, as it said in one poll; each `None` when it was not asked
/// or did not say.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct PageQuiet {
    /// How long the document had not repainted (a DOM change, a scroll, a focus move, a
    /// field's input).
    pub render: Option<Duration>,
    /// How long it had started or ended no request, loaded no frame and changed no node
    /// (input sent to it counts as a change).
    pub activity: Option<Duration>,
    /// How long nothing on it could have changed the picture: [`Self::render`] when nothing
    /// draws unseen by the DOM (no running animation, media, canvas or frame).
    pub picture: Option<Duration>,
}

/// Why a page is busy, as a failure's note and the debug log say it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Busy {
    /// A navigation is under way.
    Navigating,
    /// This many requests are in flight.
    Requests(usize),
    /// The document is not complete yet: its ready state.
    Document(String),
    /// The page did not say (or could not be asked): why.
    Unanswered(String),
}

impl std::fmt::Display for Busy {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Busy::Navigating => formatter.write_str("a navigation is under way"),
            Busy::Requests(1) => formatter.write_str("1 request in flight"),
            Busy::Requests(count) => write!(formatter, "{count} requests in flight"),
            Busy::Document(state) => write!(formatter, "the document is {state}"),
            Busy::Unanswered(reason) => formatter.write_str(reason),
        }
    }
}

impl Waiter<'_> {
    /// Why the page is busy now (a request in flight, a navigation, a document not yet
    /// complete); `None` when it is not, or there is no page to ask.
    pub(super) async fn page_busy(&self) -> Option<Busy> {
        self.page_state().await.0
    }

    /// Why the page is busy ([`Waiter::page_busy`]) and how long it had been quiet, as it
    /// says.
    async fn page_state(&self) -> (Option<Busy>, PageQuiet) {
        let Some(page) = self.env.page.as_ref() else {
            return (None, PageQuiet::default());
        };
        let activity = match page.activity().await {
            Ok(activity) => activity,
            Err(error) => {
                let reason = format!("the page did not answer: {error}");
                return (Some(Busy::Unanswered(reason)), PageQuiet::default());
            }
        };
        let document = activity.document.as_ref().ok();
        let quiet = PageQuiet {
            render: document.map(|document| document.render_quiet_for),
            activity: document.map(|document| {
                document
                    .dom_quiet_for
                    .min(activity.network_quiet_for)
                    .min(activity.navigation_quiet_for)
            }),
            picture: document
                .filter(|document| {
                    document.animations_running == 0
                        && document.media_playing == 0
                        && document.opaque_painters == 0
                })
                .map(|document| document.render_quiet_for),
        };
        let busy = if activity.navigation_pending {
            Some(Busy::Navigating)
        } else if activity.requests_in_flight > 0 {
            Some(Busy::Requests(activity.requests_in_flight))
        } else {
            match &activity.document {
                Ok(document) if document.ready_state != "complete" => {
                    Some(Busy::Document(document.ready_state.clone()))
                }
                Ok(_) => None,
                Err(reason) => Some(Busy::Unanswered(reason.clone())),
            }
        };
        (busy, quiet)
    }

    /// One poll: the screenshot (`remembered`, else `blank`, else a fresh one of `view`), why
    /// the page is busy and every check's look, in the order of `checks`. The page is asked
    /// (whether it is busy, the checks that read no pixels and, with `ask_ahead`, the next
    /// step's) while the screenshot is taken: the answers describe the same moment, and none
    /// has to wait for another. A remembered screenshot's page was just asked, and was not
    /// busy; so was the page whose answers are handed over.
    pub(super) async fn observe(
        &self,
        step: &PlannedStep,
        at: Option<(i64, i64)>,
        checks: &[Arc<dyn StepCheck>],
        plan: PollPlan<'_>,
    ) -> Result<ObservedPoll, ScreenError> {
        let PollPlan {
            remembered,
            answers,
            blank,
            view,
            ask_ahead,
        } = plan;
        let reused = remembered.is_some() || answers.is_some();
        let screen = async {
            match (remembered, blank) {
                (Some(screen), _) => Ok::<_, ScreenError>((screen, None)),
                (None, Some(blank)) => Ok((Arc::clone(blank), None)),
                (None, None) => {
                    let screen = self.capture(view).await?;
                    Ok((screen, Some(Instant::now())))
                }
            }
        };
        let state = async {
            match reused {
                true => (None, PageQuiet::default()),
                false => self.page_state().await,
            }
        };
        let page_side: Vec<Arc<dyn StepCheck>> = checks
            .iter()
            .filter(|check| !check.reads_screen())
            .cloned()
            .collect();
        let page_looks = async {
            match answers {
                Some(looks) => Ok(looks),
                None => {
                    let nothing = blank_screen()?;
                    self.looks(step, at, &page_side, &nothing).await
                }
            }
        };
        let ahead = async {
            let next = self.env.next_page_checks.as_ref().filter(|_| ask_ahead)?;
            let nothing = blank_screen().ok()?;
            let looks = self
                .looks(&next.step, next.step.point, &next.checks, &nothing)
                .await
                .ok()?;
            Some(AnswersAhead {
                step: next.step.index,
                looks,
            })
        };
        let (screen, (busy, quiet), page_looks, ahead) =
            tokio::join!(screen, state, page_looks, ahead);
        let (screen, captured) = screen?;
        let answered = captured.unwrap_or_else(Instant::now);
        let pixel_side: Vec<Arc<dyn StepCheck>> = checks
            .iter()
            .filter(|check| check.reads_screen())
            .cloned()
            .collect();
        let mut page_looks = page_looks?.into_iter();
        let mut pixel_looks = self
            .looks(step, at, &pixel_side, &screen)
            .await?
            .into_iter();
        let looks = checks
            .iter()
            .filter_map(|check| match check.reads_screen() {
                true => pixel_looks.next(),
                false => page_looks.next(),
            })
            .collect();
        Ok(ObservedPoll {
            screen,
            busy,
            looks,
            answered,
            ahead,
            quiet,
        })
    }

    /// The part of the screen the screen-reading `checks` read for `step` acting at `at`: the
    /// squares of `side` pixels around the points they read. After acting (`for_next`) also
    /// what the next step looks at first, so its look can start from the same screenshot:
    /// the squares its before-action checks read ([`crate::checks::CheckEnv::next_reads`])
    /// and, when it types, the field the focus is in, with its margin (its wait for a still
    /// field takes a new screenshot when the field is not where
    /// [`Waiter::focus_region_after`] expected). `None` when the screen captures only whole
    /// screenshots, or nothing is read.
    pub(super) async fn part_read(
        &self,
        step: &PlannedStep,
        at: Option<(i64, i64)>,
        checks: &[Arc<dyn StepCheck>],
        side: u32,
        for_next: bool,
    ) -> Option<Region> {
        let (width, height) = self.screen.part_capture_size().await?;
        let square = |point| retrace_vision::action_region(point, side, width, height);
        let own = at.into_iter().flat_map(|at| {
            checks
                .iter()
                .filter(|check| check.reads_screen())
                .flat_map(move |check| check.points_read(step, at))
        });
        let next = self.env.next_reads.iter().copied().filter(|_| for_next);
        let read = own
            .chain(next)
            .map(square)
            .reduce(|one, other| one.union(other));
        if !for_next || !self.env.focus_next {
            return read;
        }
        match (read, self.focus_region_after(step, at, width, height).await) {
            (Some(read), Some(field)) => Some(read.union(field)),
            (read, field) => read.or(field),
        }
    }

    /// Every check's look at one screenshot.
    pub(super) async fn look_all(
        &self,
        step: &PlannedStep,
        at: Option<(i64, i64)>,
        checks: &[Arc<dyn StepCheck>],
        screen: &Arc<Image>,
        started: Instant,
    ) -> Result<Verdict, ScreenError> {
        let looks = self.looks(step, at, checks, screen).await?;
        Ok(Verdict::looked(looks, Arc::clone(screen), started))
    }

    pub(super) async fn looks(
        &self,
        step: &PlannedStep,
        at: Option<(i64, i64)>,
        checks: &[Arc<dyn StepCheck>],
        screen: &Arc<Image>,
    ) -> Result<Vec<(&'static str, Look)>, ScreenError> {
        let mut looks = Vec::with_capacity(checks.len());
        for check in checks {
            let look = check
                .look(step, at, screen, self.env)
                .await
                .map_err(|error| ScreenError(format!("{} check: {error}", check.name())))?;
            looks.push((check.name(), look));
        }
        Ok(looks)
    }

    /// Asks the checks that fail where the recorded thing moved; a place where every check
    /// passes, with the looks there.
    pub(super) async fn relocated(
        &self,
        step: &PlannedStep,
        at: (i64, i64),
        checks: &[Arc<dyn StepCheck>],
        screen: &Arc<Image>,
    ) -> Result<Option<(Relocation, Vec<(&'static str, Look)>)>, ScreenError> {
        for check in checks {
            let Some(hit) = check.relocate(step, at, screen, self.env).await else {
                continue;
            };
            let moved = (at.0 + hit.offset.0, at.1 + hit.offset.1);
            let looks = self.looks(step, Some(moved), checks, screen).await?;
            if looks.iter().all(|(_, look)| look.passed) {
                return Ok(Some((hit, looks)));
            }
        }
        Ok(None)
    }

    /// One search on the verdict's screenshot; on a hit, the verdict becomes the repaired one.
    pub(super) async fn try_repair(
        &self,
        step: &PlannedStep,
        at: (i64, i64),
        checks: &[Arc<dyn StepCheck>],
        verdict: &mut Verdict,
        started: Instant,
    ) -> Result<(), ScreenError> {
        if let Some((hit, looks)) = self.relocated(step, at, checks, &verdict.screen).await? {
            verdict.looks = looks;
            verdict.relocation = Some(hit);
        }
        verdict.waited = started.elapsed();
        Ok(())
    }

    /// A fresh screenshot, retried for [`SCREENSHOT_BUDGET`] or the step's time, whichever
    /// is longer (see the module docs).
    pub(super) async fn capture(&self, view: View) -> Result<Arc<Image>, ScreenError> {
        let settings = &self.env.settings;
        let started = Instant::now();
        let budget = settings.step_timeout.max(SCREENSHOT_BUDGET);
        let mut attempt_limit = Duration::from_secs(2);
        loop {
            let attempt = async {
                match view {
                    View::Rendered => self.screen.capture().await,
                    View::AsShown => self.screen.capture_as_shown().await,
                    View::Part(part) => self.screen.capture_part(part).await,
                }
            };
            let error = match tokio::time::timeout(attempt_limit, attempt).await {
                Ok(Ok(image)) => return Ok(Arc::new(image)),
                Ok(Err(error)) => error,
                Err(_) => format!("no screenshot within {:.1} s", attempt_limit.as_secs_f64()),
            };
            if started.elapsed() >= budget {
                return Err(ScreenError(error));
            }
            tracing::debug!("screenshot failed ({error}); retrying");
            attempt_limit = attempt_limit.saturating_mul(2);
            tokio::time::sleep(settings.poll_interval).await;
        }
    }
}
