//! The desktop target: an X11 display (`--display :N`, or `$DISPLAY`), optionally one
//! application started for the run (`--app "COMMAND"`) and one window of it (`--window
//! NAME|CLASS`) that points and screenshots are relative to.
//!
//! [`DesktopConfig::open`] connects, starts the application (on an accessibility bus of its
//! own: `desktop_a11y`), waits for its window to be shown and its content to be still (no
//! fixed sleep: polled, with a deadline), and gives the backend tools act on.
//! [`DesktopTarget::end`] ends the application's whole process tree and its buses. A
//! trajectory records its target ([`DesktopTarget::metadata`], `metadata.target`) and a replay
//! reads it back ([`RecordedTarget`]): the window is anchored where it was recorded.

use std::sync::Arc;
use std::time::Duration;

use retrace_cache::CacheMetadata;
use retrace_cache::fields::TARGET;
use retrace_drive::Backend;
use retrace_drive::backend::ElementSource;
use retrace_drive::backend::Point;
use retrace_drive::x11::AppProcess;
use retrace_drive::x11::DesktopWindow;
use retrace_drive::x11::WindowQuery;
use retrace_drive::x11::X11Backend;
use retrace_drive::x11::atspi::AccessibilityBus;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use serde_json::Value;
use serde_json::json;

use crate::desktop_a11y;
use crate::error::RunnerError;

/// The default wait for the application's window, and for its content to be still.
pub const DEFAULT_WINDOW_TIMEOUT: Duration = Duration::from_secs(30);

/// Which desktop, application and window a command works on.
#[derive(Debug, Clone, Default)]
pub struct DesktopConfig {
    /// The X display (`:99`); `None`: `$DISPLAY`.
    pub display: Option<String>,
    /// The application to start for the run, a shell command.
    pub app: Option<String>,
    /// The window to target: a title containing it, or its `WM_CLASS`.
    pub window: Option<String>,
    /// How long to wait for the window to show and be still.
    pub timeout: Option<Duration>,
    /// Environment variables the application gets besides the run's (`retrace check
    /// --candidate-env GTK_THEME=Adwaita:dark`).
    pub env: Vec<(String, String)>,
}

/// The target a trajectory says it was recorded on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordedTarget {
    /// The window it targeted.
    pub window: Option<String>,
    /// Where that window's top-left was on the screen.
    pub window_origin: Option<(i32, i32)>,
    /// The application command it started.
    pub app: Option<String>,
}

impl RecordedTarget {
    /// The desktop target in `metadata`, `None` when the file was not recorded on one.
    pub fn of(metadata: &CacheMetadata) -> Option<Self> {
        let target = metadata.extra.get(TARGET)?;
        if target.get("kind")?.as_str()? != "desktop" {
            return None;
        }
        let text = |key: &str| target.get(key).and_then(Value::as_str).map(str::to_owned);
        let origin = target.get("window_origin").and_then(|origin| {
            let x = i32::try_from(origin.get(0)?.as_i64()?).ok()?;
            let y = i32::try_from(origin.get(1)?.as_i64()?).ok()?;
            Some((x, y))
        });
        Some(Self {
            window: text("window"),
            window_origin: origin,
            app: text("app"),
        })
    }
}

impl DesktopConfig {
    /// The display name for messages (`:99`, or `$DISPLAY`'s value).
    pub fn display_name(&self) -> String {
        self.display
            .clone()
            .or_else(|| std::env::var("DISPLAY").ok())
            .unwrap_or_default()
    }

    /// Checks the flags fit together before anything starts.
    pub fn check(&self) -> Result<(), RunnerError> {
        if self.app.is_some() && self.window.is_none() {
            return Err(RunnerError::Input(
                "--app needs --window NAME|CLASS: the window to wait for and to target".into(),
            ));
        }
        if self.display_name().is_empty() {
            return Err(RunnerError::Input(
                "--desktop uses $DISPLAY, which is not set: give --display :N".into(),
            ));
        }
        Ok(())
    }

    /// Connects, starts the application and waits for its window (anchored at `anchor`, or
    /// where it shows) to be still. Notices (an application that handed its window to a
    /// running instance) go to `events`.
    pub async fn open(
        &self,
        anchor: Option<(i32, i32)>,
        events: &Events,
    ) -> Result<DesktopTarget, RunnerError> {
        self.check()?;
        let display = self.display_name();
        let desktop = Arc::new(X11Backend::connect(Some(&display)).await?);
        let size = desktop.display_size().await?;
        let mut bus = match &self.app {
            Some(_) => desktop_a11y::start_bus(&display, events).await,
            None => None,
        };
        let mut env = bus
            .as_ref()
            .map(AccessibilityBus::app_env)
            .unwrap_or_default();
        env.extend(self.env.iter().cloned());
        let mut app = match &self.app {
            Some(command) => Some(AppProcess::start_with_env(
                command,
                &display,
                &env,
                &[desktop_a11y::NO_AT_BRIDGE],
            )?),
            None => None,
        };
        let Some(name) = &self.window else {
            return Ok(DesktopTarget {
                desktop,
                window: None,
                window_name: None,
                app,
                bus,
                display,
                size,
            });
        };
        let timeout = self.timeout.unwrap_or(DEFAULT_WINDOW_TIMEOUT);
        let anchor = anchor.map(|(x, y)| Point { x, y });
        let ready = ready_window(name, anchor, timeout, &desktop, &display).await;
        let window = match (ready, &mut app) {
            (Ok(window), _) => window,
            (Err(error), Some(app)) => {
                // Ended now, not left to a kill on drop: nothing of it outlives the error.
                app.end().await;
                if let Some(bus) = &mut bus {
                    bus.end().await;
                }
                return Err(RunnerError::Input(format!(
                    "the app `{}` did not show its window: {error}",
                    app.command()
                )));
            }
            (Err(error), None) => return Err(error),
        };
        if let Some(app) = &mut app {
            say_whose_window(app, &window, &display, events);
        }
        let window = match (&bus, &self.app) {
            (Some(bus), Some(command)) => {
                match desktop_a11y::client(bus, command, &display, events).await {
                    Some(client) => window.with_accessibility(client),
                    None => window,
                }
            }
            _ => window,
        };
        Ok(DesktopTarget {
            desktop,
            window: Some(Arc::new(window)),
            window_name: Some(name.clone()),
            app,
            bus,
            display,
            size,
        })
    }
}

/// The window `name` shown on `desktop` (anchored at `anchor`), once its content is still.
async fn ready_window(
    name: &str,
    anchor: Option<Point>,
    timeout: Duration,
    desktop: &Arc<X11Backend>,
    display: &str,
) -> Result<DesktopWindow, RunnerError> {
    let query = WindowQuery(name.to_owned());
    let window = DesktopWindow::find(desktop.clone(), query, anchor, timeout).await?;
    if !window.wait_until_still(timeout).await? {
        return Err(RunnerError::Input(format!(
            "the window `{name}` on {display} kept changing for {:.1} s: it never was still \
             (two identical captures)",
            timeout.as_secs_f64()
        )));
    }
    Ok(window)
}

/// Says so when the window shown is not the started application's: a single-instance program
/// handed it to an instance already running (which this run then neither started nor ends).
fn say_whose_window(app: &mut AppProcess, window: &DesktopWindow, display: &str, events: &Events) {
    let Some(pid) = window.main_window().pid else {
        return;
    };
    if !app.owns(pid) {
        events.emit(Event::TargetNotice {
            target: format!("desktop {display}"),
            message: format!(
                "the window {:?} belongs to process {pid}, which `{}` did not start: a \
                 single-instance program handed it to an instance already running, which this \
                 run will not end",
                window.main_window().name,
                app.command()
            ),
        });
    }
}

/// An open desktop target: the backend tools act on, and the application started for it.
pub struct DesktopTarget {
    desktop: Arc<X11Backend>,
    window: Option<Arc<DesktopWindow>>,
    window_name: Option<String>,
    app: Option<AppProcess>,
    bus: Option<AccessibilityBus>,
    display: String,
    size: (u32, u32),
}

impl std::fmt::Debug for DesktopTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DesktopTarget")
            .field("display", &self.display)
            .field("window", &self.window_name)
            .field("app", &self.app)
            .finish_non_exhaustive()
    }
}

impl DesktopTarget {
    /// The backend: the window when one is targeted, else the whole display.
    pub fn backend(&self) -> Arc<dyn Backend> {
        match &self.window {
            Some(window) => window.clone(),
            None => self.desktop.clone(),
        }
    }

    /// The targeted window, when one is.
    pub fn window(&self) -> Option<&Arc<DesktopWindow>> {
        self.window.as_ref()
    }

    /// The application's elements (its accessibility tree), when it publishes them.
    pub fn elements(&self) -> Option<Arc<dyn ElementSource>> {
        let window = self
            .window
            .as_ref()
            .filter(|window| window.has_accessibility())?;
        Some(window.clone())
    }

    /// A screenshot of the target: the window's rectangle when one is targeted, else the
    /// whole display.
    pub async fn screenshot(&self) -> Result<retrace_drive::backend::Screenshot, RunnerError> {
        Ok(match &self.window {
            Some(window) => window.window_screenshot().await?,
            None => self.desktop.screenshot().await?,
        })
    }

    /// Where the screen point `on_screen` is in the target's frame (the window's when one is
    /// targeted).
    pub async fn frame_point(&self, on_screen: Point) -> Result<Point, RunnerError> {
        Ok(match &self.window {
            Some(window) => window.frame_point(on_screen).await?,
            None => on_screen,
        })
    }

    /// The frame size in pixels (the screen's).
    pub fn size(&self) -> (u32, u32) {
        self.size
    }

    /// What a trajectory records of this target (`metadata.target`).
    pub fn metadata(&self) -> Value {
        json!({
            "kind": "desktop",
            "display": self.display,
            "display_size": [self.size.0, self.size.1],
            "window": self.window_name,
            "window_origin": self.window.as_ref().map(|window| {
                let anchor = window.anchor();
                json!([anchor.x, anchor.y])
            }),
            "app": self.app.as_ref().map(AppProcess::command),
        })
    }

    /// A short description for messages: `desktop :99, window `Mousepad``.
    pub fn describe(&self) -> String {
        match &self.window_name {
            Some(window) => format!("desktop {}, window `{window}`", self.display),
            None => format!("desktop {}", self.display),
        }
    }

    /// Ends the application's whole process tree, then the buses started for it; a notice on
    /// `events` names any process that outlived them.
    pub async fn end(mut self, events: &Events) {
        let command = self.app.as_ref().map(|app| app.command().to_owned());
        let mut left = match self.app.take() {
            Some(mut app) => app.end().await,
            None => Vec::new(),
        };
        if let Some(mut bus) = self.bus.take() {
            left.extend(bus.end().await);
        }
        if let (false, Some(command)) = (left.is_empty(), command) {
            events.emit(Event::TargetNotice {
                target: format!("desktop {}", self.display),
                message: format!("processes of `{command}` still alive after SIGKILL: {left:?}"),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_desktop_target_reads_back_and_other_files_have_none() {
        let mut metadata = CacheMetadata::new(jiff::Timestamp::UNIX_EPOCH, None);
        assert_eq!(RecordedTarget::of(&metadata), None);
        metadata.extra.insert(
            TARGET.into(),
            json!({"kind": "desktop", "window": "Mousepad", "window_origin": [200, 150],
                   "app": "mousepad"}),
        );
        assert_eq!(
            RecordedTarget::of(&metadata),
            Some(RecordedTarget {
                window: Some("Mousepad".into()),
                window_origin: Some((200, 150)),
                app: Some("mousepad".into()),
            })
        );
        metadata
            .extra
            .insert(TARGET.into(), json!({"kind": "browser"}));
        assert_eq!(RecordedTarget::of(&metadata), None);
    }

    #[test]
    fn an_app_needs_a_window_to_wait_for() {
        let config = DesktopConfig {
            display: Some(":99".into()),
            app: Some("mousepad".into()),
            ..DesktopConfig::default()
        };
        let error = config.check().unwrap_err().to_string();
        assert!(error.contains("--app needs --window"), "{error}");
    }
}
