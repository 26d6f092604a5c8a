//! One side of a check: open a page in the attempt's fresh browser context, listen to its
//! console, load the URL (bounded by `timeouts.navigation_ms`), make it ready and hold it
//! still (see `stabilise`), then take screenshots until two in a row are identical (at most
//! `capture.max_shots`, within `timeouts.stability_ms`), and read its elements and its
//! accessibility tree (module `accessibility`) together.

use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;

use chromiumoxide::cdp::js_protocol::runtime::ConsoleApiCalledType;
use chromiumoxide::cdp::js_protocol::runtime::EventConsoleApiCalled;
use chromiumoxide::cdp::js_protocol::runtime::EventExceptionThrown;
use futures::StreamExt;
use retrace_drive::BrowserBackend;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::chromium::ChromiumPage;

use crate::accessibility;
use crate::accessibility::AxTree;
use crate::cluster::PixelBox;
use crate::elements::PageElement;
use crate::elements::elements_js;
use crate::elements::parse_elements;
use crate::pixels::Frame;
use crate::spec::CheckSpec;
use crate::stabilise;
use crate::stabilise::NotReady;
use crate::storage_state::StorageState;

/// A side, captured and still.
#[derive(Debug, Clone)]
pub struct Capture {
    /// The settled screenshot, as Chromium encoded it.
    pub png: Vec<u8>,
    /// The same, decoded.
    pub frame: Frame,
    /// Its visible elements.
    pub elements: Vec<PageElement>,
    /// Its accessibility tree; `None` when it could not be read (the browser refused, or a
    /// stored baseline from before this layer): the sides are then compared without it.
    pub accessibility: Option<AxTree>,
    /// Console errors and uncaught exceptions, in order.
    pub console_errors: Vec<String>,
    /// Screenshots taken to get two identical ones in a row.
    pub shots: u32,
}

/// Why a side could not be captured (an ERROR verdict, retried).
#[derive(Debug, Clone, thiserror::Error)]
pub enum CaptureError {
    /// The page did not load.
    #[error("{url} did not load: {detail}")]
    Load {
        /// The URL.
        url: String,
        /// Why.
        detail: String,
    },
    /// It loaded but never became ready.
    #[error("{url} was not ready: {reason}")]
    NotReady {
        /// The URL.
        url: String,
        /// Which condition.
        reason: NotReady,
    },
    /// It never held still: the last two screenshots are kept as evidence.
    #[error(
        "{url} never held still: {shots} screenshots in a row all differed from the one \
         before{}",
        changing.as_ref().map(|c| format!("; what kept changing: {c}")).unwrap_or_default()
    )]
    Unstable {
        /// The URL.
        url: String,
        /// Screenshots taken.
        shots: u32,
        /// Where the last two differ (`the box at 8,120 300x40`), and the element holding
        /// it when one does (`, in p "Frame 12"`).
        changing: Option<String>,
        /// The last two (PNG).
        last_two: Vec<Vec<u8>>,
    },
    /// The side is signed in, but the server sent the page elsewhere (to its login page): the
    /// side is not signed in after all, so its page is not the one to compare.
    #[error(
        "{url} is not the signed-in page: the server sent the browser to {reached} \
         (the login did not hold)"
    )]
    NotSignedIn {
        /// The URL asked for.
        url: String,
        /// The path the browser ended on.
        reached: String,
    },
    /// The browser failed.
    #[error("{url}: {detail}")]
    Browser {
        /// The URL.
        url: String,
        /// What failed.
        detail: String,
    },
}

/// Collects console errors and uncaught exceptions while it lives.
struct ConsoleWatch {
    errors: Arc<Mutex<Vec<String>>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl ConsoleWatch {
    async fn attach(page: &ChromiumPage) -> Result<Self, chromiumoxide::error::CdpError> {
        let errors = Arc::new(Mutex::new(Vec::new()));
        let push = |errors: &Arc<Mutex<Vec<String>>>, message: String| {
            if let Ok(mut list) = errors.lock() {
                list.push(message);
            }
        };
        let mut console = page
            .cdp_page()
            .event_listener::<EventConsoleApiCalled>()
            .await?;
        let mut thrown = page
            .cdp_page()
            .event_listener::<EventExceptionThrown>()
            .await?;
        let sink = Arc::clone(&errors);
        let console_task = tokio::spawn(async move {
            while let Some(event) = console.next().await {
                if event.r#type != ConsoleApiCalledType::Error {
                    continue;
                }
                let text: Vec<String> = event
                    .args
                    .iter()
                    .map(|arg| match (&arg.value, &arg.description) {
                        (Some(serde_json::Value::String(s)), _) => s.clone(),
                        (Some(value), _) => value.to_string(),
                        (None, Some(description)) => description.clone(),
                        (None, None) => String::new(),
                    })
                    .collect();
                push(&sink, format!("console.error: {}", text.join(" ")));
            }
        });
        let sink = Arc::clone(&errors);
        let thrown_task = tokio::spawn(async move {
            while let Some(event) = thrown.next().await {
                let details = &event.exception_details;
                let message = details
                    .exception
                    .as_ref()
                    .and_then(|e| e.description.clone())
                    .unwrap_or_else(|| details.text.clone());
                let first_line = message.lines().next().unwrap_or_default().to_owned();
                push(&sink, format!("uncaught exception: {first_line}"));
            }
        });
        Ok(Self {
            errors,
            tasks: vec![console_task, thrown_task],
        })
    }

    fn errors(&self) -> Vec<String> {
        self.errors.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

impl Drop for ConsoleWatch {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Resolves once the load event has fired.
const LOADED_JS: &str = "new Promise(r => document.readyState === 'complete' ? r(true) : \
    addEventListener('load', () => r(true), {once: true}))";

/// The HTTP status of the document, or 0 when the browser does not say.
const STATUS_JS: &str = "(() => { const e = performance.getEntriesByType('navigation')[0]; \
    return e && e.responseStatus ? e.responseStatus : 0; })()";

/// A signed-in side: its state, loaded before the page navigates, and its base URL.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SignedIn<'a> {
    pub(crate) state: &'a StorageState,
    pub(crate) base: &'a str,
}

/// The path the page is at.
const PATHNAME_JS: &str = "location.pathname";

/// Captures `url` in a new page of `run`, once `ready_selector` (when given) matches, `masks`
/// (CSS selectors) painted over; signed in first when `signed_in` says, and then only the
/// page asked for counts (a redirect elsewhere is [`CaptureError::NotSignedIn`]).
pub async fn capture(
    run: &ChromiumBrowser,
    url: &str,
    masks: &[String],
    ready_selector: Option<&str>,
    spec: &CheckSpec,
    signed_in: Option<SignedIn<'_>>,
) -> Result<Capture, CaptureError> {
    let browser_error = |detail: String| CaptureError::Browser {
        url: url.to_owned(),
        detail,
    };
    let page = run
        .open_page()
        .await
        .map_err(|e| browser_error(e.to_string()))?;
    let result = match signed_in {
        Some(side) => match side.state.load_into(&page, side.base).await {
            Ok(()) => capture_on(&page, url, masks, ready_selector, spec, true).await,
            Err(detail) => Err(browser_error(detail)),
        },
        None => capture_on(&page, url, masks, ready_selector, spec, false).await,
    };
    let _ = page.close().await;
    result
}

async fn capture_on(
    page: &ChromiumPage,
    url: &str,
    masks: &[String],
    ready_selector: Option<&str>,
    spec: &CheckSpec,
    signed_in: bool,
) -> Result<Capture, CaptureError> {
    let load_error = |detail: String| CaptureError::Load {
        url: url.to_owned(),
        detail,
    };
    let watch = ConsoleWatch::attach(page)
        .await
        .map_err(|e| load_error(format!("cannot listen to the console: {e}")))?;
    let timeouts = &spec.timeouts;
    let started = Instant::now();
    let navigation = timeouts.navigation();
    let late = || {
        load_error(format!(
            "the load event did not fire within {} ms",
            timeouts.navigation_ms
        ))
    };
    match tokio::time::timeout(navigation, page.navigate(url)).await {
        Err(_) => return Err(late()),
        Ok(Err(error)) => return Err(load_error(error.to_string())),
        Ok(Ok(())) => {}
    }
    let left = navigation.saturating_sub(started.elapsed());
    match tokio::time::timeout(left, page.evaluate(LOADED_JS)).await {
        Ok(Ok(_)) => {}
        Ok(Err(error)) => return Err(load_error(error.to_string())),
        Err(_) => return Err(late()),
    }
    let status = page.evaluate(STATUS_JS).await.ok();
    if let Some(code) = status.and_then(|s| s.as_u64()).filter(|c| *c >= 400) {
        return Err(load_error(format!("the server answered HTTP {code}")));
    }
    if signed_in {
        let reached = page.evaluate(PATHNAME_JS).await.ok();
        let reached = reached.as_ref().and_then(|p| p.as_str());
        if let (Some(asked), Some(reached)) = (crate::login::path_of(url), reached)
            && asked != reached
        {
            return Err(CaptureError::NotSignedIn {
                url: url.to_owned(),
                reached: reached.to_owned(),
            });
        }
    }
    stabilise::wait_until_ready(page, timeouts, ready_selector)
        .await
        .map_err(|reason| CaptureError::NotReady {
            url: url.to_owned(),
            reason,
        })?;
    stabilise::freeze(page, masks)
        .await
        .map_err(|e| load_error(format!("cannot freeze the page: {e}")))?;
    let (png, frame, shots) = match stable_screenshot(page, url, spec).await? {
        Shots::Settled(png, frame, shots) => (png, frame, shots),
        Shots::Unsettled {
            shots,
            changed,
            last_two,
        } => {
            let changing = match changed {
                Some(area) => Some(describe_change(page, &area).await),
                None if shots < 2 => None,
                None => Some("the page size".to_owned()),
            };
            return Err(CaptureError::Unstable {
                url: url.to_owned(),
                shots,
                changing,
                last_two,
            });
        }
    };
    // Independent reads of the still page, sent together: one round trip.
    let script = elements_js();
    let (elements, tree) = tokio::join!(
        page.evaluate(&script),
        accessibility::read_tree(page.cdp_page())
    );
    let elements = elements
        .map(|value| parse_elements(&value))
        .unwrap_or_default();
    let accessibility = tree
        .inspect_err(|error| tracing::debug!(%error, url, "no accessibility tree"))
        .ok();
    Ok(Capture {
        png,
        frame,
        elements,
        accessibility,
        console_errors: watch.errors(),
        shots,
    })
}

/// What the screenshots came to.
enum Shots {
    /// Two in a row were identical: the last (PNG and decoded) and how many were taken.
    Settled(Vec<u8>, Frame, u32),
    /// They never were: how many were taken, where the last two differ, the last two (PNG).
    Unsettled {
        shots: u32,
        changed: Option<PixelBox>,
        last_two: Vec<Vec<u8>>,
    },
}

/// `the box at X,Y WxH`, and the smallest element holding it (read now, from the page that
/// would not hold still).
async fn describe_change(page: &ChromiumPage, area: &PixelBox) -> String {
    let at = format!(
        "the box at {},{} {}x{}",
        area.x, area.y, area.width, area.height
    );
    let elements = page
        .evaluate(&elements_js())
        .await
        .map(|value| parse_elements(&value))
        .unwrap_or_default();
    let holder = elements
        .iter()
        .filter(|e| e.encloses(area, 0.0))
        .min_by(|a, b| (a.width * a.height).total_cmp(&(b.width * b.height)));
    match holder {
        Some(element) => format!("{at}, in {}", element.describe()),
        None => at,
    }
}

/// Screenshots until two in a row are identical (bounded by `capture.max_shots` and
/// `timeouts.stability_ms`).
async fn stable_screenshot(
    page: &ChromiumPage,
    url: &str,
    spec: &CheckSpec,
) -> Result<Shots, CaptureError> {
    let browser_error = |detail: String| CaptureError::Browser {
        url: url.to_owned(),
        detail,
    };
    let budget = Duration::from_millis(spec.timeouts.stability_ms);
    let started = Instant::now();
    let mut previous: Option<(Vec<u8>, Frame)> = None;
    let mut older: Option<(Vec<u8>, Frame)> = None;
    let mut shots = 0;
    while shots < spec.capture.max_shots {
        let left = budget.saturating_sub(started.elapsed());
        if left.is_zero() {
            break;
        }
        let shot = match tokio::time::timeout(left, page.capture(spec.capture.full_page)).await {
            Ok(Ok(shot)) => shot,
            Ok(Err(error)) => return Err(browser_error(error.to_string())),
            Err(_) => break,
        };
        shots += 1;
        let frame = Frame::from_png(&shot.png)
            .map_err(|e| browser_error(format!("the screenshot does not decode: {e}")))?;
        if let Some((_, last)) = &previous
            && *last == frame
        {
            return Ok(Shots::Settled(shot.png, frame, shots));
        }
        older = previous;
        previous = Some((shot.png, frame));
        // Let the page render again before the next one.
        let left = budget.saturating_sub(started.elapsed());
        let _ = tokio::time::timeout(left, page.evaluate(stabilise::NEXT_FRAMES_JS)).await;
    }
    let changed = match (&older, &previous) {
        (Some((_, a)), Some((_, b))) => a.changed_box(b),
        _ => None,
    };
    let last_two = older
        .into_iter()
        .chain(previous)
        .map(|(png, _)| png)
        .collect();
    Ok(Shots::Unsettled {
        shots,
        changed,
        last_two,
    })
}
