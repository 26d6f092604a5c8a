//! `list_trajectories`: the trajectory files of a suite with each one's health: whether it
//! can be replayed (the checks `retrace cache check` makes, `retrace_cache::check`), whether
//! it was retired, and what its runs learnt (`.retrace_state/`, as `retrace run` keeps it).

use std::path::PathBuf;

use crate::suite;
use crate::suite::SuiteRequest;
use crate::suite::state::FileState;
use crate::suite::state::StateStore;
use crate::suite::suite_state::SuiteState;
use retrace_cache::Severity;
use rmcp::model::CallToolResult;
use rmcp::model::Tool;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use super::declaration::declare;
use super::shared_args::shown;
use crate::mcp::call::CallContext;
use crate::mcp::call::ToolError;

/// The tool's name.
pub const NAME: &str = "list_trajectories";

const DESCRIPTION: &str = "List a suite's trajectory files (files, folders, globs; default \
.retrace_cache/) with each one's health: `valid` (false when `retrace cache check` finds an \
error in it, or a validator or a person retired it, with the reason), its problems, and its \
run history from .retrace_state/: last result (passed, failed, error or null when never run), \
runs, failures, and the step the last failed run failed at (what `approve` would \
re-record).";

/// `list_trajectories`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Trajectory files, folders and globs (default `[".retrace_cache"]`).
    #[serde(default)]
    pub paths: Vec<String>,
    /// The suite file whose folder holds .retrace_state/ (default: ./retrace.toml when it
    /// exists, the working folder either way).
    #[serde(default)]
    pub suite: Option<String>,
}

/// `list_trajectories`' result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    /// One per file, in suite order.
    pub trajectories: Vec<TrajectoryOutput>,
}

/// One trajectory's health.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TrajectoryOutput {
    /// Its id (path inside the suite).
    pub id: String,
    /// Its file.
    pub file: String,
    /// Its steps, when it could be read.
    pub steps: Option<usize>,
    /// Whether it can be replayed and was not retired.
    pub valid: bool,
    /// Why not.
    pub invalid_reason: Option<String>,
    /// What `retrace cache check` finds in it (errors and warnings), one line each.
    pub problems: Vec<String>,
    /// `passed`, `failed` or `error`: how its last run ended (null: never run as it is now).
    pub last_result: Option<String>,
    /// When it last ran.
    pub last_run_at: Option<String>,
    /// Runs that reached a verdict.
    pub runs: u64,
    /// Failed runs.
    pub failures: usize,
    /// The step the last failed run failed at, and why.
    pub last_failure: Option<LastFailure>,
}

/// The last failed run's step.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LastFailure {
    /// The 1-based step.
    pub step: usize,
    /// What happened.
    pub message: String,
}

/// The declaration.
pub fn tool() -> Tool {
    declare::<Input, Output>(NAME, DESCRIPTION)
}

/// Lists the files.
pub async fn call(input: Input, context: &CallContext) -> Result<CallToolResult, ToolError> {
    let request = SuiteRequest {
        paths: if input.paths.is_empty() {
            vec![PathBuf::from(".retrace_cache")]
        } else {
            input.paths.iter().map(PathBuf::from).collect()
        },
        suite_file: suite::config::suite_file_path(
            input.suite.as_deref().map(std::path::Path::new),
        ),
        flags: suite::config::Defaults::default(),
        params_file: None,
        params: Vec::new(),
        secrets: Vec::new(),
        grep: None,
        tags: Vec::new(),
        shard: None,
    };
    // Reading files is blocking work; a suite may hold many.
    let trajectories = tokio::task::spawn_blocking(move || {
        let loaded = suite::load_suite(&request, &|name| std::env::var(name).ok())?;
        Ok::<_, crate::suite::SuiteError>(
            loaded
                .plans
                .iter()
                .map(|plan| {
                    // Where `retrace run` keeps this file's runs, and its id there.
                    let (store, key) = SuiteState::on_disk(loaded.state_root.as_ref(), &plan.file);
                    health(&store, &key, &plan.id, &plan.file)
                })
                .collect::<Vec<_>>(),
        )
    })
    .await
    .map_err(ToolError::failed)?
    .map_err(ToolError::failed)?;
    context.result(&Output { trajectories }, Vec::new())
}

/// One file's health.
fn health(store: &StateStore, key: &str, id: &str, file: &std::path::Path) -> TrajectoryOutput {
    let state = store.load(key, file);
    let (steps, problems, unreadable) =
        match retrace_cache::read_cache_file(file, retrace_cache::DEFAULT_MAX_FILE_SIZE) {
            Ok(cache) => (
                Some(cache.trajectory.len()),
                retrace_cache::check(&cache),
                None,
            ),
            Err(error) => (None, Vec::new(), Some(error.to_string())),
        };
    let refused = problems
        .iter()
        .find(|problem| problem.severity == Severity::Error)
        .map(ToString::to_string);
    let invalid_reason = unreadable
        .or(refused)
        .or_else(|| suite::state::marked_invalid(file))
        .or_else(|| {
            (!state.is_valid).then(|| state.invalidation_reason.clone().unwrap_or_default())
        });
    TrajectoryOutput {
        id: id.to_owned(),
        file: shown(file),
        steps,
        valid: invalid_reason.is_none(),
        invalid_reason,
        problems: problems.iter().map(ToString::to_string).collect(),
        last_result: last_result(&state),
        last_run_at: state.last_run_at.map(|at| at.to_string()),
        runs: state.execution_attempts,
        failures: state.failures.len(),
        last_failure: state.last_failure.as_ref().map(|failure| LastFailure {
            step: failure.step,
            message: failure.message.clone(),
        }),
    }
}

/// How the last run ended: passed when it was the last pass, failed when it was the last
/// failure, else an error (a run that reached no verdict).
fn last_result(state: &FileState) -> Option<String> {
    let last = state.last_run_at?;
    let result = if state.last_executed_at == Some(last) {
        "passed"
    } else if state.failures.last().is_some_and(|f| f.timestamp == last) {
        "failed"
    } else {
        "error"
    };
    Some(result.to_owned())
}
