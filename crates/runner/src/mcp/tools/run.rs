//! `run`: a suite of trajectory files replayed in parallel, as `retrace run` does
//! (`crate::suite`), with a progress notification as each test finishes; cancelling
//! the call interrupts the suite, which closes its browsers before it returns.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::suite;
use crate::suite::Interrupt;
use crate::suite::Schedule;
use crate::suite::SuiteJob;
use crate::suite::SuiteRequest;
use crate::suite::SuiteVerdict;
use crate::suite::config::Defaults;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use retrace_protocol::events::SuiteReport;
use retrace_protocol::events::TestReport;
use rmcp::model::CallToolResult;
use rmcp::model::Tool;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use super::declaration::declare;
use super::shared_args::shown;
use crate::mcp::call::CallContext;
use crate::mcp::call::ToolError;
use crate::mcp::call::on_own_thread;
use crate::mcp::call::parse_size;
use crate::mcp::call::wire_name;
use crate::mcp::state::SharedState;

/// The tool's name.
pub const NAME: &str = "run";

const DESCRIPTION: &str = "Replay a suite of trajectory files (files, folders, globs; \
default .retrace_cache/) in parallel, as `retrace run` does, with settings from retrace.toml \
when there is one. Sends a progress notification as each test finishes (when the call asks \
for progress); cancelling the call stops the suite and its browsers. Each test passed, \
failed (at a step, with the reason), error or skipped; run state goes to .retrace_state/ \
beside the suite, which `approve` and `list_trajectories` read.";

/// `run`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Trajectory files, folders and globs (default `[".retrace_cache"]`).
    #[serde(default)]
    pub paths: Vec<String>,
    /// The suite file (default: ./retrace.toml when it exists).
    #[serde(default)]
    pub suite: Option<String>,
    /// The page to open before each replay (over the suite file's).
    #[serde(default)]
    pub url: Option<String>,
    /// Parameter values by name. Secret ones (names like password, token, key, or listed
    /// in `secret`) never appear in a result, a notification or a log.
    #[serde(default)]
    pub params: BTreeMap<String, String>,
    /// Names of parameters to treat as secret whatever their name.
    #[serde(default)]
    pub secret: Vec<String>,
    /// Viewport `WIDTHxHEIGHT` for every test (default: each file's recorded size).
    #[serde(default)]
    pub size: Option<String>,
    /// The longest wait for one step's screen, seconds (default 10).
    #[serde(default)]
    pub step_timeout: Option<f64>,
    /// Tests run at once.
    #[serde(default)]
    pub jobs: Option<usize>,
    /// Only tests whose path matches this regular expression.
    #[serde(default)]
    pub grep: Option<String>,
    /// Only tests with one of these tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Run files marked invalid instead of skipping them.
    #[serde(default)]
    pub include_invalid: bool,
}

/// `run`'s result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    /// `passed` (every test that ran passed), `failed` (a test failed) or `error` (a test
    /// could not run, or the suite was interrupted).
    pub verdict: String,
    /// Whether the call was cancelled before every test ran.
    pub interrupted: bool,
    /// Counts by status.
    pub totals: TotalsOutput,
    /// Each test.
    pub tests: Vec<TestOutput>,
    /// Where failed tests' evidence went.
    pub out: String,
}

/// Tests by status.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TotalsOutput {
    /// All tests.
    pub tests: usize,
    /// Passed.
    pub passed: usize,
    /// Failed.
    pub failed: usize,
    /// Could not run.
    pub error: usize,
    /// Passed after an infrastructure error.
    pub flaky: usize,
    /// Not run.
    pub skipped: usize,
}

/// One test.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TestOutput {
    /// Its id (path inside the suite).
    pub id: String,
    /// Its file.
    pub file: String,
    /// `passed`, `failed`, `error`, `flaky` or `skipped`.
    pub status: String,
    /// The step it failed at.
    pub step: Option<usize>,
    /// Why it failed, erred or was skipped.
    pub reason: Option<String>,
}

/// The declaration.
pub fn tool() -> Tool {
    declare::<Input, Output>(NAME, DESCRIPTION)
}

/// `passed flows/login.json`, `failed flows/login.json at step 7: ...`.
fn line(test: &TestReport) -> String {
    let status = wire_name(&test.status);
    match (test.step, reason(test)) {
        (Some(step), Some(why)) => format!("{status} {} at step {step}: {why}", test.id),
        (None, Some(why)) => format!("{status} {}: {why}", test.id),
        _ => format!("{status} {}", test.id),
    }
}

/// Why a test did not pass: its skip reason, its last attempt's error or failure.
fn reason(test: &TestReport) -> Option<String> {
    test.skip_reason.clone().or_else(|| {
        let last = test.attempts.last()?;
        last.error.clone().or_else(|| {
            last.replay
                .as_ref()?
                .failure
                .as_ref()
                .map(|failure| failure.message.clone())
        })
    })
}

/// Runs the suite.
pub async fn call(
    shared: &SharedState,
    input: Input,
    context: &CallContext,
) -> Result<CallToolResult, ToolError> {
    if let Some(size) = &input.size {
        parse_size("size", size)?;
    }
    let request = SuiteRequest {
        paths: if input.paths.is_empty() {
            vec![PathBuf::from(".retrace_cache")]
        } else {
            input.paths.iter().map(PathBuf::from).collect()
        },
        suite_file: suite::config::suite_file_path(
            input.suite.as_deref().map(std::path::Path::new),
        ),
        flags: Defaults {
            url: input.url.clone(),
            size: input.size.clone(),
            step_timeout: input.step_timeout,
            jobs: input.jobs,
            ..Defaults::default()
        },
        params_file: None,
        params: input.params.clone().into_iter().collect(),
        secrets: input.secret.clone(),
        grep: input.grep.clone(),
        tags: input.tags.clone(),
        shard: None,
    };
    let loaded =
        suite::load_suite(&request, &|name| std::env::var(name).ok()).map_err(ToolError::failed)?;
    // The secret values of every test (from `params` and the environment's
    // RETRACE_PARAM_*), scrubbed from the result and the notifications.
    let secret_values: Vec<String> = loaded
        .plans
        .iter()
        .flat_map(|plan| {
            plan.parameters
                .pairs()
                .filter(|(name, _)| plan.parameters.is_secret(name))
                .map(|(_, value)| value.to_owned())
                .collect::<Vec<_>>()
        })
        .collect();
    let secrets = retrace_report::Secrets::new(secret_values.iter().map(String::as_str));
    let context = context.clone().with_secrets(secrets);
    let out = shared.call_dir(NAME);
    let total = loaded.plans.len();
    let job = SuiteJob {
        schedule: Schedule {
            jobs: loaded.jobs,
            retries: loaded.retries,
            write_metadata: false,
            out_dir: Some(out.clone()),
            desktop: crate::desktop::DesktopConfig::default(),
            allow_app_commands: false,
        },
        suite: loaded,
        include_invalid: input.include_invalid,
        browser: shared.settings.browser.clone(),
        state_store: None,
    };
    let (sink, notifier) = crate::mcp::progress::forward(&context, total, |event| match event {
        Event::TestFinished(test) => Some(line(test)),
        _ => None,
    });
    let events = Events::none().with(sink);
    let interrupt = Interrupt::new();
    let watcher = tokio::spawn({
        let interrupt = interrupt.clone();
        let cancel = context.cancel.clone();
        async move {
            cancel.cancelled().await;
            interrupt.trigger();
        }
    });
    let report = on_own_thread({
        let interrupt = interrupt.clone();
        move || async move { suite::run_suite(job, &events, &interrupt).await }
    })
    .await;
    watcher.abort();
    let report = report?;
    let _ = notifier.await;
    context.result(&output(&report, &out), Vec::new())
}

fn output(report: &SuiteReport, out: &std::path::Path) -> Output {
    let totals = report.totals;
    Output {
        verdict: match suite::verdict(report) {
            SuiteVerdict::Passed => "passed",
            SuiteVerdict::Failed => "failed",
            SuiteVerdict::Error => "error",
        }
        .to_owned(),
        interrupted: report.interrupted,
        totals: TotalsOutput {
            tests: totals.tests,
            passed: totals.passed,
            failed: totals.failed,
            error: totals.error,
            flaky: totals.flaky,
            skipped: totals.skipped,
        },
        tests: report
            .tests
            .iter()
            .map(|test| TestOutput {
                id: test.id.clone(),
                file: shown(&test.file),
                status: wire_name(&test.status),
                step: test.step,
                reason: reason(test),
            })
            .collect(),
        out: shown(out),
    }
}
