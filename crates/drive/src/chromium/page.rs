//! [`ChromiumPage`]: one browser tab as a [`Backend`] and [`BrowserBackend`].
//!
//! **Screenshots are fresh by construction.** Every screenshot is a `Page.captureScreenshot`.
//! With the `CDPScreenshotNewSurface` feature retrace launches Chromium with (see
//! [`super::process::CHROMIUM_FLAGS`]), Chromium gives the page a new surface (the message
//! is sent after everything this page was told before, so after every script and input event
//! that returned before the call) and copies the first frame the renderer draws for it;
//! without the feature (a remote browser), it asks for a forced redraw and copies that frame
//! once presented. Either way the picture holds every change made before the call, however
//! loaded the machine is: 0 stale in 1,500 screenshots each way, each right after a change,
//! beside 8 CPU-bound processes on 2 cores. A screenshot of part of the viewport
//! ([`BrowserBackend::screenshot_part`], what replay's checks before acting read) is the same
//! capture clipped: as fresh, with exactly the pixels a whole one has there, at about half
//! its cost (the whole frame is still drawn; less of it is copied, encoded and sent).
//!
//! **A clipped capture can leave the page's emulation shifted.** Chromium draws a clip by
//! emulating a viewport moved to the clip, then restores the emulation it had. When the
//! page navigates while a clipped capture is under way, the clip's offset can stay in the
//! emulation the new document is shown with: every later whole screenshot shows the page
//! moved by the clip's offset (input and layout are not affected, and clipped captures still
//! look right, since each sets its own offset). Beside 8 busy processes this happened on about
//! half of the navigations watched through clips. So the first whole screenshot after a
//! clipped one sends the page's device metrics again, in the same batch as the capture (no
//! extra round trip): that replaces whatever a clip left, and changes nothing otherwise
//! (`a_whole_screenshot_after_clipped_ones_across_a_navigation_is_not_shifted` in
//! `tests/chromium_e2e`).
//!
//! A one-shot screencast frame (`Page.startScreencast`, taken after the page's next
//! `requestAnimationFrame`) was used before as a faster path (about half the time on a
//! settled page on an idle machine) and was dropped because its freshness cannot be proven:
//! the frame is whatever the compositor last drew, and nothing ties it to the page's latest
//! rendering. A page learns when its frame began, not when it was presented; the frame's
//! `metadata.timestamp` is the browser's clock when it encoded the frame, not the content's;
//! `HeadlessExperimental.beginFrame` does not exist in `--headless` (new) Chromium. Beside 8
//! busy processes, 1 such grab in 300 showed the colour from before a change made just
//! before it (54 in 300 without the wait for a frame; 0 in 300 waiting for two frames, which
//! still proves nothing and took longer than `captureScreenshot`).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering;
use std::time::Duration;
use std::time::Instant;

use async_trait::async_trait;
use base64::Engine;
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::emulation::SetDeviceMetricsOverrideParams;
use chromiumoxide::cdp::browser_protocol::page::CaptureScreenshotFormat;
use chromiumoxide::cdp::browser_protocol::page::CaptureScreenshotParams;
use chromiumoxide::cdp::browser_protocol::page::CloseParams;
use chromiumoxide::cdp::browser_protocol::page::GetLayoutMetricsParams;
use chromiumoxide::cdp::browser_protocol::page::Viewport;
use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;

use super::activity;
use super::activity::NavigationTracker;
use super::connection::BACKEND;
use super::connection::BrowserCore;
use super::context::RunContext;
use super::dialogs::DialogWatch;
use super::dom;
use super::element;
use super::input;
use super::input::InputState;
use super::listeners;
use super::network::NetworkTracker;
use super::pipeline;
use super::world::IsolatedWorld;
use crate::backend::Backend;
use crate::backend::BoundingBox;
use crate::backend::BrowserBackend;
use crate::backend::ElementInfo;
use crate::backend::MouseButton;
use crate::backend::Point;
use crate::backend::Screenshot;
use crate::backend::ScrollDirection;
use crate::error::DriveError;
use crate::readiness::PageActivity;

/// The `Backend` half: pointer, keyboard and whole screenshots.
#[path = "page_backend.rs"]
mod backend_impl;

/// How long one screenshot may take over all its attempts before it is an error.
const SCREENSHOT_BUDGET: Duration = Duration::from_secs(60);

/// The first pause before a capture Chromium refused because the page has not drawn yet.
const NOT_DRAWN_PAUSE: Duration = Duration::from_millis(10);

/// The longest pause between such captures.
const NOT_DRAWN_PAUSE_MAX: Duration = Duration::from_millis(200);

/// Whether Chromium refused a capture because the page has no frame to copy yet: a document
/// that has committed and not drawn (its main thread busy from its first script, or a loaded
/// machine). It draws later; any other error stands.
fn not_drawn_yet(error: &chromiumoxide::error::CdpError) -> bool {
    matches!(error, chromiumoxide::error::CdpError::Chrome(error)
        if error.message.contains("Unable to capture screenshot"))
}

/// Whether Chromium refused a capture because the page's new document is not attached yet:
/// answered right after a navigation committed, until the new document is set up.
fn not_attached_yet(error: &chromiumoxide::error::CdpError) -> bool {
    matches!(error, chromiumoxide::error::CdpError::Chrome(error)
        if error.message.contains("Not attached to an active page"))
}

/// One Chromium tab: screenshots, mouse and keyboard over CDP, navigation and the DOM.
#[derive(Debug)]
pub struct ChromiumPage {
    core: Arc<BrowserCore>,
    /// The run this page belongs to: its browser context lives while any of its pages does.
    _run: Arc<RunContext>,
    page: Page,
    input: InputState,
    network: NetworkTracker,
    closed: AtomicBool,
    navigation: NavigationTracker,
    /// Answers the page's JavaScript dialogs (see the `dialogs` module).
    dialogs: DialogWatch,
    /// Whether a clipped capture was asked for since the device metrics were last sent (see
    /// the module docs: a clip can leave the emulation shifted).
    clipped_since_metrics: AtomicBool,
}

impl ChromiumPage {
    pub(crate) async fn new(run: Arc<RunContext>, page: Page) -> Result<Self, DriveError> {
        let doing = "setting up a new page";
        let core = Arc::clone(run.core());
        // Independent commands, sent together: none waits for another's answer.
        let (metrics, network, navigation, dialogs) = tokio::join!(
            page.execute(device_metrics(&core)),
            NetworkTracker::attach(&page),
            NavigationTracker::attach(&page),
            DialogWatch::attach(&page),
        );
        metrics.map_err(|e| core.error(doing, e))?;
        let dialogs = dialogs.map_err(|e| core.error(doing, e))?;
        let network = network.map_err(|e| core.error(doing, e))?;
        let navigation = navigation.map_err(|e| core.error(doing, e))?;
        Ok(Self {
            core,
            _run: run,
            page,
            input: InputState::default(),
            network,
            closed: AtomicBool::new(false),
            navigation,
            dialogs,
            clipped_since_metrics: AtomicBool::new(false),
        })
    }

    /// Leaves the page's JavaScript dialogs to the person acting in its window (`retrace
    /// record`) instead of answering them.
    pub fn leave_dialogs_to_person(&self) {
        self.dialogs.leave_to_person();
    }

    /// Fails with `BackendGone` when this page was closed.
    fn check_open(&self, doing: &str) -> Result<(), DriveError> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(DriveError::BackendGone {
                backend: BACKEND.to_owned(),
                doing: doing.to_owned(),
                detail: "the page was closed".to_owned(),
            });
        }
        Ok(())
    }

    /// Retrace's isolated world in this page (see the `world` module), once the page is open.
    fn world(&self, doing: &str) -> Result<IsolatedWorld<'_>, DriveError> {
        self.check_open(doing)?;
        Ok(IsolatedWorld::new(&self.page, &self.core))
    }

    fn error(&self, doing: &str, error: chromiumoxide::error::CdpError) -> DriveError {
        self.core.error(doing, error)
    }

    /// Runs a screenshot command, each attempt bounded: Chromium can leave a capture asked for
    /// while a navigation commits unanswered until the CDP timeout (30 s), and on a loaded
    /// machine one can take seconds; a new request is answered once the page has moved on.
    /// So a capture still unanswered when a document commits is asked again at once (no blind
    /// wait for its bound; the commit is [`NavigationTracker::commits`]). Attempts get 4 s,
    /// doubling, for [`SCREENSHOT_BUDGET`] in all. A document that has
    /// committed but not drawn yet (a script at its start holding the main thread, a loaded
    /// machine) is answered at once with "Unable to capture screenshot": that is asked again
    /// after a pause ([`NOT_DRAWN_PAUSE`], doubling up to [`NOT_DRAWN_PAUSE_MAX`]) for the
    /// same budget, until the page has drawn (so is "Not attached to an active page", said
    /// right after a commit).
    async fn execute_bounded(
        &self,
        doing: &str,
        params: CaptureScreenshotParams,
    ) -> Result<chromiumoxide::cdp::browser_protocol::page::CaptureScreenshotReturns, DriveError>
    {
        let started = Instant::now();
        let mut limit = Duration::from_secs(4);
        let mut pause = NOT_DRAWN_PAUSE;
        let mut commits = self.navigation.commits();
        // Whether a navigation committed while a capture was asked for.
        let mut committed_since = false;
        loop {
            let asked = tokio::time::timeout(limit, self.page.execute(params.clone()));
            // A page whose frames are no longer followed commits nothing more.
            let committed = async {
                if commits.changed().await.is_err() {
                    std::future::pending::<()>().await;
                }
            };
            let answer = tokio::select! {
                answer = asked => answer,
                () = committed => {
                    // Asked before the new document replaced the old one: Chromium may never
                    // answer it; a capture asked now is answered once the new one has drawn.
                    self.check_open(doing)?;
                    if started.elapsed() >= SCREENSHOT_BUDGET {
                        return Err(DriveError::Operation {
                            backend: BACKEND.to_owned(),
                            doing: doing.to_owned(),
                            detail: "the page kept navigating".to_owned(),
                        });
                    }
                    tracing::debug!("{doing}: a navigation committed meanwhile; asking again");
                    committed_since = true;
                    continue;
                }
            };
            let error = match answer {
                Ok(Ok(shot)) => return Ok(shot.result),
                Ok(Err(error))
                    if not_drawn_yet(&error) || (committed_since && not_attached_yet(&error)) =>
                {
                    let error = self.error(doing, error);
                    self.check_open(doing)?;
                    if started.elapsed() + pause >= SCREENSHOT_BUDGET {
                        return Err(error);
                    }
                    tracing::debug!("{doing}: {error}; the page has not drawn yet, asking again");
                    tokio::time::sleep(pause).await;
                    pause = pause.saturating_mul(2).min(NOT_DRAWN_PAUSE_MAX);
                    continue;
                }
                Ok(Err(error)) => self.error(doing, error),
                Err(_) => DriveError::Operation {
                    backend: BACKEND.to_owned(),
                    doing: doing.to_owned(),
                    detail: format!("no answer within {:.0} s", limit.as_secs_f64()),
                },
            };
            self.check_open(doing)?;
            if started.elapsed() + limit >= SCREENSHOT_BUDGET {
                return Err(error);
            }
            tracing::debug!("{doing}: {error}; asking again");
            limit = limit.saturating_mul(2);
        }
    }

    /// Captures the viewport, or with `full_page` the whole scrollable page, as PNG: a
    /// frame drawn after the call began (see the module docs).
    pub async fn capture(&self, full_page: bool) -> Result<Screenshot, DriveError> {
        let doing = if full_page {
            "taking a full-page screenshot"
        } else {
            "taking a screenshot"
        };
        self.check_open(doing)?;
        if !full_page {
            return self.capture_clip(doing, None, false).await;
        }
        let metrics = self
            .page
            .execute(GetLayoutMetricsParams::default())
            .await
            .map_err(|e| self.error(doing, e))?;
        let size = &metrics.result.css_content_size;
        let clip = Viewport {
            x: 0.0,
            y: 0.0,
            width: size.width.ceil().max(f64::from(self.core.width)),
            height: size.height.ceil().max(f64::from(self.core.height)),
            scale: 1.0,
        };
        self.capture_clip(doing, Some(clip), true).await
    }

    /// Captures `clip` (the viewport when `None`), with `beyond_viewport` the page past the
    /// viewport too, as PNG.
    async fn capture_clip(
        &self,
        doing: &str,
        clip: Option<Viewport>,
        beyond_viewport: bool,
    ) -> Result<Screenshot, DriveError> {
        let whole_viewport = clip.is_none() && !beyond_viewport;
        // The first whole screenshot after a clipped one resets the emulation a clip may have
        // left shifted (see the module docs). The reset is sent before the capture without
        // waiting for its answer: the page handles its commands in the order they arrive.
        let mut reset = None;
        if whole_viewport && self.clipped_since_metrics.swap(false, Ordering::SeqCst) {
            reset = Some(
                match pipeline::answer(&self.page, device_metrics(&self.core)) {
                    Ok(metrics) => Ok(pipeline::send(metrics).await),
                    Err(error) => Err(error),
                },
            );
        } else if !whole_viewport {
            self.clipped_since_metrics.store(true, Ordering::SeqCst);
        }
        let params = CaptureScreenshotParams {
            format: Some(CaptureScreenshotFormat::Png),
            // Faster PNG encoding (less compression): replay screenshots every step.
            optimize_for_speed: Some(true),
            clip,
            capture_beyond_viewport: beyond_viewport.then_some(true),
            ..CaptureScreenshotParams::default()
        };
        let shot = self.execute_bounded(doing, params).await;
        if let Some(reset) = reset
            && let Err(error) = match reset {
                Ok(sent) => sent.answer().await,
                Err(error) => Err(error),
            }
        {
            // Not reset: the next whole screenshot tries again.
            self.clipped_since_metrics.store(true, Ordering::SeqCst);
            return Err(self.error(doing, error));
        }
        let shot = shot?;
        let png = base64::engine::general_purpose::STANDARD
            .decode(AsRef::<str>::as_ref(&shot.data))
            .map_err(|e| DriveError::Operation {
                backend: BACKEND.to_owned(),
                doing: doing.to_owned(),
                detail: format!("the screenshot is not base64: {e}"),
            })?;
        let (width, height) = png_size(&png).ok_or_else(|| DriveError::Operation {
            backend: BACKEND.to_owned(),
            doing: doing.to_owned(),
            detail: "the screenshot is not a PNG".to_owned(),
        })?;
        Ok(Screenshot { png, width, height })
    }

    /// The underlying chromiumoxide page, for callers that need a CDP command retrace does
    /// not wrap.
    pub fn cdp_page(&self) -> &Page {
        &self.page
    }
}

/// The device metrics every page is shown with: the browser's viewport size, scale 1, not
/// mobile.
fn device_metrics(core: &BrowserCore) -> SetDeviceMetricsOverrideParams {
    SetDeviceMetricsOverrideParams::new(i64::from(core.width), i64::from(core.height), 1.0, false)
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    if png.len() < 24 || png[..8] != SIGNATURE || &png[12..16] != b"IHDR" {
        return None;
    }
    let width = u32::from_be_bytes(png[16..20].try_into().ok()?);
    let height = u32::from_be_bytes(png[20..24].try_into().ok()?);
    Some((width, height))
}

#[async_trait]
impl BrowserBackend for ChromiumPage {
    fn expect_dialogs(&self, dialogs: &[retrace_protocol::dialog::Dialog]) {
        self.dialogs.expect(dialogs);
    }

    /// `Page.captureScreenshot` clipped to `part`: fresh the same way as a whole one.
    async fn screenshot_part(
        &self,
        part: retrace_vision::Region,
    ) -> Result<Screenshot, DriveError> {
        let doing = format!("taking a screenshot of part {part} of the page");
        self.check_open(&doing)?;
        let clip = Viewport {
            x: f64::from(part.left),
            y: f64::from(part.top),
            width: f64::from(part.width()),
            height: f64::from(part.height()),
            scale: 1.0,
        };
        self.capture_clip(&doing, Some(clip), false).await
    }

    async fn navigate(&self, url: &str) -> Result<(), DriveError> {
        let doing = format!("opening {url}");
        self.check_open(&doing)?;
        self.network.touch();
        let started = Instant::now();
        self.page
            .goto(url)
            .await
            .map_err(|e| self.error(&doing, e))?;
        tracing::debug!(elapsed = ?started.elapsed(), "opened {url}");
        Ok(())
    }

    async fn wait_for_network_idle(&self, idle_ms: u64, timeout_ms: u64) -> Result<(), DriveError> {
        let doing = "waiting for the network to go idle";
        self.check_open(doing)?;
        let idle = Duration::from_millis(idle_ms);
        let started = Instant::now();
        loop {
            if self.core.is_dead() {
                let reason = self.core.death_reason();
                return Err(self.core.gone(doing, reason));
            }
            let (in_flight, quiet_for) = self.network.status();
            if in_flight == 0 && quiet_for >= idle {
                return Ok(());
            }
            if started.elapsed() >= Duration::from_millis(timeout_ms) {
                return Err(DriveError::Timeout {
                    doing: format!("{doing} ({in_flight} requests still in flight)"),
                    timeout_ms,
                });
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    async fn element_box_at(&self, at: Point) -> Result<Option<BoundingBox>, DriveError> {
        let value = self.evaluate(&dom::element_box_at_js(at.x, at.y)).await?;
        Ok(dom::parse_box(&value))
    }

    async fn query_selector(&self, selector: &str) -> Result<Option<BoundingBox>, DriveError> {
        let value = self.evaluate(&dom::query_selector_js(selector)).await?;
        Ok(dom::parse_box(&value))
    }

    async fn dom_snapshot(&self) -> Result<serde_json::Value, DriveError> {
        self.evaluate(dom::SNAPSHOT_JS).await
    }

    async fn current_url(&self) -> Result<String, DriveError> {
        let doing = "reading the page URL";
        self.check_open(doing)?;
        let url = self.page.url().await.map_err(|e| self.error(doing, e))?;
        Ok(url.unwrap_or_default())
    }

    async fn evaluate(&self, expression: &str) -> Result<serde_json::Value, DriveError> {
        let doing = "evaluating JavaScript in the page";
        self.check_open(doing)?;
        let params = EvaluateParams::builder()
            .expression(expression)
            .await_promise(true)
            .return_by_value(true)
            .build()
            .map_err(|e| DriveError::InvalidInput(format!("bad JavaScript evaluation: {e}")))?;
        let answer = self
            .page
            .execute(params)
            .await
            .map_err(|e| self.error(doing, e))?;
        if let Some(exception) = &answer.result.exception_details {
            let message = exception
                .exception
                .as_ref()
                .and_then(|e| e.description.clone())
                .unwrap_or_else(|| exception.text.clone());
            return Err(DriveError::Operation {
                backend: BACKEND.to_owned(),
                doing: doing.to_owned(),
                detail: format!("the script threw: {message}"),
            });
        }
        Ok(answer
            .result
            .result
            .value
            .unwrap_or(serde_json::Value::Null))
    }

    async fn close(&self) -> Result<(), DriveError> {
        let doing = "closing the page";
        if self.closed.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        self.page
            .execute(CloseParams::default())
            .await
            .map(|_| ())
            .map_err(|e| self.error(doing, e))
    }

    async fn element_at(&self, at: Point) -> Result<Option<ElementInfo>, DriveError> {
        element::element_at(&self.world("reading the element at a point")?, at).await
    }

    async fn select_option(&self, at: Point, option: &str) -> Result<String, DriveError> {
        let doing = "choosing an option of a dropdown";
        self.network.touch();
        let label = super::select::select_option(&self.world(doing)?, at, option).await?;
        self.dialogs.unexpected_error(doing)?;
        Ok(label)
    }

    async fn focused_element(&self) -> Result<Option<ElementInfo>, DriveError> {
        element::focused_element(&self.world("reading the focused element")?).await
    }

    async fn find_elements(&self, role: &str, name: &str) -> Result<Vec<ElementInfo>, DriveError> {
        element::find_elements(&self.world("finding elements")?, role, name).await
    }

    async fn listener_types(&self, at: Option<Point>) -> Result<Option<Vec<String>>, DriveError> {
        listeners::listener_types(&self.world("reading event listeners")?, at).await
    }

    async fn page_activity(&self) -> Result<PageActivity, DriveError> {
        let world = self.world("reading what the page is doing")?;
        activity::page_activity(&world, &self.network, &self.navigation).await
    }
}

#[cfg(test)]
mod tests {
    use super::png_size;

    #[test]
    fn png_size_reads_the_header_and_rejects_other_bytes() {
        let mut png = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13];
        png.extend_from_slice(b"IHDR");
        png.extend_from_slice(&1280u32.to_be_bytes());
        png.extend_from_slice(&800u32.to_be_bytes());
        assert_eq!(png_size(&png), Some((1280, 800)));
        assert_eq!(png_size(b"GIF89a not a png at all, no"), None);
    }
}
