//! `approve`: an intended change accepted, as `retrace approve` and `retrace check approve`
//! do: a trajectory's failed step re-recorded from its last failed run
//! (`crate::approve`), or the candidate's shots stored as a check's baseline
//! (`crate::check::approve_check_baseline`).

use std::path::Path;
use std::path::PathBuf;

use crate::ApproveRequest;
use crate::suite::config::suite_file_path;
use rmcp::model::CallToolResult;
use rmcp::model::Tool;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use super::check;
use super::declaration::declare;
use super::shared_args::shown;
use crate::mcp::call::CallContext;
use crate::mcp::call::ToolError;
use crate::mcp::state::SharedState;

/// The tool's name.
pub const NAME: &str = "approve";

const DESCRIPTION: &str = "Accept an intended change. With `file`: re-record the step of a \
trajectory that its last failed `run` failed at, from what that run saw (only that step; \
`step`, when given, must be it); the previous file is kept beside it. With `baseline_dir` \
and `candidate`: store the candidate's shots of `pages` in `baseline_dir` as the baseline \
that later `check` calls (with `baseline` set to that folder) compare against. Give exactly \
one of `file` and `baseline_dir`.";

/// `approve`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The trajectory whose failed step to re-record.
    #[serde(default)]
    pub file: Option<String>,
    /// Only this 1-based step: it must be the one the last failed run failed at.
    #[serde(default)]
    pub step: Option<usize>,
    /// The suite file whose folder holds .retrace_state/ (default: ./retrace.toml when it
    /// exists, the working folder either way).
    #[serde(default)]
    pub suite: Option<String>,
    /// A folder to store the candidate's shots in, as a check's baseline.
    #[serde(default)]
    pub baseline_dir: Option<String>,
    /// The candidate's base URL, with `baseline_dir`.
    #[serde(default)]
    pub candidate: Option<String>,
    /// Page paths, with `baseline_dir` (default `["/"]`).
    #[serde(default)]
    pub pages: Vec<String>,
    /// Viewports `WIDTHxHEIGHT`, with `baseline_dir` (default `["1280x720"]`).
    #[serde(default)]
    pub viewports: Vec<String>,
}

/// `approve`'s result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    /// `trajectory` or `check_baseline`.
    pub approved: String,
    /// The rewritten trajectory.
    pub file: Option<String>,
    /// The step re-recorded.
    pub step: Option<usize>,
    /// The step's fields written.
    pub fields: Vec<String>,
    /// Where the trajectory's previous version was kept.
    pub previous: Option<String>,
    /// The baseline files stored.
    pub stored: Vec<String>,
}

/// The declaration.
pub fn tool() -> Tool {
    declare::<Input, Output>(NAME, DESCRIPTION)
}

/// Approves.
pub async fn call(
    shared: &SharedState,
    input: Input,
    context: &CallContext,
) -> Result<CallToolResult, ToolError> {
    let output = match (&input.file, &input.baseline_dir) {
        (Some(file), None) => approve_step(file, &input).await?,
        (None, Some(dir)) => approve_baseline(shared, dir, &input).await?,
        (Some(_), Some(_)) => {
            return Err(ToolError::argument(
                "baseline_dir",
                "give `file` (a trajectory) or `baseline_dir` (a check's baseline), not both",
            ));
        }
        (None, None) => {
            return Err(ToolError::argument(
                "file",
                "give `file` (a trajectory) or `baseline_dir` (a check's baseline)",
            ));
        }
    };
    context.result(&output, Vec::new())
}

async fn approve_step(file: &str, input: &Input) -> Result<Output, ToolError> {
    let suite = suite_file_path(input.suite.as_deref().map(Path::new));
    let root = crate::replay_state::state_root_in_suite(suite.as_deref(), Path::new(file));
    let request = ApproveRequest {
        file: PathBuf::from(file),
        root,
        step: input.step,
    };
    let approved = tokio::task::spawn_blocking(move || crate::approve(&request))
        .await
        .map_err(ToolError::failed)?
        .map_err(ToolError::failed)?;
    Ok(Output {
        approved: "trajectory".into(),
        file: Some(shown(&approved.path)),
        step: Some(approved.step),
        fields: approved.fields.iter().map(|f| (*f).to_owned()).collect(),
        previous: approved.previous.as_deref().map(shown),
        stored: Vec::new(),
    })
}

async fn approve_baseline(
    shared: &SharedState,
    dir: &str,
    input: &Input,
) -> Result<Output, ToolError> {
    let Some(candidate) = &input.candidate else {
        return Err(ToolError::argument(
            "candidate",
            "give the candidate's base URL whose shots become the baseline",
        ));
    };
    let check_input = check::Input {
        baseline: dir.to_owned(),
        candidate: candidate.clone(),
        pages: input.pages.clone(),
        viewports: input.viewports.clone(),
        masks: Vec::new(),
        max_diff_ratio: None,
        retries: None,
        viewport_only: false,
        out: None,
        login: None,
        login_path: None,
        storage_state: None,
    };
    let spec = check::spec_of(shared, &check_input)?;
    let stored = crate::check::approve_check_baseline(
        &spec,
        Path::new(dir),
        shared.settings.browser.clone(),
    )
    .await
    .map_err(ToolError::failed)?;
    Ok(Output {
        approved: "check_baseline".into(),
        file: None,
        step: None,
        fields: Vec::new(),
        previous: None,
        stored: stored.iter().map(|path| shown(path)).collect(),
    })
}
