//! [`load_suite`]: from what the user asked (`retrace run` paths, a suite file, flags) to the
//! tests to run: discovery, the suite file and its layers, one plan per file, then the
//! `--grep` and `--tag` filters, then the shard. Everything that can be wrong with the input is found here,
//! before any browser starts.

use std::path::Path;
use std::path::PathBuf;

use super::config::Defaults;
use super::config::SuiteFile;
use super::config::load_params_file;
use super::config::overrides;
use super::discover::discover;
use super::error::SuiteError;
use super::plan::PlanInputs;
use super::plan::TestPlan;
use super::shard::ShardSelection;
use super::shard::assign;

/// What the user asked for.
#[derive(Debug, Clone, Default)]
pub struct SuiteRequest {
    /// Files, folders and globs (none: `.retrace_cache/`).
    pub paths: Vec<PathBuf>,
    /// The suite file, when one is used.
    pub suite_file: Option<PathBuf>,
    /// Settings given as flags (override the environment and the file).
    pub flags: Defaults,
    /// `--params-file`.
    pub params_file: Option<PathBuf>,
    /// `--param NAME=VALUE`.
    pub params: Vec<(String, String)>,
    /// `--secret NAME`.
    pub secrets: Vec<String>,
    /// `--grep`: a regular expression the test's path must match.
    pub grep: Option<String>,
    /// `--tag`: tests with any of these tags.
    pub tags: Vec<String>,
    /// `--shard` (or the CI's shard variables): run only this part of the tests the filters
    /// keep.
    pub shard: Option<ShardSelection>,
}

/// The tests to run and how.
#[derive(Debug, Clone)]
pub struct LoadedSuite {
    /// The suite's name: its root folder's name.
    pub name: String,
    /// The folder of the suite file (the current one without a suite file).
    pub root: PathBuf,
    /// The folder whose `.retrace_state/` keeps every test's runs: the suite file's; `None`
    /// without a suite file: each file's [`crate::replay_state::state_root`], where `retrace
    /// replay` keeps it (the current folder for a file inside it, else the file's own).
    pub state_root: Option<PathBuf>,
    /// The tests that passed the filters and belong to this shard, in order.
    pub plans: Vec<TestPlan>,
    /// The shard run, when sharded.
    pub shard: Option<ShardSelection>,
    /// When sharded: every test that passed the filters (this shard's and the others'), by
    /// id, with its shard, in order.
    pub assignment: Vec<(String, u32)>,
    /// Tests at once.
    pub jobs: usize,
    /// Attempts after an infrastructure error.
    pub retries: u32,
}

/// The most tests run at once by default, however many cores: each is a page rendering in
/// one shared Chromium.
pub const MAX_DEFAULT_JOBS: usize = 8;

/// Tests run at once when nobody says: twice the cores (a replay mostly waits for its page),
/// at most [`MAX_DEFAULT_JOBS`].
pub fn default_jobs() -> usize {
    std::thread::available_parallelism()
        .map_or(2, |cores| cores.get().saturating_mul(2))
        .clamp(1, MAX_DEFAULT_JOBS)
}

/// Loads the suite `request` asks for, reading parameter values from the environment through
/// `env` (the `RETRACE_*` settings are read from the process environment).
pub fn load_suite(
    request: &SuiteRequest,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<LoadedSuite, SuiteError> {
    let suite = match &request.suite_file {
        Some(path) => SuiteFile::load(path)?,
        None => SuiteFile::default(),
    };
    let root = request
        .suite_file
        .as_deref()
        .and_then(Path::parent)
        .filter(|parent| !parent.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let params_file = match &request.params_file {
        Some(path) => load_params_file(path, |name| {
            suite.is_secret(name) || request.secrets.iter().any(|s| s == name)
        })?,
        None => Default::default(),
    };
    let inputs = PlanInputs {
        root: root.clone(),
        overrides: overrides(&request.flags)?,
        suite,
        params_file,
        flag_params: request.params.clone(),
        flag_secrets: request.secrets.clone(),
    };
    let grep = request
        .grep
        .as_deref()
        .map(regex::Regex::new)
        .transpose()
        .map_err(|error| SuiteError::Filter(format!("--grep: {error}")))?;
    let plans: Vec<TestPlan> = discover(&request.paths)?
        .iter()
        .map(|file| inputs.plan(file, env))
        .filter(|plan| grep.as_ref().is_none_or(|grep| grep.is_match(&plan.id)))
        .filter(|plan| {
            request.tags.is_empty() || plan.tags.iter().any(|tag| request.tags.contains(tag))
        })
        .collect();
    let (plans, assignment) = match &request.shard {
        None => (plans, Vec::new()),
        Some(selection) => {
            let ids: Vec<&str> = plans.iter().map(|plan| plan.id.as_str()).collect();
            let shards = assign(&ids, selection.shard.total, selection.mode);
            let assignment = plans
                .iter()
                .zip(&shards)
                .map(|(plan, shard)| (plan.id.clone(), *shard))
                .collect();
            let mine = plans
                .into_iter()
                .zip(shards)
                .filter(|(_, shard)| *shard == selection.shard.index)
                .map(|(plan, _)| plan)
                .collect();
            (mine, assignment)
        }
    };
    let defaults = inputs.defaults();
    let name = std::path::absolute(&root)
        .ok()
        .and_then(|root| {
            root.file_name()
                .map(|name| name.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "suite".into());
    Ok(LoadedSuite {
        name,
        state_root: request.suite_file.is_some().then(|| root.clone()),
        root,
        plans,
        shard: request.shard.clone(),
        assignment,
        jobs: defaults.jobs.unwrap_or_else(default_jobs).max(1),
        retries: defaults.retries.unwrap_or(0),
    })
}
