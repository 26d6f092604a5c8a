//! Suites: many trajectory files replayed as tests, in parallel, in one Chromium (a browser
//! context per test), into one [`SuiteReport`].
//!
//! The pieces, each in its own module, in the order a run uses them:
//! - [`discover`]: files, folders and globs to a sorted list of trajectory files;
//! - [`config`]: the suite file `retrace.toml` and the `RETRACE_*`/flag layers over it;
//! - [`config_read`]: reading that file, where a bad `[[files]]` section spoils only its tests
//!   ([`bad_section`]);
//! - [`plan`]: one [`plan::TestPlan`] per file (url, size, settings, parameters, tags);
//! - [`shard`]: which tests belong to `--shard I/N` (or the CI's shard variables);
//! - [`load`]: all of the above, plus `--grep`/`--tag`: [`load::load_suite`];
//! - [`remote`]: a suite in object storage, read into a private folder first;
//! - [`state`]: `.retrace_state/`, what runs learn about each file, read by validators;
//! - [`suite_state`]: that state on disk, or as run records in the suite's [`Store`];
//! - [`schedule`]: running the tests (jobs, retries, interrupt) in a [`browsers::BrowserPool`];
//! - [`timeline`] and [`test_report`]: a test's events and attempts into its
//!   [`TestReport`].
//!
//! [`run_suite`] ties them together and ends with [`Event::SuiteFinished`]. It never prints;
//! the CLI subscribes its progress display and writes the reports.

pub mod bad_section;
pub mod browsers;
pub mod config;
pub mod config_read;
pub mod discover;
pub mod error;
pub mod interrupt;
pub mod load;
pub mod plan;
pub mod remote;
pub mod schedule;
pub mod shard;
pub mod state;
pub mod suite_state;
pub mod test_report;
pub mod timeline;
pub mod timeouts;

use std::sync::Arc;
use std::time::Instant;

use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use retrace_protocol::events::SuiteReport;
use retrace_protocol::events::TestReport;
use retrace_protocol::events::Totals;

pub use error::SuiteError;
pub use interrupt::Interrupt;
pub use load::LoadedSuite;
pub use load::SuiteRequest;
pub use load::load_suite;
pub use schedule::Schedule;

use crate::browser::BrowserConfig;
use crate::store::Store;
use browsers::BrowserPool;
use suite_state::SuiteState;

/// A suite to run.
#[derive(Debug, Clone)]
pub struct SuiteJob {
    /// The suite, loaded.
    pub suite: LoadedSuite,
    /// How its tests run.
    pub schedule: Schedule,
    /// Run files marked invalid (by a validator, or by hand) instead of skipping them.
    pub include_invalid: bool,
    /// The browser the tests share.
    pub browser: BrowserConfig,
    /// Where run state goes when the suite came from a store (`s3://bucket/suite/`): run
    /// records under its `.retrace_state/`; `None`: `.retrace_state/` on disk (see
    /// [`LoadedSuite::state_root`]).
    pub state_store: Option<Store>,
}

/// How a suite ended, for the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuiteVerdict {
    /// Every test that ran passed (flaky ones included) (exit 0).
    Passed,
    /// A test failed (exit 1).
    Failed,
    /// A test could not run, or the suite was interrupted (exit 2).
    Error,
}

/// The verdict of `report`: an error or an interrupt outweighs a failure.
pub fn verdict(report: &SuiteReport) -> SuiteVerdict {
    if report.interrupted || report.totals.error > 0 {
        SuiteVerdict::Error
    } else if report.totals.failed > 0 {
        SuiteVerdict::Failed
    } else {
        SuiteVerdict::Passed
    }
}

/// Runs `job`'s tests, emitting [`Event::TestStarted`] and [`Event::TestFinished`] per test
/// and ending with [`Event::SuiteFinished`], and returns the report. Tests that cannot run as
/// planned are errors and files marked invalid are skipped, both without a browser. When
/// `interrupt` is raised, the tests not yet done are skipped as interrupted and the browsers
/// are closed before this returns.
pub async fn run_suite(job: SuiteJob, events: &Events, interrupt: &Interrupt) -> SuiteReport {
    let started_at = jiff::Timestamp::now().to_string();
    let started = Instant::now();
    let state = Arc::new(SuiteState::new(
        job.suite.state_root.as_deref(),
        job.state_store.as_ref(),
    ));
    let mut decided: Vec<Option<TestReport>> = Vec::with_capacity(job.suite.plans.len());
    let mut runnable = Vec::new();
    for plan in &job.suite.plans {
        let report = if let Some(problem) = &plan.problem {
            Some(test_report::unrunnable(plan, problem))
        } else if let Some(reason) = match job.include_invalid {
            true => None,
            false => state.invalid_reason(&plan.id, &plan.file).await,
        } {
            Some(test_report::skipped(
                plan,
                format!("invalid: {reason} (run it anyway with --include-invalid)"),
            ))
        } else {
            runnable.push(plan.clone());
            None
        };
        if let Some(report) = &report {
            events.emit(Event::TestFinished(Box::new(report.clone())));
        }
        decided.push(report);
    }
    let pool = Arc::new(BrowserPool::new(job.browser.clone(), job.schedule.jobs).reporting(events));
    let ran = schedule::run_tests(
        runnable,
        job.schedule.clone(),
        Arc::clone(&pool),
        state,
        events,
        interrupt,
    )
    .await;
    pool.close().await;
    let mut ran = ran.into_iter();
    let tests: Vec<TestReport> = decided
        .into_iter()
        .filter_map(|report| report.or_else(|| ran.next()))
        .collect();
    let report = SuiteReport {
        version: SuiteReport::VERSION,
        name: job.suite.name.clone(),
        shard: job.suite.shard.as_ref().map(|selection| selection.shard),
        started_at,
        wall_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        totals: Totals::of(&tests),
        interrupted: interrupt.is_triggered(),
        shards: Vec::new(),
        tests,
    };
    events.emit(Event::SuiteFinished(Box::new(report.clone())));
    report
}
