//! [`ReplayJob`] and [`run_replay`]: one trajectory replayed in a browser with no model, from
//! browser start to the final screenshot, as one session.
//!
//! The file is read and its parameters checked before the browser starts (a missing value is
//! named at once); the page opens at the size the file was recorded at unless told otherwise;
//! the replay runs with the computer tool, askui's tools and the web executor (so files from
//! either recording mode, and askui's, replay), and its result is read from the event stream.

use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use retrace_agent::Conversation;
use retrace_agent::speaker::SpeakerContext;
use retrace_agent::structured::ResolvingWebTool;
use retrace_agent::structured::executor_on_page;
use retrace_drive::Backend;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::chromium::ChromiumPage;
use retrace_drive::computer::ComputerTool;
use retrace_drive::computer::ComputerToolConfig;
use retrace_drive::computer::Scaler;
use retrace_drive::tool::Toolbox;
use retrace_drive::web::WebExecutorConfig;
use retrace_protocol::Message;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use retrace_protocol::events::ReplayStatus;
use retrace_protocol::events::SessionKind;
use retrace_protocol::events::SessionReport;
use retrace_protocol::events::SessionStatus;
use retrace_replay::CACHE_EXECUTOR;
use retrace_replay::ReplayRequest;
use retrace_replay::ReplaySpeaker;
use retrace_replay::screen::BackendScreen;
use retrace_report::JsonLinesSink;

use crate::browser::PageLoad;
use crate::browser::open_page;
use crate::browser::write_png;
use crate::collect::Collector;
use crate::error::RunnerError;
use crate::parameters::Parameters;
pub use crate::replay_job::DEFAULT_SIZE;
pub use crate::replay_job::RecordedSizes;
pub use crate::replay_job::ReplayJob;
pub use crate::replay_job::recorded_sizes;
use crate::suite::Interrupt;

/// Replays `job`, sending every event to `events` (and to the job's log), and ends with a
/// [`Event::SessionFinished`] carrying the report it returns. Never fails: a session that
/// cannot run is a report with status `error`.
pub async fn run_replay(job: &ReplayJob, events: &Events) -> SessionReport {
    run_session(job, Where::Own, events, None).await
}

/// Which browser a session replays in.
#[derive(Clone, Copy)]
enum Where<'a> {
    /// One of its own, opened from `job.browser` and closed at the end.
    Own,
    /// A new run (browser context) of this browser, disposed of at the end.
    NewRunOf(&'a ChromiumBrowser),
    /// This run itself, left open: its context keeps what the replay left (a login's
    /// cookies) for the caller.
    Run(&'a ChromiumBrowser),
}

/// Like [`run_replay`], stopped when `interrupt` is raised: the browser is killed and the
/// session ends as an error naming the interruption (its events log and report written).
pub async fn run_replay_until(
    job: &ReplayJob,
    events: &Events,
    interrupt: &Interrupt,
) -> SessionReport {
    run_session(job, Where::Own, events, Some(interrupt)).await
}

/// Like [`run_replay`], but in a run of its own (a fresh browser context) of `browser`, which
/// stays open for other runs: how a suite replays many files in one Chromium. `job.browser` is
/// not used; the page gets `browser`'s size.
pub async fn run_replay_in(
    job: &ReplayJob,
    browser: &ChromiumBrowser,
    events: &Events,
) -> SessionReport {
    run_session(job, Where::NewRunOf(browser), events, None).await
}

/// Like [`run_replay`], in `run` itself (its browser context as it is), which stays open
/// with what the replay left in it: how `retrace check --login` signs a side in and then
/// reads the signed-in state. `job.browser` is not used; the page gets `run`'s size.
pub async fn run_replay_keeping(
    job: &ReplayJob,
    run: &ChromiumBrowser,
    events: &Events,
) -> SessionReport {
    run_session(job, Where::Run(run), events, None).await
}

async fn run_session(
    job: &ReplayJob,
    shared: Where<'_>,
    events: &Events,
    interrupt: Option<&Interrupt>,
) -> SessionReport {
    let started = Instant::now();
    let mut report = SessionReport::new(SessionKind::Replay, job.file.display().to_string());
    if job.desktop.is_none() {
        report.url = Some(job.url.clone());
    }
    let collector = Arc::new(Collector::default());
    let mut events = events.clone().with(collector.clone());
    let result = match session_log(
        job.events_log.as_deref(),
        &job.parameters,
        &mut events,
        &mut report,
    ) {
        Ok(()) => {
            let replay = replay_in_browser(job, shared, &events, &collector, &mut report);
            match interrupt {
                // Dropping the replay drops its browser, which kills the browser's processes.
                Some(interrupt) => tokio::select! {
                    result = replay => result,
                    () = interrupt.triggered() => Err(interrupt.error("replay")),
                },
                None => replay.await,
            }
        }
        Err(error) => Err(error),
    };
    match (result, collector.replay()) {
        (Err(error), replay) => {
            report.status = SessionStatus::Error;
            report.error = Some(retrace_report::error_chain(&error));
            report.replay = replay;
        }
        (Ok(()), Some(replay)) => {
            report.status = match replay.status {
                ReplayStatus::Passed => SessionStatus::Passed,
                ReplayStatus::Failed | ReplayStatus::Paused => SessionStatus::Failed,
            };
            report.replay = Some(replay);
        }
        (Ok(()), None) => {
            // Every way a replay ends without an outcome returns an error above; should one
            // not, say so rather than print nothing.
            report.status = SessionStatus::Error;
            report.error.get_or_insert_with(|| {
                format!(
                    "{}: the replay ended before its first step, for no reason it gave",
                    job.file.display()
                )
            });
        }
    }
    if let Some(path) = &job.final_screenshot {
        write_failure_crops(path, &mut report);
    }
    report.wall_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    events.emit(Event::SessionFinished(Box::new(report.clone())));
    report
}

/// Where a failed step's `which` crop (`expected`, `actual`) is written beside the final
/// screenshot: `final-v2.png` → `final-v2-step7-expected.png`.
pub fn failure_crop_path(final_screenshot: &Path, step: usize, which: &str) -> PathBuf {
    let stem = final_screenshot
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_else(|| "replay".into());
    final_screenshot.with_file_name(format!("{stem}-step{step}-{which}.png"))
}

/// Writes a failed step's expected and actual crops beside the final screenshot
/// (`final-v2.png` → `final-v2-step7-expected.png`, `...-actual.png`) and lists them as
/// evidence; a crop that cannot be written is named in the log, never fails the session.
fn write_failure_crops(final_screenshot: &Path, report: &mut SessionReport) {
    let Some(failure) = report
        .replay
        .as_ref()
        .and_then(|replay| replay.failure.as_ref())
    else {
        return;
    };
    let crops = [
        ("expected", failure.expected_crop.clone()),
        ("actual", failure.actual_crop.clone()),
    ];
    for (which, crop) in crops {
        let Some(crop) = crop else { continue };
        let path = failure_crop_path(final_screenshot, failure.step, which);
        match write_png(&path, crop.bytes()) {
            Ok(()) => report.evidence.push(path),
            Err(error) => tracing::warn!(%error, "could not write the {which} crop"),
        }
    }
}

/// Subscribes a JSON Lines log at `path`, scrubbed of the secret values of `parameters`, to
/// `events`, and lists it as the session's evidence.
pub(crate) fn session_log(
    path: Option<&Path>,
    parameters: &Parameters,
    events: &mut Events,
    report: &mut SessionReport,
) -> Result<(), RunnerError> {
    if let Some(path) = path {
        let sink = JsonLinesSink::create(path, parameters.secrets())
            .map_err(|source| RunnerError::io(path, source))?;
        events.subscribe(sink);
        report.evidence.push(path.to_owned());
    }
    Ok(())
}

async fn replay_in_browser(
    job: &ReplayJob,
    shared: Where<'_>,
    events: &Events,
    collector: &Collector,
    report: &mut SessionReport,
) -> Result<(), RunnerError> {
    job.check()?;
    if let Some(desktop) = &job.desktop {
        return crate::desktop_run::replay_on_desktop(job, desktop, events, collector, report)
            .await;
    }
    let size = job.viewport();
    let browser = match shared {
        Where::NewRunOf(browser) => browser.new_run(),
        Where::Run(run) => {
            return replay_on(job, run, size, events, collector, report).await;
        }
        Where::Own => {
            job.browser
                .clone()
                .at_size(size)
                .open_reporting(events)
                .await?
        }
    };
    let result = replay_on(job, &browser, size, events, collector, report).await;
    // Dispose of this run's browser context (and, for a browser of its own, the browser),
    // bounded: a browser that no longer answers must not hold the session up.
    let _ = tokio::time::timeout(CLOSE_TIMEOUT, browser.close()).await;
    result
}

/// The longest wait for a run's browser context (or browser) to close.
const CLOSE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

async fn replay_on(
    job: &ReplayJob,
    browser: &ChromiumBrowser,
    size: (u32, u32),
    events: &Events,
    collector: &Collector,
    report: &mut SessionReport,
) -> Result<(), RunnerError> {
    let page = Arc::new(open_page(browser, &job.url, PageLoad::Loaded).await?);
    let model = job.model_size();
    let toolbox = replay_tools(&page, browser, model).await?;
    let scaler = Scaler {
        model,
        display: size,
    };
    let screen = BackendScreen::browser(page.clone()).scaled(scaler);
    let speaker = ReplaySpeaker::new(job.settings.clone(), Arc::new(screen));
    let mut conversation =
        Conversation::new(vec![Box::new(speaker)], toolbox, events.clone())?.with_max_steps(10_000);
    let request = ReplayRequest::new(&job.file).with_parameters(job.parameters.values());
    let goal = format!("Replay {}", job.file.display());
    let run = conversation
        .run(
            &goal,
            vec![Message::user_text(goal.clone())],
            Some((CACHE_EXECUTOR, SpeakerContext::of(request))),
        )
        .await;
    let passed = collector
        .replay()
        .is_some_and(|replay| replay.status == ReplayStatus::Passed);
    if let Some(path) = job
        .final_screenshot
        .as_ref()
        .filter(|_| job.final_screenshot_when_passed || !passed)
    {
        let shot = page.screenshot().await?;
        write_png(path, &shot.png)?;
        report.evidence.push(path.clone());
    }
    let run = run?;
    // A replay that never reached its first step (its file refused when it was loaded)
    // reports no outcome; its reason is the conversation's.
    match (collector.replay(), run.status.reason()) {
        (None, Some(reason)) => Err(RunnerError::NotStarted(reason)),
        _ => Ok(()),
    }
}

/// The tools a replay may meet: the computer tool, askui's tools, the web executor.
async fn replay_tools(
    page: &Arc<ChromiumPage>,
    browser: &ChromiumBrowser,
    model_size: (u32, u32),
) -> Result<Toolbox, RunnerError> {
    let backend: Arc<dyn Backend> = page.clone();
    let computer = ComputerTool::new(
        backend.clone(),
        ComputerToolConfig {
            model_size: Some(model_size),
            // Nobody reads a replayed action's screenshot: the checks look at the screen
            // themselves, so skip the capture and its settle time.
            screenshot_after_action: false,
            ..ComputerToolConfig::default()
        },
    )
    .await
    .map_err(|error| RunnerError::Tool {
        tool: "computer",
        message: error.to_string(),
    })?;
    let mut toolbox = Toolbox::new().with(Arc::new(computer));
    for tool in retrace_replay::askui_tools::askui_tools(backend) {
        toolbox.add(tool);
    }
    // Structured runs record web executor commands; they replay on the same page.
    let web = executor_on_page(
        page.clone(),
        Arc::new(browser.clone()),
        WebExecutorConfig::default(),
    );
    toolbox.add(Arc::new(ResolvingWebTool::new(web)));
    Ok(toolbox)
}
