//! What a Chromium page is doing: the [`PageActivity`] behind readiness and settledness
//! (see [`crate::readiness`] for what is judged and why).
//!
//! - Requests in flight come from the page's [`NetworkTracker`].
//! - Pending navigations come from CDP Page events kept here ([`NavigationTracker`]): a frame
//!   that started loading a document and has not stopped.
//! - The document's load state, fonts, animations, media and DOM changes come from one small
//!   script (`activity.js`) in retrace's isolated world ([`super::world`]), so a page with fake
//!   timers or a replaced `performance.now` cannot skew them. Its `MutationObserver` is
//!   installed at the start of every new document (`Page.addScriptToEvaluateOnNewDocument` in
//!   the same world), so changes are seen from the first node on.
//!
//! The probe waits at most [`PROBE_TIMEOUT`] for the page: a page whose main thread is busy
//! for longer is reported as not answering, which is itself "still happening".

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::page::AddScriptToEvaluateOnNewDocumentParams;
use chromiumoxide::cdp::browser_protocol::page::EventFrameDetached;
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

/// Which frames are loading a document; cheap to clone.
#[derive(Debug, Clone)]
pub(crate) struct NavigationTracker {
    state: Arc<Mutex<Loading>>,
}

#[derive(Debug)]
struct Loading {
    frames: HashSet<String>,
    last_change: Instant,
}

enum FrameEvent {
    Started(String),
    Stopped(String),
}

impl NavigationTracker {
    /// Follows `page`'s frames for as long as the page lives, and has the DOM tracker
    /// installed in every new document (and the current one).
    pub(crate) async fn attach(page: &Page) -> Result<Self, chromiumoxide::error::CdpError> {
        let started = page.event_listener::<EventFrameStartedLoading>().await?;
        let stopped = page.event_listener::<EventFrameStoppedLoading>().await?;
        let detached = page.event_listener::<EventFrameDetached>().await?;
        let streams: Vec<BoxStream<'static, FrameEvent>> = vec![
            started
                .map(|event| FrameEvent::Started(event.frame_id.inner().clone()))
                .boxed(),
            stopped
                .map(|event| FrameEvent::Stopped(event.frame_id.inner().clone()))
                .boxed(),
            detached
                .map(|event| FrameEvent::Stopped(event.frame_id.inner().clone()))
                .boxed(),
        ];
        let tracker = Self {
            state: Arc::new(Mutex::new(Loading {
                frames: HashSet::new(),
                last_change: Instant::now(),
            })),
        };
        let state = Arc::clone(&tracker.state);
        tokio::spawn(async move {
            let mut events = futures::stream::select_all(streams);
            while let Some(event) = events.next().await {
                let Ok(mut state) = state.lock() else {
                    return;
                };
                match event {
                    FrameEvent::Started(frame) => {
                        state.frames.insert(frame);
                    }
                    FrameEvent::Stopped(frame) => {
                        state.frames.remove(&frame);
                    }
                }
                state.last_change = Instant::now();
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
}

/// What the page is doing now. Fails only when the page or browser is gone; a page that does
/// not answer is reported in [`PageActivity::document`].
pub(crate) async fn page_activity(
    world: &IsolatedWorld<'_>,
    network: &NetworkTracker,
    navigation: &NavigationTracker,
) -> Result<PageActivity, DriveError> {
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
            })
            .map_err(|error| format!("the page's answer is malformed: {error}")),
    };
    let (requests_in_flight, network_quiet_for) = network.status();
    let (navigation_pending, navigation_quiet_for) = navigation.status();
    Ok(PageActivity {
        requests_in_flight,
        network_quiet_for,
        navigation_pending,
        navigation_quiet_for,
        document,
    })
}
