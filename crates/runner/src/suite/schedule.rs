//! Running a suite's tests: up to `jobs` at once (tokio tasks bounded by a semaphore) in the
//! shared browsers of a [`BrowserPool`], each test in a browser context of its own; retries
//! after infrastructure errors; the state store updated after each test; and the
//! [`Interrupt`]: once raised, no test starts (they are skipped as interrupted) and the
//! running ones are aborted (their futures dropped, which disposes of their contexts).
//!
//! Each test's own events (steps, checks) go to its subscribers only (its timeline, its JSON
//! Lines log); the suite's stream gets [`Event::TestStarted`] per attempt and
//! [`Event::TestFinished`] per test, so concurrent tests never interleave in one stream.

use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use retrace_protocol::events::Artifacts;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use retrace_protocol::events::SessionKind;
use retrace_protocol::events::SessionReport;
use retrace_protocol::events::SessionStatus;
use retrace_protocol::events::TestReport;
use retrace_protocol::events::TestStatus;
use tokio::sync::Semaphore;

use super::browsers::BrowserPool;
use super::interrupt::Interrupt;
use super::plan::TestPlan;
use super::state::RunVerdict;
use super::suite_state::SuiteState;
use super::test_report;
use super::timeline::Timeline;
use crate::desktop::DesktopConfig;
use crate::replay::ReplayJob;
use crate::replay::run_replay_in;

/// The skip reason of a test the interrupt kept from starting.
pub const INTERRUPTED: &str = "interrupted";

/// The skip reason of a test the interrupt aborted while it ran.
pub const INTERRUPTED_RUNNING: &str = "interrupted while running (aborted)";

/// How the tests run.
#[derive(Debug, Clone)]
pub struct Schedule {
    /// Tests at once (at least 1).
    pub jobs: usize,
    /// Attempts after an infrastructure error.
    pub retries: u32,
    /// Whether replays write their results into the trajectory files too (askui's way).
    pub write_metadata: bool,
    /// Where each test's evidence goes (`tests/<id>/` below it); `None`: nowhere.
    pub out_dir: Option<PathBuf>,
    /// The desktop that files recorded on one replay on (`--display`; default `$DISPLAY`).
    pub desktop: DesktopConfig,
    /// Whether the application commands desktop files name may be started.
    pub allow_app_commands: bool,
}

/// What every test task shares.
struct Shared {
    schedule: Schedule,
    pool: Arc<BrowserPool>,
    state: Arc<SuiteState>,
    events: Events,
    interrupt: Interrupt,
    /// Held by the desktop test running: one display, one application at a time.
    desktop: tokio::sync::Mutex<()>,
}

/// Runs `plans` (all runnable), emitting each test's events, and returns their reports in
/// plan order.
pub async fn run_tests(
    plans: Vec<TestPlan>,
    schedule: Schedule,
    pool: Arc<BrowserPool>,
    state: Arc<SuiteState>,
    events: &Events,
    interrupt: &Interrupt,
) -> Vec<TestReport> {
    let semaphore = Arc::new(Semaphore::new(schedule.jobs.max(1)));
    let shared = Arc::new(Shared {
        schedule,
        pool,
        state,
        events: events.clone(),
        interrupt: interrupt.clone(),
        desktop: tokio::sync::Mutex::new(()),
    });
    // The tests run as futures of this one task, not spawned tasks: a replay's conversation
    // is not `Sync`, so its future cannot move between threads. They still run at once:
    // each waits on its page, its screenshots and its timers, not on the others.
    let tests = plans.iter().map(|plan| {
        let (shared, semaphore) = (Arc::clone(&shared), Arc::clone(&semaphore));
        async move {
            let report = run_one(plan, &shared, semaphore).await;
            shared
                .events
                .emit(Event::TestFinished(Box::new(report.clone())));
            report
        }
    });
    futures::future::join_all(tests).await
}

/// One test: a permit, then its attempts, unless the interrupt comes first.
async fn run_one(plan: &TestPlan, shared: &Shared, semaphore: Arc<Semaphore>) -> TestReport {
    let permit = tokio::select! {
        biased;
        () = shared.interrupt.triggered() => return test_report::skipped(plan, INTERRUPTED),
        permit = semaphore.acquire_owned() => permit,
    };
    let Ok(_permit) = permit else {
        return test_report::skipped(plan, INTERRUPTED);
    };
    let report = tokio::select! {
        biased;
        () = shared.interrupt.triggered() => return test_report::skipped(plan, INTERRUPTED_RUNNING),
        report = attempts(plan, shared) => report,
    };
    let verdict = match report.status {
        TestStatus::Passed | TestStatus::Flaky => RunVerdict::Passed,
        TestStatus::Failed => RunVerdict::Failed {
            step: report.step.unwrap_or(0),
            message: report
                .attempts
                .last()
                .and_then(|attempt| attempt.replay.as_ref())
                .and_then(|replay| replay.failure.as_ref())
                .map(|failure| failure.message.clone())
                .unwrap_or_default(),
        },
        TestStatus::Error | TestStatus::Skipped => RunVerdict::Error,
    };
    if let Err(error) = shared.state.record(&plan.id, &plan.file, &verdict).await {
        tracing::warn!("could not update the state of {}: {error}", plan.id);
    }
    let failure = report
        .attempts
        .last()
        .and_then(|attempt| attempt.replay.as_ref())
        .and_then(|replay| replay.failure.as_ref());
    if let (RunVerdict::Failed { .. }, Some(failure)) = (&verdict, failure)
        && let Err(error) = shared.state.keep_failure(&plan.file, failure)
    {
        tracing::warn!("could not keep the failed step of {}: {error}", plan.id);
    }
    report
}

/// Runs `plan` until it passes, fails, or ends in an error with no retry left.
async fn attempts(plan: &TestPlan, shared: &Shared) -> TestReport {
    let started = Instant::now();
    let evidence = shared
        .schedule
        .out_dir
        .as_ref()
        .map(|out| (out.clone(), PathBuf::from("tests").join(slug(&plan.id))));
    let mut attempts: Vec<SessionReport> = Vec::new();
    let mut timeline;
    loop {
        let attempt = u32::try_from(attempts.len())
            .unwrap_or(u32::MAX)
            .saturating_add(1);
        shared.events.emit(Event::TestStarted {
            id: plan.id.clone(),
            attempt,
        });
        timeline = Arc::new(Timeline::default());
        let events = Events::none().with(timeline.clone());
        let job = replay_job(plan, shared, evidence.as_ref());
        let mut report = if job.desktop.is_some() {
            let _display = shared.desktop.lock().await;
            crate::replay::run_replay(&job, &events).await
        } else {
            browser_replay(&job, shared, plan, &events).await
        };
        // Named as users know the file, not after a private copy of it.
        report.name = plan.shown_file();
        let again = test_report::is_retryable(&report) && attempt <= shared.schedule.retries;
        attempts.push(report);
        if !again {
            break;
        }
    }
    let mut report = test_report::ran(
        plan,
        attempts,
        timeline.steps(),
        Artifacts::default(),
        started.elapsed(),
    );
    if let Some((out, dir)) = &evidence {
        report.artifacts = keep_evidence(out, dir, &report, &timeline);
    }
    report
}

/// `job` replayed in a browser of the suite's pool.
async fn browser_replay(
    job: &ReplayJob,
    shared: &Shared,
    plan: &TestPlan,
    events: &Events,
) -> SessionReport {
    match shared.pool.get(job.viewport()).await {
        Ok(browser) => run_replay_in(job, &browser, events).await,
        Err(error) => {
            let mut report = SessionReport::new(SessionKind::Replay, plan.id.clone());
            report.status = SessionStatus::Error;
            report.error = Some(retrace_report::error_chain(&error));
            report
        }
    }
}

/// The replay of `plan`, logging into its evidence folder when there is one.
fn replay_job(
    plan: &TestPlan,
    shared: &Shared,
    evidence: Option<&(PathBuf, PathBuf)>,
) -> ReplayJob {
    let mut settings = plan.settings.clone();
    settings.write_metadata = shared.schedule.write_metadata;
    ReplayJob {
        file: plan.file.clone(),
        url: plan.url.clone().unwrap_or_default(),
        parameters: plan.parameters.clone(),
        size: plan.size,
        settings,
        // Not used: the suite's pool supplies the browser.
        browser: crate::browser::BrowserConfig::launch(
            retrace_drive::chromium::FULL_CHROMIUM,
            (0, 0),
        ),
        events_log: evidence.map(|(out, dir)| out.join(dir).join("events.jsonl")),
        final_screenshot: evidence.map(|(out, dir)| out.join(dir).join("final.png")),
        // Kept only for a test that did not pass (see `keep_evidence`).
        final_screenshot_when_passed: false,
        desktop: plan.desktop.then(|| shared.schedule.desktop.clone()),
        allow_app_commands: shared.schedule.allow_app_commands,
    }
}

/// The evidence files worth keeping, relative to `out`: the log always; the final
/// screenshot and the failed step's crops only for tests that did not pass.
fn keep_evidence(out: &Path, dir: &Path, report: &TestReport, timeline: &Timeline) -> Artifacts {
    let exists = |relative: PathBuf| out.join(&relative).is_file().then_some(relative);
    let mut artifacts = Artifacts {
        events_log: exists(dir.join("events.jsonl")),
        ..Artifacts::default()
    };
    let final_png = dir.join("final.png");
    if matches!(report.status, TestStatus::Passed | TestStatus::Flaky) {
        let _ = std::fs::remove_file(out.join(&final_png));
        return artifacts;
    }
    artifacts.final_screenshot = exists(final_png.clone());
    if let Some(failure) = timeline.failure() {
        // The replay session wrote them beside the final screenshot.
        let crop = |which: &str| {
            exists(crate::replay::failure_crop_path(
                &final_png,
                failure.step,
                which,
            ))
        };
        artifacts.expected_crop = crop("expected");
        artifacts.actual_crop = crop("actual");
    }
    artifacts
}

/// A folder name for test `id`: its path with separators spelled `__`, other characters
/// outside `[A-Za-z0-9._-]` as `_`.
pub fn slug(id: &str) -> String {
    id.split('/')
        .map(|part| {
            part.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                        c
                    } else {
                        '_'
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("__")
}
