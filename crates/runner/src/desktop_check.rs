//! `retrace check` of a desktop window, scheduled by the runner: each side (baseline, then
//! candidate: one display, so one at a time) is an application started for it (`--app`, or a
//! side's own command and environment), brought to its state by the same flow replayed with
//! no model and all replay's checks, then captured once its window is still (its pixels and
//! its AT-SPI elements) and ended with its whole process tree and buses. retrace-check
//! compares the two ([`retrace_check::run_window_check`]) and reports through the events.
//!
//! Whatever can be known before any application starts is an error of the command: a display
//! that cannot be reached, a flow file that does not read or lacks a parameter, a flow's app
//! command without `--allow-app-commands`. A side that cannot be brought to its state (its
//! window never showed, its flow failed at a step) is the check's ERROR, naming the side.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures::future::LocalBoxFuture;
use retrace_check::CheckRun;
use retrace_check::WindowCheck;
use retrace_check::WindowShot;
use retrace_check::WindowSource;
use retrace_drive::x11::X11Backend;
use retrace_protocol::events::Events;
use retrace_protocol::events::ReplayStatus;
use retrace_replay::ReplaySettings;
use retrace_report::JsonLinesSink;

use crate::collect::Collector;
use crate::desktop::DEFAULT_WINDOW_TIMEOUT;
use crate::desktop::DesktopConfig;
use crate::desktop::DesktopTarget;
use crate::desktop_run::Target;
use crate::desktop_run::replay_target;
use crate::desktop_run::replay_with;
use crate::error::RunnerError;
use crate::parameters::Parameters;
use crate::replay::ReplayJob;

/// One side of a window check: the application it starts and what it adds to its
/// environment.
#[derive(Debug, Clone, Default)]
pub struct WindowSide {
    /// The application command; `None`: the flow's own (with `allow_app_commands`).
    pub app: Option<String>,
    /// Variables added to the application's environment (`GTK_THEME=Adwaita:dark`).
    pub env: Vec<(String, String)>,
}

/// A window check as the runner runs it.
#[derive(Debug, Clone)]
pub struct WindowCheckJob {
    /// The display, the window and its timeout (each side's application is its own).
    pub desktop: DesktopConfig,
    /// The baseline's application.
    pub baseline: WindowSide,
    /// The candidate's application.
    pub candidate: WindowSide,
    /// The flow both sides replay before they are captured; `None`: as they start.
    pub flow: Option<PathBuf>,
    /// The flow's `{{name}}` values.
    pub parameters: Parameters,
    /// Whether the flow's own app command may start (for a side without one).
    pub allow_app_commands: bool,
    /// How the flow replays (its step timeout; metadata is never written back).
    pub settings: ReplaySettings,
    /// The check: its window, thresholds, evidence folder and rerun command.
    pub check: WindowCheck,
    /// Where to log every event, one JSON object per line (secret values scrubbed).
    pub events_log: Option<PathBuf>,
}

/// Runs `job` (see the module docs); results through `events` and the job's log.
pub async fn run_window_check_job(
    job: WindowCheckJob,
    events: &Events,
) -> Result<CheckRun, RunnerError> {
    let mut events = events.clone();
    if let Some(path) = &job.events_log {
        let sink = JsonLinesSink::create(path, job.parameters.secrets())
            .map_err(|source| RunnerError::io(path, source))?;
        events.subscribe(sink);
    }
    let sides = Sides::prepared(job).await?;
    let check = sides.job.check.clone();
    let source = Sides { events, ..sides };
    Ok(retrace_check::run_window_check(&check, &source, &source.events).await)
}

/// Both sides, checked before anything starts.
struct Sides {
    job: WindowCheckJob,
    events: Events,
    /// A connection to the display, open for the whole check: an X server whose last client
    /// leaves resets (Xvfb does, unless started with `-noreset`) and refuses connections
    /// meanwhile, which would fail the next side's start.
    _held: Arc<X11Backend>,
}

impl Sides {
    /// `job`'s sides once the display answers and every side's target is known.
    async fn prepared(job: WindowCheckJob) -> Result<Self, RunnerError> {
        job.desktop.check()?;
        let display = job.desktop.display_name();
        let held = match X11Backend::connect(Some(&display)).await {
            Ok(connection) => connection,
            Err(error) => {
                return Err(RunnerError::Input(format!(
                    "--display {display}: the X server does not answer: {error}"
                )));
            }
        };
        let sides = Self {
            job,
            events: Events::none(),
            _held: Arc::new(held),
        };
        for (name, side) in [
            ("baseline", &sides.job.baseline),
            ("candidate", &sides.job.candidate),
        ] {
            let (config, _) = sides.target_of(side)?;
            if config.app.is_none() {
                return Err(RunnerError::Input(format!(
                    "the {name} has no application to start: give --app COMMAND (both \
                     sides), --{name}-app COMMAND, or a flow that names one with \
                     --allow-app-commands"
                )));
            }
        }
        if sides.job.desktop.window.is_none() && sides.job.flow.is_none() {
            return Err(RunnerError::Input(
                "a window check needs --window NAME|CLASS: the window to compare".into(),
            ));
        }
        Ok(sides)
    }

    /// The replay job of `side`'s flow.
    fn replay_job(&self, flow: &std::path::Path, config: DesktopConfig) -> ReplayJob {
        ReplayJob {
            file: flow.to_owned(),
            url: String::new(),
            parameters: self.job.parameters.clone(),
            size: None,
            settings: ReplaySettings {
                write_metadata: false,
                ..self.job.settings.clone()
            },
            // A desktop replay opens no browser.
            browser: crate::BrowserConfig::launch(PathBuf::new(), (0, 0)),
            events_log: None,
            final_screenshot: None,
            final_screenshot_when_passed: false,
            desktop: Some(config),
            allow_app_commands: self.job.allow_app_commands,
        }
    }

    /// `side`'s target: its configuration, anchored where the flow recorded its window.
    fn target_of(
        &self,
        side: &WindowSide,
    ) -> Result<(DesktopConfig, Option<(i32, i32)>), RunnerError> {
        let mut config = self.job.desktop.clone();
        config.app = side.app.clone();
        config.env = side.env.clone();
        let Some(flow) = &self.job.flow else {
            config.check()?;
            return Ok((config, None));
        };
        let job = self.replay_job(flow, config.clone());
        job.check()?;
        let (config, anchor) = replay_target(&job, &config)?;
        config.check()?;
        Ok((config, anchor))
    }

    /// Brings `side` to its state and captures it; its application ends before this returns.
    async fn capture_side(&self, side: &WindowSide) -> Result<WindowShot, String> {
        let (config, anchor) = self.target_of(side).map_err(|e| e.to_string())?;
        let timeout = config.timeout.unwrap_or(DEFAULT_WINDOW_TIMEOUT);
        let target = config
            .open(anchor, &self.events)
            .await
            .map_err(|e| e.to_string())?;
        let replayed = match &self.job.flow {
            Some(flow) => self.replay(flow, config, &target).await,
            None => Ok(()),
        };
        let shot = match replayed {
            Ok(()) => capture(&target, timeout).await,
            Err(error) => Err(error),
        };
        target.end(&self.events).await;
        shot
    }

    /// Replays the flow on `target`: `Err` names the step it failed at and why.
    async fn replay(
        &self,
        flow: &std::path::Path,
        config: DesktopConfig,
        target: &DesktopTarget,
    ) -> Result<(), String> {
        let mut job = self.replay_job(flow, config);
        // Without elements to check, the steps are checked by their region hashes.
        job.settings.visual |= target.elements().is_none();
        let collector = Arc::new(Collector::default());
        let events = self.events.clone().with(collector.clone());
        let on = Target {
            backend: target.backend(),
            elements: target.elements(),
            size: target.size(),
        };
        let run = replay_with(&job, on, &events).await;
        let flow = flow.display();
        match (collector.replay(), run) {
            (Some(outcome), _) if outcome.status == ReplayStatus::Passed => Ok(()),
            (Some(outcome), _) => Err(match outcome.failure {
                Some(failure) => format!("the flow {flow} failed: {}", failure.message),
                None => format!("the flow {flow} did not pass ({:?})", outcome.status),
            }),
            (None, Err(error)) => Err(format!("the flow {flow} could not run: {error}")),
            (None, Ok(_)) => Err(format!("the flow {flow} ended before its first step")),
        }
    }
}

impl WindowSource for Sides {
    fn capture<'a>(&'a self, side: &'a str) -> LocalBoxFuture<'a, Result<WindowShot, String>> {
        let chosen = match side {
            "baseline" => &self.job.baseline,
            _ => &self.job.candidate,
        };
        Box::pin(async move {
            let secrets = self.job.parameters.secrets();
            self.capture_side(chosen)
                .await
                .map_err(|error| secrets.scrub(&error).into_owned())
        })
    }
}

/// The target's window once still: its screenshot and its elements.
async fn capture(target: &DesktopTarget, timeout: Duration) -> Result<WindowShot, String> {
    let Some(window) = target.window() else {
        return Err("no window is targeted: give --window NAME|CLASS".to_owned());
    };
    let still = window
        .wait_until_still(timeout)
        .await
        .map_err(|e| e.to_string())?;
    if !still {
        return Err(format!(
            "the window kept changing for {:.1} s after the flow: it never was still",
            timeout.as_secs_f64()
        ));
    }
    let elements = window.window_elements().await.map_err(|e| e.to_string())?;
    let shot = window
        .window_screenshot()
        .await
        .map_err(|e| e.to_string())?;
    Ok(WindowShot {
        png: shot.png,
        elements,
    })
}
