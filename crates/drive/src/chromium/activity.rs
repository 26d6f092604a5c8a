//! What a Chromium page is doing: the [`PageActivity`] behind readiness and settledness
//! (see [`crate::readiness`] for what is judged and why).
//!
//! - Requests in flight come from the page's [`NetworkTracker`].
//! - Pending navigations come from CDP Page events kept here ([`NavigationTracker`]): a frame
//!   that started loading a document and has not stopped. The document also announces a
//!   navigation away from itself as it starts one (the Navigation API's `navigate` event: a
//!   form submitted, a link followed), before the browser process has begun loading it and
//!   said so: until a frame event follows the announcement (for
//!   [`ANNOUNCED_NAVIGATION_LIMIT`] at most), the navigation counts as pending, so a settle
//!   right after a click that submits a form does not take the old page for the result.
//! - The document's load state, fonts, animations, media and DOM changes come from one small
//!   script (`activity.js`) in retrace's isolated world ([`super::world`]), so a page with fake
//!   timers or a replaced `performance.now` cannot skew them. Its `MutationObserver` is
//!   installed at the start of every new document (`Page.addScriptToEvaluateOnNewDocument` in
//!   the same world), so changes are seen from the first node on.
//!
//! - Commits (`Page.frameNavigated`: a frame's new document replaced the old one) are counted
//!   and can be awaited ([`NavigationTracker::commits`]): a screenshot asked for before a
//!   navigation committed can be left unanswered (see `page.rs`), and is asked again then.
//!
//! The probe waits at most [`PROBE_TIMEOUT`] for the page: a page whose main thread is busy
//! for longer is reported as not answering, which is itself "still happening".

use std::collections::HashMap;
use std::collections::HashSet;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::page::AddScriptToEvaluateOnNewDocumentParams;
use chromiumoxide::cdp::browser_protocol::page::EventFrameDetached;
use chromiumoxide::cdp::browser_protocol::page::EventFrameNavigated;
use chromiumoxide::cdp::browser_protocol::page::EventFrameStartedLoading;
use chromiumoxide::cdp::browser_protocol::page::EventFrameStoppedLoading;
use futures::StreamExt;
use futures::stream::BoxStream;
use serde::Deserialize;

use super::network::NetworkTracker;
use super::world::IsolatedWorld;
use super::world::UTILITY_WORLD_NAME;
use crate::error::DriveError;
use crate::readiness::DocumentActivity;
use crate::readiness::PageActivity;

const ACTIVITY_JS: &str = include_str!("activity.js");

/// How long the probe waits for the page's main thread.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a navigation the document announced counts as pending before the browser reports
/// it: long enough for a loaded machine's browser process to begin it; one it never begins
/// (an external protocol's link) does not hold the page busy for ever.
const ANNOUNCED_NAVIGATION_LIMIT: Duration = Duration::from_secs(5);

/// Which frames are loading a document; cheap to clone.
#[derive(Debug, Clone)]
pub(crate) struct NavigationTracker {
    state: Arc<Mutex<Loading>>,
    /// How many documents have committed in the page's frames since it was set up.
    commits: tokio::sync::watch::Receiver<u64>,
}

#[derive(Debug)]
struct Loading {
    frames: HashSet<String>,
    /// Frames whose stop was seen before their start, and when: the three event streams are
    /// separate channels, merged without their order, so on a busy machine (or for a
    /// navigation begun and dropped at once) `frameStoppedLoading` can be handled before
    /// `frameStartedLoading`. Such a frame must not then count as loading for ever; an early
    /// stop older than [`EARLY_STOP_PAIRING`] pairs with no later start.
    stopped_early: HashMap<String, Instant>,
    last_change: Instant,
}

/// How long a stop seen before its start waits for that start.
const EARLY_STOP_PAIRING: Duration = Duration::from_secs(1);

impl Loading {
    /// Takes in one frame event, handled at `now`.
    fn apply(&mut self, event: FrameEvent, now: Instant) {
        match event {
            FrameEvent::Started(frame) => {
                let paired = self
                    .stopped_early
                    .remove(&frame)
                    .is_some_and(|stopped| now.duration_since(stopped) < EARLY_STOP_PAIRING);
                if !paired {
                    self.frames.insert(frame);
                }
            }
            FrameEvent::Stopped(frame) => {
                if !self.frames.remove(&frame) {
                    self.stopped_early.insert(frame, now);
                }
            }
            FrameEvent::Detached(frame) => {
                self.frames.remove(&frame);
                self.stopped_early.remove(&frame);
            }
            FrameEvent::Committed => {}
        }
        self.last_change = now;
    }
}

enum FrameEvent {
    Started(String),
    Stopped(String),
    Detached(String),
    /// A new document committed in a frame: it changes no frame's loading state.
    Committed,
}

impl NavigationTracker {
    /// Follows `page`'s frames for as long as the page lives, and has the DOM tracker
    /// installed in every new document (and the current one).
    pub(crate) async fn attach(page: &Page) -> Result<Self, chromiumoxide::error::CdpError> {
        let started = page.event_listener::<EventFrameStartedLoading>().await?;
        let stopped = page.event_listener::<EventFrameStoppedLoading>().await?;
        let detached = page.event_listener::<EventFrameDetached>().await?;
        let navigated = page.event_listener::<EventFrameNavigated>().await?;
        let streams: Vec<BoxStream<'static, FrameEvent>> = vec![
            started
                .map(|event| FrameEvent::Started(event.frame_id.inner().clone()))
                .boxed(),
            stopped
                .map(|event| FrameEvent::Stopped(event.frame_id.inner().clone()))
                .boxed(),
            detached
                .map(|event| FrameEvent::Detached(event.frame_id.inner().clone()))
                .boxed(),
            navigated.map(|_| FrameEvent::Committed).boxed(),
        ];
        let (committed, commits) = tokio::sync::watch::channel(0u64);
        let tracker = Self {
            commits,
            state: Arc::new(Mutex::new(Loading {
                frames: HashSet::new(),
                stopped_early: HashMap::new(),
                last_change: Instant::now(),
            })),
        };
        let state = Arc::clone(&tracker.state);
        tokio::spawn(async move {
            let mut events = futures::stream::select_all(streams);
            while let Some(event) = events.next().await {
                if matches!(event, FrameEvent::Committed) {
                    committed.send_modify(|count| *count += 1);
                }
                let Ok(mut state) = state.lock() else {
                    return;
                };
                state.apply(event, Instant::now());
            }
        });
        let tracker_script = AddScriptToEvaluateOnNewDocumentParams {
            source: format!("({ACTIVITY_JS})(false)"),
            world_name: Some(UTILITY_WORLD_NAME.to_owned()),
            include_command_line_api: None,
            run_immediately: Some(true),
        };
        page.execute(tracker_script).await?;
        Ok(tracker)
    }

    /// A receiver that wakes when a document commits in one of the page's frames; what
    /// committed before this call is already seen.
    pub(crate) fn commits(&self) -> tokio::sync::watch::Receiver<u64> {
        let mut commits = self.commits.clone();
        commits.mark_unchanged();
        commits
    }

    /// Whether a frame is loading, and how long since a frame last started or stopped.
    fn status(&self) -> (bool, Duration) {
        match self.state.lock() {
            Ok(state) => (!state.frames.is_empty(), state.last_change.elapsed()),
            Err(_) => (false, Duration::MAX),
        }
    }
}

/// The probe's answer, as `activity.js` spells it.
#[derive(Deserialize)]
struct Probe {
    ready_state: String,
    fonts_ready: bool,
    animations_running: usize,
    animations: Vec<String>,
    media_playing: usize,
    dom_quiet_ms: f64,
    dom_mutations: u64,
    render_quiet_ms: f64,
    opaque_painters: usize,
    leaving_ms: Option<f64>,
}

/// What the page is doing now. Fails only when the page or browser is gone; a page that does
/// not answer is reported in [`PageActivity::document`].
pub(crate) async fn page_activity(
    world: &IsolatedWorld<'_>,
    network: &NetworkTracker,
    navigation: &NavigationTracker,
) -> Result<PageActivity, DriveError> {
    let asked = Instant::now();
    let doing = "reading what the page is doing";
    let script = format!("({ACTIVITY_JS})(true)");
    let document = match tokio::time::timeout(PROBE_TIMEOUT, world.evaluate(doing, &script)).await {
        Err(_) => Err(format!(
            "no answer within {} ms (its main thread is busy)",
            PROBE_TIMEOUT.as_millis()
        )),
        Ok(Err(error @ (DriveError::BackendGone { .. } | DriveError::Launch { .. }))) => {
            return Err(error);
        }
        Ok(Err(error)) => Err(error.to_string()),
        Ok(Ok(value)) => serde_json::from_value::<Probe>(value)
            .map(|probe| DocumentActivity {
                ready_state: probe.ready_state,
                fonts_ready: probe.fonts_ready,
                animations_running: probe.animations_running,
                animations: probe.animations,
                media_playing: probe.media_playing,
                dom_quiet_for: Duration::from_secs_f64(probe.dom_quiet_ms.max(0.0) / 1e3),
                dom_mutations: probe.dom_mutations,
                render_quiet_for: Duration::from_secs_f64(probe.render_quiet_ms.max(0.0) / 1e3),
                opaque_painters: probe.opaque_painters,
                leaving_for: probe
                    .leaving_ms
                    .map(|ms| Duration::from_secs_f64(ms.max(0.0) / 1e3)),
            })
            .map_err(|error| format!("the page's answer is malformed: {error}")),
    };
    let (requests_in_flight, network_quiet_for) = network.status();
    let (loading, tracked_quiet_for) = navigation.status();
    // The announcement was made at least this long before now (the probe ran after `asked`).
    let announced_ago = document
        .as_ref()
        .ok()
        .and_then(|document| document.leaving_for)
        .map(|leaving| asked.elapsed() + leaving);
    // A document request in flight is a navigation under way, even when the frame has not
    // said it started loading (a busy browser may say so only once the response comes).
    let navigation_pending = loading
        || network.document_in_flight()
        || announced_unseen(announced_ago, tracked_quiet_for);
    let navigation_quiet_for =
        announced_ago.map_or(tracked_quiet_for, |ago| ago.min(tracked_quiet_for));
    Ok(PageActivity {
        requests_in_flight,
        network_quiet_for,
        navigation_pending,
        navigation_quiet_for,
        document,
    })
}

/// Whether a navigation the document announced `announced_ago` is still unseen by the browser:
/// no frame has started or stopped loading since (the frame events came `tracked_quiet_for`
/// ago), and it is recent enough to be on its way ([`ANNOUNCED_NAVIGATION_LIMIT`]). One the
/// browser began is followed by the frame events instead; one it began and dropped (a 204
/// answer) has stopped loading since, so it no longer counts.
fn announced_unseen(announced_ago: Option<Duration>, tracked_quiet_for: Duration) -> bool {
    announced_ago.is_some_and(|ago| ago < ANNOUNCED_NAVIGATION_LIMIT && tracked_quiet_for > ago)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn loading() -> Loading {
        Loading {
            frames: HashSet::new(),
            stopped_early: HashMap::new(),
            last_change: Instant::now(),
        }
    }

    #[test]
    fn a_frame_stop_handled_before_its_start_leaves_the_frame_not_loading() {
        let start = Instant::now();
        let main = || "main".to_owned();
        let mut state = loading();
        state.apply(FrameEvent::Started(main()), start);
        assert!(state.frames.contains("main"));
        state.apply(FrameEvent::Stopped(main()), start);
        assert!(state.frames.is_empty());
        // The pair handled the other way round.
        state.apply(FrameEvent::Stopped(main()), start);
        state.apply(FrameEvent::Started(main()), start + 10 * MS);
        assert!(state.frames.is_empty());
        // A stop with no start (one seen twice) does not cancel a start long after it.
        state.apply(FrameEvent::Stopped(main()), start);
        state.apply(FrameEvent::Started(main()), start + EARLY_STOP_PAIRING);
        assert!(state.frames.contains("main"));
        // A frame that goes away loads no more.
        state.apply(FrameEvent::Detached(main()), start);
        assert!(state.frames.is_empty());
    }

    #[test]
    fn an_announced_navigation_is_pending_until_a_frame_event_follows_it() {
        // Nothing announced: nothing pending.
        assert!(!announced_unseen(None, 10_000 * MS));
        // Announced 30 ms ago, the frames quiet for 2 s: the browser has not begun it.
        assert!(announced_unseen(Some(30 * MS), 2_000 * MS));
        // A frame started (or stopped) loading 10 ms ago, after the announcement: the frame
        // events speak for it now.
        assert!(!announced_unseen(Some(30 * MS), 10 * MS));
        // Announced long ago and never begun: no longer held for.
        assert!(!announced_unseen(
            Some(ANNOUNCED_NAVIGATION_LIMIT),
            ANNOUNCED_NAVIGATION_LIMIT * 2
        ));
    }
}
