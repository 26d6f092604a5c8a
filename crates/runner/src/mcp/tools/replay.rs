//! `replay`: one trajectory replayed against a URL with no model, as `retrace replay` does
//! (`crate::run_replay_in`, in a run of its own in the server's browser): passed, or
//! the step that failed and why. A progress notification as each step is acted on (when the
//! call asks for progress); cancelling the call stops the replay.

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;

use crate::ReplayJob;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use retrace_protocol::events::SessionReport;
use retrace_replay::ReplaySettings;
use rmcp::model::CallToolResult;
use rmcp::model::Tool;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use super::declaration::declare;
use super::shared_args::parameters;
use super::shared_args::shown;
use crate::mcp::call::CallContext;
use crate::mcp::call::ToolError;
use crate::mcp::call::on_own_thread;
use crate::mcp::call::parse_size;
use crate::mcp::call::wire_name;
use crate::mcp::state::SharedState;

/// The tool's name.
pub const NAME: &str = "replay";

const DESCRIPTION: &str = "Replay one recorded trajectory file against a URL in headless \
Chromium, with no model: before each step the screen region is checked against the recording \
(perceptual hash) and the page's element too, after it the recorded effect. Returns `passed`, \
`failed` with the step that failed and why (distance and threshold for a screen mismatch), \
or `error` (the file or its parameters are unusable, the browser failed). Parameters fill the \
trajectory's `{{name}}` placeholders; secret ones never appear in the result. Sends a progress \
notification as each step is acted on (when the call asks for progress); cancelling the call \
stops the replay.";

/// `replay`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The trajectory file (relative to the server's working folder).
    pub file: String,
    /// The page to open before replaying.
    pub url: String,
    /// Parameter values by name (`{"username": "demo", "password": "..."}`). Secret ones
    /// (names like password, token, key, or listed in `secret`) never appear in a result, a
    /// notification or a log.
    #[serde(default)]
    pub params: BTreeMap<String, String>,
    /// Names of parameters to treat as secret whatever their name.
    #[serde(default)]
    pub secret: Vec<String>,
    /// Viewport `WIDTHxHEIGHT` (default: the size recorded in the file).
    #[serde(default)]
    pub size: Option<String>,
    /// The largest Hamming distance that passes a screen check (default 10).
    #[serde(default)]
    pub threshold: Option<u32>,
    /// The longest wait for one step's screen, seconds (default 10).
    #[serde(default)]
    pub step_timeout: Option<f64>,
}

/// `replay`'s result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    /// `passed`, `failed` (a step's check failed) or `error` (it could not run).
    pub status: String,
    /// The trajectory file.
    pub file: String,
    /// The page it started on.
    pub url: String,
    /// Steps in the trajectory.
    pub steps_total: usize,
    /// Steps replayed.
    pub steps_replayed: usize,
    /// The failed step, for `failed`.
    pub failure: Option<FailureOutput>,
    /// Why it could not run, for `error`.
    pub error: Option<String>,
    /// Steps whose element had moved a little and was found nearby.
    pub repairs: usize,
    /// Evidence files (the event log, the final screen and the failed step's crops).
    pub evidence: Vec<String>,
    /// Wall time, milliseconds.
    pub wall_ms: u64,
}

/// The step a replay failed at.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FailureOutput {
    /// The 1-based step.
    pub step: usize,
    /// `mismatch` (the screen before the step is not the recorded one), `effect` (the
    /// recorded result of the step did not appear), `element`, `tool_error`...
    pub kind: String,
    /// The step's action.
    pub action: String,
    /// What happened.
    pub message: String,
    /// The Hamming distance seen, for a screen check.
    pub distance: Option<u32>,
    /// The threshold it was held to.
    pub threshold: Option<u32>,
}

/// The declaration.
pub fn tool() -> Tool {
    declare::<Input, Output>(NAME, DESCRIPTION)
}

/// Replays the file.
pub async fn call(
    shared: &SharedState,
    input: Input,
    context: &CallContext,
) -> Result<CallToolResult, ToolError> {
    let parameters = parameters(&input.params, &input.secret);
    let context = context.clone().with_secrets(parameters.secrets());
    let size = input
        .size
        .as_deref()
        .map(|text| parse_size("size", text))
        .transpose()?;
    if let Some(seconds) = input.step_timeout.filter(|s| !(s.is_finite() && *s > 0.0)) {
        return Err(ToolError::argument(
            "step_timeout",
            format!("{seconds} is not a number of seconds above 0"),
        ));
    }
    let dir = shared.call_dir(NAME);
    let defaults = ReplaySettings::default();
    let job = ReplayJob {
        file: PathBuf::from(&input.file),
        url: input.url.clone(),
        parameters,
        size,
        settings: ReplaySettings {
            threshold: input.threshold.unwrap_or(defaults.threshold),
            step_timeout: input
                .step_timeout
                .map_or(defaults.step_timeout, Duration::from_secs_f64),
            // The run is counted in `.retrace_state/` (below), as `retrace replay` counts it.
            write_metadata: false,
            ..defaults
        },
        browser: shared.settings.browser.clone(),
        events_log: Some(dir.join("events.jsonl")),
        final_screenshot: Some(dir.join("final.png")),
        final_screenshot_when_passed: false,
        desktop: None,
        allow_app_commands: false,
    };
    // A file or parameters replay refuses: a tool error naming them, before any browser.
    job.check().map_err(ToolError::failed)?;
    let browser = shared
        .warm
        .run_at(job.viewport())
        .await
        .map_err(ToolError::failed)?;
    let steps = retrace_cache::read_cache_file(&job.file, retrace_cache::DEFAULT_MAX_FILE_SIZE)
        .map(|file| file.trajectory.len())
        .map_err(ToolError::failed)?;
    let (sink, notifier) = crate::mcp::progress::forward(&context, steps, step_line);
    let cancel = context.cancel.clone();
    let replayed = on_own_thread(move || async move {
        let events = Events::none().with(sink);
        tokio::select! {
            report = crate::run_replay_in(&job, &browser, &events) => Some(report),
            () = cancel.cancelled() => None,
        }
    })
    .await?;
    let Some(report) = replayed else {
        return Err(ToolError::Failed("cancelled".into()));
    };
    let _ = notifier.await;
    // The run happened whatever the state says: a state that cannot be written is logged.
    if let Err(error) = crate::record_replay_state(Path::new(&input.file), &report) {
        tracing::warn!("could not record the run state of {}: {error}", input.file);
    }
    let images = report
        .evidence
        .iter()
        .filter(|path| {
            path.to_str()
                .is_some_and(|p| p.ends_with("-expected.png") || p.ends_with("-actual.png"))
        })
        .filter_map(|path| crate::mcp::images::image_block(path))
        .collect();
    context.result(&output(&report, &input), images)
}

/// The progress line of a step acted on (`step 2: left_click at (640, 311)`), or of the step
/// that failed.
fn step_line(event: &Event) -> Option<String> {
    match event {
        Event::ToolCalled {
            step: Some(step),
            summary,
            ..
        } => Some(format!("step {step}: {summary}")),
        Event::StepFailed(failure) => Some(format!(
            "failed at step {}: {}",
            failure.step, failure.action
        )),
        _ => None,
    }
}

fn output(report: &SessionReport, input: &Input) -> Output {
    let replay = report.replay.as_ref();
    Output {
        status: wire_name(&report.status),
        file: input.file.clone(),
        url: input.url.clone(),
        steps_total: replay.map_or(0, |r| r.steps_total),
        steps_replayed: replay.map_or(0, |r| r.steps_replayed),
        failure: replay
            .and_then(|r| r.failure.as_ref())
            .map(|failure| FailureOutput {
                step: failure.step,
                kind: wire_name(&failure.kind),
                action: failure.action.clone(),
                message: failure.message.clone(),
                distance: failure.distance,
                threshold: failure.threshold,
            }),
        error: report.error.clone(),
        repairs: replay.map_or(0, |r| r.repairs.len()),
        evidence: report.evidence.iter().map(|path| shown(path)).collect(),
        wall_ms: report.wall_ms,
    }
}
