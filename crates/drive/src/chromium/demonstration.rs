//! Watching a person act in a page (`retrace record`): the inputs they make, each with the
//! frame that was on the screen just before it.
//!
//! [`InputCapture::start`] installs `demonstration.js` (beside this file) in an isolated world
//! of every document the page loads, reporting clicks, keys and wheel turns through a CDP
//! binding (`Runtime.addBinding`), each with the element under the pointer and the one with
//! the focus as the element script replay checks with describes them, read at the input,
//! before the page reacts. It also starts a PNG screencast at the viewport's size and keeps
//! the last frames with the time each was drawn: the frame an input was made on is the last
//! one drawn before the input's own time stamp, not a screenshot taken once the page has
//! reacted. (`super::window::fit_window` sizes the headed window first.)
//!
//! What the browser draws outside the page is reported too: how the person answered a
//! JavaScript dialog (`super::dialogs::report_answers`), and where they went from the address
//! bar (`super::typed_navigation`).
//!
//! Folding inputs into trajectory steps is `retrace-replay`'s job; this module only watches.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;

use base64::Engine;
use chromiumoxide::cdp::browser_protocol::inspector::EventDetached;
use chromiumoxide::cdp::browser_protocol::page::AddScriptToEvaluateOnNewDocumentParams;
use chromiumoxide::cdp::browser_protocol::page::EventFrameNavigated;
use chromiumoxide::cdp::browser_protocol::page::EventJavascriptDialogClosed;
use chromiumoxide::cdp::browser_protocol::page::EventJavascriptDialogOpening;
use chromiumoxide::cdp::browser_protocol::page::EventScreencastFrame;
use chromiumoxide::cdp::browser_protocol::page::ScreencastFrameAckParams;
use chromiumoxide::cdp::browser_protocol::page::StartScreencastFormat;
use chromiumoxide::cdp::browser_protocol::page::StartScreencastParams;
use chromiumoxide::cdp::js_protocol::runtime::AddBindingParams;
use chromiumoxide::cdp::js_protocol::runtime::EventBindingCalled;
use futures::StreamExt;
use retrace_protocol::ElementInfo;
use retrace_protocol::dialog::Dialog;
use serde::Deserialize;
use tokio::sync::mpsc;

use super::connection::BACKEND;
use super::dialogs;
use super::element::ELEMENT_JS;
use super::page::ChromiumPage;
use super::typed_navigation;
use crate::error::DriveError;

/// The binding the page reports inputs through.
const BINDING: &str = "__retraceInput";

/// The key chord that marks the element under the pointer as a checkpoint (xdotool's names).
pub const CHECKPOINT_CHORD: &str = "ctrl+shift+k";

/// The isolated world the page side runs in.
const WORLD: &str = "retrace_demonstration";

/// The longest wait for a frame drawn after an input (see `InputCapture::frames_up_to`). A
/// busy machine delivers the screencast's frames late: at 250 ms, a checkbox's tick drawn
/// before the person's next click was sometimes still on its way, and the tick's step kept
/// the frame without it as its after-frame. The person never waits for this.
const FRAME_IN_FLIGHT: Duration = Duration::from_millis(1000);

/// Between two looks for that frame.
const FRAME_POLL: Duration = Duration::from_millis(5);

/// How many recent frames are kept to find the one before an input.
const FRAMES_KEPT: usize = 32;

/// One input a person made in the page, as the page reported it. Coordinates are CSS pixels
/// of the viewport; times are milliseconds since the epoch.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PageInput {
    /// The first pointer move: where the viewport sits on the screen (`screen - client`).
    Pointer {
        /// Viewport x.
        x: f64,
        /// Viewport y.
        y: f64,
        /// Screen x.
        screen_x: f64,
        /// Screen y.
        screen_y: f64,
    },
    /// A completed click (`count` 2 for the second click of a double click).
    Click {
        /// DOM button: 0 left, 1 middle, 2 right.
        button: u8,
        /// Click count (`UIEvent.detail`).
        count: u32,
        /// Where the button went down.
        x: f64,
        /// Where the button went down.
        y: f64,
        /// When the button went down.
        time: f64,
        /// The element under the pointer then.
        element: Option<ElementInfo>,
        /// The element with the focus then.
        focused: Option<ElementInfo>,
        /// Where the page was (`None` from an older page script).
        #[serde(default)]
        place: Option<PagePlace>,
    },
    /// The left button went down at (`x`, `y`) and up at (`to_x`, `to_y`), away from it.
    Drag {
        /// Where the button went down.
        x: f64,
        /// Where the button went down.
        y: f64,
        /// Where it went up.
        to_x: f64,
        /// Where it went up.
        to_y: f64,
        /// When the button went down.
        time: f64,
        /// The element with the focus then.
        focused: Option<ElementInfo>,
        /// Where the page was (`None` from an older page script).
        #[serde(default)]
        place: Option<PagePlace>,
    },
    /// A key went down.
    Key {
        /// `KeyboardEvent.key` (`a`, `Enter`, `Tab`, `Backspace`).
        key: String,
        /// Control held.
        ctrl: bool,
        /// Alt held.
        alt: bool,
        /// Shift held.
        shift: bool,
        /// Meta (super) held.
        meta: bool,
        /// When.
        time: f64,
        /// The element with the focus then (where the key goes).
        focused: Option<ElementInfo>,
        /// Where the page was (`None` from an older page script).
        #[serde(default)]
        place: Option<PagePlace>,
    },
    /// The person pressed the checkpoint chord ([`CHECKPOINT_CHORD`]): the element under the
    /// pointer is to be checked on replay.
    Checkpoint {
        /// Pointer x.
        x: f64,
        /// Pointer y.
        y: f64,
        /// When.
        time: f64,
        /// The element under the pointer.
        element: Option<ElementInfo>,
        /// Where the page was (`None` from an older page script).
        #[serde(default)]
        place: Option<PagePlace>,
    },
    /// A JavaScript dialog the page opened was answered by the person (reported by the
    /// browser, not the page: the dialog is drawn outside it).
    #[serde(skip_deserializing)]
    Dialog(Dialog),
    /// The person chose an option in a dropdown (`<select>`); its list is drawn outside the
    /// page, so this is the `change` the choice made.
    Select {
        /// The dropdown's centre.
        x: f64,
        /// The dropdown's centre.
        y: f64,
        /// When the choice was made.
        time: f64,
        /// The chosen option's label.
        label: String,
        /// The dropdown, described after the choice (its value is the option's).
        element: Option<ElementInfo>,
        /// Where the page was (`None` from an older page script).
        #[serde(default)]
        place: Option<PagePlace>,
    },
    /// The person opened `url` from the browser's own UI (the address bar, a bookmark);
    /// reported by the browser, not the page.
    #[serde(skip_deserializing)]
    Navigation {
        /// The URL the top frame went to.
        url: String,
    },
    /// The wheel turned.
    Wheel {
        /// Pointer x.
        x: f64,
        /// Pointer y.
        y: f64,
        /// Horizontal distance in pixels.
        dx: f64,
        /// Vertical distance in pixels (positive: down).
        dy: f64,
        /// When.
        time: f64,
        /// The element under the pointer.
        element: Option<ElementInfo>,
        /// The element with the focus.
        focused: Option<ElementInfo>,
        /// Where the page was (`None` from an older page script).
        #[serde(default)]
        place: Option<PagePlace>,
    },
}

/// Where the page was when an input was made: what replay's navigation check compares.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct PagePlace {
    /// The URL path (`/dashboard`).
    pub path: String,
    /// The document's title.
    pub title: String,
}

impl PageInput {
    /// When the input was made (`None` for the pointer location report).
    pub fn time(&self) -> Option<f64> {
        match self {
            PageInput::Pointer { .. } | PageInput::Dialog(_) | PageInput::Navigation { .. } => None,
            PageInput::Click { time, .. }
            | PageInput::Drag { time, .. }
            | PageInput::Key { time, .. }
            | PageInput::Checkpoint { time, .. }
            | PageInput::Select { time, .. }
            | PageInput::Wheel { time, .. } => Some(*time),
        }
    }

    /// Where the page was when the input was made.
    pub fn place(&self) -> Option<&PagePlace> {
        match self {
            PageInput::Pointer { .. } | PageInput::Dialog(_) | PageInput::Navigation { .. } => None,
            PageInput::Click { place, .. }
            | PageInput::Drag { place, .. }
            | PageInput::Key { place, .. }
            | PageInput::Checkpoint { place, .. }
            | PageInput::Select { place, .. }
            | PageInput::Wheel { place, .. } => place.as_ref(),
        }
    }

    /// The element with the focus when the input was made.
    pub fn focused(&self) -> Option<&ElementInfo> {
        match self {
            PageInput::Pointer { .. }
            | PageInput::Checkpoint { .. }
            | PageInput::Select { .. }
            | PageInput::Dialog(_)
            | PageInput::Navigation { .. } => None,
            PageInput::Click { focused, .. }
            | PageInput::Drag { focused, .. }
            | PageInput::Key { focused, .. }
            | PageInput::Wheel { focused, .. } => focused.as_ref(),
        }
    }
}

/// One screencast frame: a lossless PNG of the viewport and when it was drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// The PNG bytes.
    pub png: Vec<u8>,
    /// When the frame was drawn, milliseconds since the epoch.
    pub at_ms: f64,
}

/// An input with the frame on the screen before it.
#[derive(Debug, Clone)]
pub struct CapturedInput {
    /// What the person did.
    pub input: PageInput,
    /// The last frame drawn before it (`None` when none arrived yet).
    pub before: Option<Arc<Frame>>,
}

/// The recent frames, oldest first.
type FrameRing = Arc<Mutex<VecDeque<Arc<Frame>>>>;

/// Watches one page: its inputs and its frames. Dropping it stops watching.
#[derive(Debug)]
pub struct InputCapture {
    /// The page's inputs; `None` once the page is gone (its window closed).
    inputs: mpsc::UnboundedReceiver<Option<PageInput>>,
    frames: FrameRing,
    /// Navigations from the browser's UI are reported past this history entry.
    baseline: typed_navigation::Baseline,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for InputCapture {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

fn operation(doing: &str, detail: impl std::fmt::Display) -> DriveError {
    DriveError::Operation {
        backend: BACKEND.to_owned(),
        doing: doing.to_owned(),
        detail: detail.to_string(),
    }
}

impl InputCapture {
    /// Starts watching `page`: installs the page side for every document loaded from now on
    /// (navigate after this) and starts the screencast at `width` x `height`.
    pub async fn start(page: &ChromiumPage, width: u32, height: u32) -> Result<Self, DriveError> {
        let doing = "starting to watch the page";
        let cdp = page.cdp_page();
        let fail = |e: chromiumoxide::error::CdpError| operation(doing, e);
        let mut bindings = cdp
            .event_listener::<EventBindingCalled>()
            .await
            .map_err(fail)?;
        let mut screencast = cdp
            .event_listener::<EventScreencastFrame>()
            .await
            .map_err(fail)?;
        let mut detached = cdp.event_listener::<EventDetached>().await.map_err(fail)?;
        let opening = cdp
            .event_listener::<EventJavascriptDialogOpening>()
            .await
            .map_err(fail)?;
        let closed = cdp
            .event_listener::<EventJavascriptDialogClosed>()
            .await
            .map_err(fail)?;
        let navigated = cdp
            .event_listener::<EventFrameNavigated>()
            .await
            .map_err(fail)?;
        // The person answers the page's dialogs, in its window.
        page.leave_dialogs_to_person();
        let mut binding = AddBindingParams::new(BINDING);
        binding.execution_context_name = Some(WORLD.to_owned());
        cdp.execute(binding).await.map_err(fail)?;
        let mut script = AddScriptToEvaluateOnNewDocumentParams::new(page_script());
        script.world_name = Some(WORLD.to_owned());
        cdp.execute(script).await.map_err(fail)?;

        let (sender, inputs) = mpsc::unbounded_channel();
        let closer = sender.clone();
        let answered = sender.clone();
        let dialogs = tokio::spawn(dialogs::report_answers(opening, closed, move |dialog| {
            answered.send(Some(PageInput::Dialog(dialog))).is_ok()
        }));
        let baseline = Arc::new(std::sync::atomic::AtomicI64::new(
            typed_navigation::NOT_ARMED,
        ));
        let navigations = tokio::spawn(typed_navigation::watch(
            cdp.clone(),
            navigated,
            Arc::clone(&baseline),
            {
                let sender = sender.clone();
                move |url| sender.send(Some(PageInput::Navigation { url })).is_ok()
            },
        ));
        let watcher = tokio::spawn(async move {
            // The page's window was closed (or its browser went away).
            if detached.next().await.is_some() {
                let _ = closer.send(None);
            }
        });
        let reader = tokio::spawn(async move {
            while let Some(event) = bindings.next().await {
                if event.name != BINDING {
                    continue;
                }
                match serde_json::from_str::<PageInput>(&event.payload) {
                    Ok(input) => {
                        if sender.send(Some(input)).is_err() {
                            break;
                        }
                    }
                    // The payload may hold typed text: only the error's position is logged.
                    Err(error) => tracing::warn!(
                        line = error.line(),
                        column = error.column(),
                        "the page reported an input retrace cannot read; it is not recorded"
                    ),
                }
            }
        });
        let frames: FrameRing = Arc::default();
        let ring = Arc::clone(&frames);
        let acker = cdp.clone();
        let receiver = tokio::spawn(async move {
            while let Some(event) = screencast.next().await {
                // Acknowledged at once: Chromium sends no more frames until then.
                let _ = acker
                    .execute(ScreencastFrameAckParams::new(event.session_id))
                    .await;
                if let Some(frame) = decode_frame(&event) {
                    push_frame(&ring, frame);
                }
            }
        });
        let cast = StartScreencastParams {
            format: Some(StartScreencastFormat::Png),
            max_width: Some(i64::from(width)),
            max_height: Some(i64::from(height)),
            ..StartScreencastParams::default()
        };
        cdp.execute(cast).await.map_err(fail)?;
        Ok(Self {
            inputs,
            frames,
            baseline,
            tasks: vec![reader, receiver, watcher, dialogs, navigations],
        })
    }

    /// Starts reporting the navigations the person makes from the browser's UI (the
    /// address bar): call once the first page is open (opening it was not theirs).
    pub async fn watch_navigations(&self, page: &ChromiumPage) {
        typed_navigation::arm(page.cdp_page(), &self.baseline).await;
    }

    /// The next input, with the frame before it; `None` once the page is gone (its window was
    /// closed, the browser ended).
    pub async fn next(&mut self) -> Option<CapturedInput> {
        let input = self.inputs.recv().await.flatten()?;
        if let Some(time) = input.time() {
            self.frames_up_to(time).await;
        }
        let before = input.time().and_then(|time| self.frame_before(time));
        Some(CapturedInput { input, before })
    }

    /// Waits, at most [`FRAME_IN_FLIGHT`], for a frame drawn after `time`: a frame drawn just
    /// before the input can still be on its way when the input's report arrives, and the
    /// first frame after it says none is. An input that changes nothing on the screen brings
    /// no such frame; it waits out the bound (the person's page never waits for this).
    async fn frames_up_to(&self, time: f64) {
        let started = Instant::now();
        while self.latest_frame().is_none_or(|frame| frame.at_ms <= time)
            && started.elapsed() < FRAME_IN_FLIGHT
        {
            tokio::time::sleep(FRAME_POLL).await;
        }
    }

    /// The next input already reported, without waiting (what is left when the person stops).
    pub fn try_next(&mut self) -> Option<CapturedInput> {
        let input = self.inputs.try_recv().ok().flatten()?;
        let before = input.time().and_then(|time| self.frame_before(time));
        Some(CapturedInput { input, before })
    }

    /// The last frame drawn at or before `time` (ms since the epoch).
    pub fn frame_before(&self, time: f64) -> Option<Arc<Frame>> {
        let frames = self.frames.lock().ok()?;
        frames
            .iter()
            .rev()
            .find(|frame| frame.at_ms <= time)
            .cloned()
    }

    /// The last frame drawn.
    pub fn latest_frame(&self) -> Option<Arc<Frame>> {
        self.frames.lock().ok()?.back().cloned()
    }
}

/// The page side, with the element script and the binding's name filled in.
fn page_script() -> String {
    include_str!("demonstration.js")
        .replacen("(ELEMENT_JS)", &format!("({ELEMENT_JS}\n)"), 1)
        .replace("BINDING(", &format!("{BINDING}("))
}

fn decode_frame(event: &EventScreencastFrame) -> Option<Frame> {
    let png = base64::engine::general_purpose::STANDARD
        .decode(AsRef::<str>::as_ref(&event.data))
        .ok()?;
    let at_ms = event.metadata.timestamp.as_ref()?.inner() * 1000.0;
    Some(Frame { png, at_ms })
}

fn push_frame(ring: &FrameRing, frame: Frame) {
    if let Ok(mut frames) = ring.lock() {
        if frames.len() == FRAMES_KEPT {
            frames.pop_front();
        }
        frames.push_back(Arc::new(frame));
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_page_side_embeds_the_element_script_and_the_binding() {
        let script = page_script();
        assert!(!script.contains("ELEMENT_JS"));
        assert!(script.contains(&format!("{BINDING}(JSON.stringify")));
        assert!(script.contains("unknown element operation"));
    }

    #[test]
    fn the_frame_before_an_input_is_the_last_drawn_before_it() {
        let (_, inputs) = mpsc::unbounded_channel();
        let capture = InputCapture {
            inputs,
            frames: Arc::default(),
            baseline: Arc::default(),
            tasks: Vec::new(),
        };
        for (png, at_ms) in [(1, 10.0), (2, 20.0), (3, 30.0)] {
            push_frame(
                &capture.frames,
                Frame {
                    png: vec![png],
                    at_ms,
                },
            );
        }
        assert_eq!(capture.frame_before(25.0).unwrap().png, vec![2]);
        assert_eq!(capture.frame_before(30.0).unwrap().png, vec![3]);
        assert!(capture.frame_before(5.0).is_none());
        assert_eq!(capture.latest_frame().unwrap().png, vec![3]);
    }

    #[test]
    fn page_reports_read_as_inputs() {
        let key: PageInput = serde_json::from_str(
            r#"{"kind":"key","key":"Tab","ctrl":false,"alt":false,"shift":true,"meta":false,"time":5.5,"focused":null}"#,
        )
        .unwrap();
        assert_eq!(key.time(), Some(5.5));
        assert!(matches!(key, PageInput::Key { shift: true, .. }));
    }
}
