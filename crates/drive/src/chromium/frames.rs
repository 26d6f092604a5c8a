//! One-shot screencast frames: the fast way to see a page's viewport.
//!
//! `Page.captureScreenshot` asks the compositor for a copy of a frame it then has to produce
//! and waits on frame pacing: 30–50 ms a call in headless Chromium, whatever the size or
//! format. Starting a screencast makes Chromium push its current frame as an event at once:
//! about 12 ms, with the same pixels (lossless PNG of the same compositor output; checked
//! against `captureScreenshot` in the end-to-end tests). With the freshness wait below, a
//! grab of a settled page (what replay's polls see while it waits) takes about half the time
//! of `captureScreenshot` (`scripts/bench-drive.sh` times both in one run); right after a
//! change Chromium has to encode the new frame and the two cost about the same.
//!
//! **Freshness.** A screencast frame is the compositor's latest output: a change the page's
//! main thread made within the last frame or so (a click handler that opens a dialog, a style
//! set by script) may not be in it yet. Measured on a page whose colour a script changed just
//! before each grab, 7 % of bare grabs showed the colour before. So a grab first waits, inside
//! the page, for the next animation frame to be rendered (`requestAnimationFrame`, then a
//! task after it: the frame's style, layout and paint have been committed; see
//! [`NEXT_FRAME_RENDERED_JS`], run by the page before it grabs), and only then starts the
//! screencast; measured the same way, 0 stale frames in 2,000 grabs, 1,000 of them
//! with the machine's two cores saturated by other work. `captureScreenshot` is fresh by
//! construction; a grab is fresh by this wait.
//!
//! A grab starts the screencast, takes the first frame drawn after the start, and stops it.
//! The frame is never acknowledged, so Chromium sends no second one: an animated page costs
//! no encoding between grabs. Frames carry increasing numbers per page; a grab takes only a
//! frame numbered above every frame seen before it started.
//!
//! When no frame comes in time (a page in the middle of a cross-process navigation, a browser
//! that does not screencast) or the frame is not the viewport's size, the caller falls back to
//! `Page.captureScreenshot`.

use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

use base64::Engine;
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::page::EventScreencastFrame;
use chromiumoxide::cdp::browser_protocol::page::StartScreencastFormat;
use chromiumoxide::cdp::browser_protocol::page::StartScreencastParams;
use chromiumoxide::cdp::browser_protocol::page::StopScreencastParams;
use futures::StreamExt;
use tokio::sync::watch;

/// How long a grab waits for its frame before the caller falls back to a screenshot.
const FRAME_TIMEOUT: Duration = Duration::from_millis(400);

/// How long to wait for the page to render its next animation frame before a grab (a page
/// whose main thread is busy for longer gets a screenshot instead, which waits for it too).
pub(crate) const RENDER_TIMEOUT: Duration = Duration::from_millis(400);

/// Resolves once the page has rendered its next frame: the task after a
/// `requestAnimationFrame` callback runs when that frame's rendering update is done.
pub(crate) const NEXT_FRAME_RENDERED_JS: &str =
    "new Promise(resolve => requestAnimationFrame(() => setTimeout(resolve, 0)))";

/// Why a grab gave no frame; the caller takes a screenshot instead.
#[derive(Debug)]
pub(crate) enum GrabMiss {
    /// A CDP command failed.
    Cdp(chromiumoxide::error::CdpError),
    /// No frame within [`FRAME_TIMEOUT`].
    NoFrame,
    /// The frame was not a decodable base64 PNG.
    BadFrame(String),
}

/// Takes one-shot screencast frames of a page; one grab at a time.
#[derive(Debug)]
pub(crate) struct FrameGrabber {
    latest: watch::Receiver<Option<Arc<EventScreencastFrame>>>,
    /// Serialises grabs: two screencasts on one page would share frames.
    lock: tokio::sync::Mutex<()>,
}

impl FrameGrabber {
    /// Subscribes to `page`'s screencast frames for as long as the page lives.
    pub(crate) async fn attach(page: &Page) -> Result<Self, chromiumoxide::error::CdpError> {
        let mut frames = page.event_listener::<EventScreencastFrame>().await?;
        let (sender, latest) = watch::channel(None);
        tokio::spawn(async move {
            while let Some(frame) = frames.next().await {
                if sender.send(Some(frame)).is_err() {
                    return;
                }
            }
        });
        Ok(Self {
            latest,
            lock: tokio::sync::Mutex::new(()),
        })
    }

    /// The PNG bytes of a frame drawn after this call began. It holds every change the page
    /// made before its last rendered frame: wait for one ([`NEXT_FRAME_RENDERED_JS`]) first.
    pub(crate) async fn grab(&self, page: &Page) -> Result<Vec<u8>, GrabMiss> {
        let _one_at_a_time = self.lock.lock().await;
        let started = Instant::now();
        let mut latest = self.latest.clone();
        let seen = latest
            .borrow_and_update()
            .as_ref()
            .map_or(i64::MIN, |frame| frame.session_id);
        let start = StartScreencastParams {
            format: Some(StartScreencastFormat::Png),
            every_nth_frame: Some(1),
            ..StartScreencastParams::default()
        };
        page.execute(start).await.map_err(GrabMiss::Cdp)?;
        let waited = tokio::time::timeout(FRAME_TIMEOUT, async {
            loop {
                if latest.changed().await.is_err() {
                    return None;
                }
                let frame = latest.borrow_and_update().clone();
                if let Some(frame) = frame.filter(|frame| frame.session_id > seen) {
                    return Some(frame);
                }
            }
        })
        .await;
        // Stop whatever happened: a running screencast would keep encoding frames.
        let stopped = page.execute(StopScreencastParams::default()).await;
        let frame = match waited {
            Ok(Some(frame)) => frame,
            Ok(None) | Err(_) => return Err(GrabMiss::NoFrame),
        };
        stopped.map_err(GrabMiss::Cdp)?;
        tracing::debug!(elapsed = ?started.elapsed(), "screencast frame");
        base64::engine::general_purpose::STANDARD
            .decode(AsRef::<[u8]>::as_ref(&frame.data))
            .map_err(|error| GrabMiss::BadFrame(format!("the frame is not base64: {error}")))
    }
}

impl std::fmt::Display for GrabMiss {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GrabMiss::Cdp(error) => write!(formatter, "{error}"),
            GrabMiss::NoFrame => write!(
                formatter,
                "no screencast frame within {} ms",
                FRAME_TIMEOUT.as_millis()
            ),
            GrabMiss::BadFrame(detail) => write!(formatter, "{detail}"),
        }
    }
}
