//! `retrace record`: a person demonstrates a flow in a headed Chromium and it becomes a
//! trajectory, no model involved.
//!
//! [`record_demonstration`] launches Chromium with its window on the person's X display,
//! sizes the window so its viewport is the recorded size, watches the page
//! (`retrace_drive::chromium::demonstration`) and opens the URL. Each input is folded into
//! the steps ([`retrace_replay::demonstration::Demonstration`]) and announced as a
//! [`DemonstrationEvent::Input`]; after a click, the element under the point is read again
//! for its state. When the person stops (the `stop` future: Ctrl-C in the CLI) or closes the
//! window, the screen is captured as the last step's after-frame, and the file is built and
//! written ([`retrace_replay::demonstration::build`]).

use retrace_drive::chromium::stop_control::StopControl;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use retrace_agent::structured::ResolvingWebTool;
use retrace_agent::structured::executor_on_page;
use retrace_cache::CacheStore;
use retrace_drive::Backend;
use retrace_drive::BrowserBackend;
use retrace_drive::backend::Point;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::chromium::ChromiumConfig;
use retrace_drive::chromium::ChromiumPage;
use retrace_drive::chromium::demonstration::CapturedInput;
use retrace_drive::chromium::demonstration::Frame;
use retrace_drive::chromium::demonstration::InputCapture;
use retrace_drive::chromium::demonstration::PageInput;
use retrace_drive::chromium::window::fit_window;
use retrace_drive::computer::ComputerTool;
use retrace_drive::computer::ComputerToolConfig;
use retrace_drive::tool::Toolbox;
use retrace_drive::web::WebExecutorConfig;
use retrace_protocol::events::DemonstrationEvent;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use retrace_replay::demonstration::Demonstration;
use retrace_replay::demonstration::Noted;
use retrace_replay::demonstration::build::demonstrated_file;
use retrace_replay::page_location::PageLocation;
use retrace_replay::recorder::RecordSettings;

use crate::error::RunnerError;

/// How long the last look at the page (screen, focus, location) may take when the person
/// stops: the browser may be on its way out.
const LAST_LOOK: std::time::Duration = std::time::Duration::from_secs(10);

/// What to record and where.
#[derive(Debug, Clone)]
pub struct RecordJob {
    /// The page to open.
    pub url: String,
    /// The trajectory file to write.
    pub out: PathBuf,
    /// The browser the person acts in.
    pub browser: RecordBrowser,
    /// The viewport in CSS pixels: the recorded screen.
    pub size: (u32, u32),
    /// `--param NAME=VALUE` pairs: a typed value equal to VALUE becomes `{{NAME}}`. Values
    /// may be secrets.
    pub parameters: Vec<(String, String)>,
}

/// The browser a demonstration is recorded in.
#[derive(Debug, Clone)]
pub enum RecordBrowser {
    /// A Chromium retrace launches with its window on a display.
    Launch {
        /// The executable (the full browser: the headless shell has no window).
        chromium: PathBuf,
        /// The X display the window goes on (`:0`).
        display: String,
    },
    /// A Chromium the person already runs with a debugging port (`--connect URL`): the
    /// page opens in a new window of it, and the browser is left running when
    /// the recording ends.
    Connect {
        /// Its DevTools endpoint (`http://127.0.0.1:9222`; may carry credentials).
        endpoint: String,
    },
}

/// What a finished recording wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The file.
    pub path: PathBuf,
    /// Its steps.
    pub steps: usize,
    /// The parameters a replay needs.
    pub parameters: Vec<String>,
}

/// Records what the person does until `stop` completes or the window closes, then writes
/// the trajectory. Reports through `events`.
pub async fn record_demonstration(
    job: &RecordJob,
    stop: impl Future<Output = ()>,
    events: &Events,
) -> Result<Recorded, RunnerError> {
    // Where the file goes is checked before the person starts, not after they finished.
    let (dir, name) = split_out(&job.out)?;
    let store = CacheStore::new(dir);
    store.resolve(&name)?;
    let (width, height) = job.size;
    let browser = match &job.browser {
        RecordBrowser::Launch { chromium, display } => {
            let config = ChromiumConfig {
                executable: chromium.clone(),
                width,
                height,
                ..ChromiumConfig::default()
            };
            ChromiumBrowser::launch_headed(&config, display).await?
        }
        RecordBrowser::Connect { endpoint } => {
            ChromiumBrowser::connect(endpoint, width, height).await?
        }
    };
    let page = Arc::new(browser.open_page().await?);
    let toolbox = toolbox(&page, &browser, job.size).await?;
    fit_window(page.cdp_page(), width, height).await?;
    let mut capture = InputCapture::start(&page, width, height).await?;
    // Without the control (a browser that opens no window for it), Ctrl-C and closing the
    // window still stop.
    let mut control = match StopControl::open(&browser, &page).await {
        Ok(control) => Some(control),
        Err(error) => {
            tracing::warn!(%error, "no stop control: stop with Ctrl-C or by closing the window");
            None
        }
    };
    page.navigate(&job.url).await?;
    capture.watch_navigations(&page).await;
    emit(
        events,
        DemonstrationEvent::Started {
            url: job.url.clone(),
            viewport: [width, height],
        },
    );

    let mut demonstration = Demonstration::new();
    let stop = std::pin::pin!(stop);
    let mut stop = stop;
    let (stopped_by, window_open) = loop {
        let pressed = async {
            match control.as_mut() {
                Some(control) => control.pressed().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = &mut stop => break ("interrupted", true),
            () = pressed => break ("stop control", true),
            next = capture.next() => match next {
                Some(captured) => take(&mut demonstration, captured, &page, events).await,
                None => break ("window closed", false),
            },
        }
    };
    if let Some(control) = control {
        control.close().await;
    }
    while let Some(captured) = capture.try_next() {
        take(&mut demonstration, captured, &page, events).await;
    }
    // Bounded: a browser that went away while the person stopped must not hold the file back.
    let (screen, focused, place) = match window_open {
        true => tokio::time::timeout(LAST_LOOK, last_screen(&page))
            .await
            .unwrap_or((capture.latest_frame(), None, None)),
        false => (capture.latest_frame(), None, None),
    };
    let steps = demonstration.finish(screen, focused, place);
    if steps.is_empty() {
        return Err(RunnerError::Input(
            "nothing was recorded: no click, key or wheel turn was made in the page".to_owned(),
        ));
    }
    let settings = RecordSettings {
        display_size: Some(job.size),
        viewport: Some(job.size),
        ..RecordSettings::default()
    };
    let file = demonstrated_file(&job.url, &steps, &job.parameters, &toolbox, &settings)?;
    let path = store.write(&name, &file)?;
    let parameters: Vec<String> = file.cache_parameters.keys().cloned().collect();
    emit(
        events,
        DemonstrationEvent::Finished {
            path: path.clone(),
            steps: file.trajectory.len(),
            parameters: parameters.clone(),
            stopped_by: stopped_by.to_owned(),
        },
    );
    drop(toolbox);
    drop(page);
    let _ = browser.close().await;
    Ok(Recorded {
        path,
        steps: file.trajectory.len(),
        parameters,
    })
}

fn emit(events: &Events, event: DemonstrationEvent) {
    events.emit(Event::Demonstration(event));
}

/// Folds one input in, reads a clicked element's state once the click was handled, and
/// announces the step.
async fn take(
    demonstration: &mut Demonstration,
    captured: CapturedInput,
    page: &ChromiumPage,
    events: &Events,
) {
    let clicked = match &captured.input {
        PageInput::Click { x, y, .. } => Some(Point {
            // Viewport coordinates: small and finite.
            x: x.round() as i32,
            y: y.round() as i32,
        }),
        _ => None,
    };
    match demonstration.add(captured) {
        Noted::Step { step, summary } => {
            // Announced first: a dialog the click opened holds the page (and so the look
            // below) until the person answers it.
            emit(events, DemonstrationEvent::Input { step, summary });
            if let Some(point) = clicked {
                let after = page.element_at(point).await.ok().flatten();
                let listeners = page.listener_types(Some(point)).await.ok().flatten();
                demonstration.clicked_element_listeners(step, after.as_ref(), listeners);
                demonstration.clicked_element_after(step, after);
            }
        }
        Noted::Viewport { x, y } => emit(events, DemonstrationEvent::Viewport { x, y }),
        Noted::Nothing => {}
    }
}

/// The screen (a fresh capture, as replay takes them), the focused field and where the page
/// is when the person stopped.
async fn last_screen(
    page: &ChromiumPage,
) -> (
    Option<Arc<Frame>>,
    Option<retrace_protocol::ElementInfo>,
    Option<PageLocation>,
) {
    let now_ms = jiff::Timestamp::now().as_millisecond() as f64;
    let screen = match page.capture(false).await {
        Ok(shot) => Some(Arc::new(Frame {
            png: shot.png,
            at_ms: now_ms,
        })),
        Err(error) => {
            tracing::warn!(%error, "could not capture the screen at the end: the last step has no after-action hash");
            None
        }
    };
    let focused = page.focused_element().await.ok().flatten();
    let place = match page.evaluate(PageLocation::EXPRESSION).await {
        Ok(value) => serde_json::from_value(value).ok(),
        Err(_) => None,
    };
    (screen, focused, place)
}

/// The tools the recorded steps are calls of: the computer tool, and the web executor a
/// navigation from the address bar is replayed with.
async fn toolbox(
    page: &Arc<ChromiumPage>,
    browser: &ChromiumBrowser,
    size: (u32, u32),
) -> Result<Toolbox, RunnerError> {
    let backend: Arc<dyn Backend> = page.clone();
    let computer = ComputerTool::new(
        backend,
        ComputerToolConfig {
            model_size: Some(size),
            screenshot_after_action: false,
            ..ComputerToolConfig::default()
        },
    )
    .await
    .map_err(|error| RunnerError::Tool {
        tool: "computer",
        message: error.to_string(),
    })?;
    let web = executor_on_page(
        page.clone(),
        Arc::new(browser.clone()),
        WebExecutorConfig::default(),
    );
    Ok(Toolbox::new()
        .with(Arc::new(computer))
        .with(Arc::new(ResolvingWebTool::new(web))))
}

/// The directory and file name of `--out`.
pub(crate) fn split_out(out: &std::path::Path) -> Result<(PathBuf, String), RunnerError> {
    if out.is_dir() {
        return Err(RunnerError::Input(format!(
            "--out {} is a directory; give a file name such as login.json",
            out.display()
        )));
    }
    let name = out
        .file_name()
        .and_then(|name| name.to_str())
        .ok_or_else(|| {
            RunnerError::Input(format!(
                "--out {}: expected a file name such as login.json",
                out.display()
            ))
        })?;
    let dir = out
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), PathBuf::from);
    Ok((dir, name.to_owned()))
}
