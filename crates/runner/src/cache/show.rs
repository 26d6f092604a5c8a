//! `retrace cache show`: one cache file in full, read as given and never modified: its
//! metadata, parameters, failures and one [`Step`] per step.

use std::path::Path;

use retrace_cache::CacheFormat;
use retrace_cache::DEFAULT_MAX_FILE_SIZE;
use retrace_cache::format_timestamp;
use retrace_cache::read_cache_file;
use retrace_cache::summarize;
use retrace_protocol::Usage;
use serde_json::Value;
use serde_json::json;

use crate::failure::Failure;

/// A replay failure the file records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedFailure {
    /// When (RFC 3339).
    pub timestamp: String,
    /// The step it failed at.
    pub step_index: u64,
    /// How many failures that step had then.
    pub failure_count_at_step: u64,
    /// What went wrong.
    pub error_message: String,
}

/// One step, summed up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Its 1-based position.
    pub step: usize,
    /// The tool name without askui's suffix (`move_mouse`).
    pub base_tool: String,
    /// The input's `action`, or its other fields in short form; empty for an empty input.
    pub action: String,
    /// The point it acts on.
    pub point: Option<(i64, i64)>,
    /// The recorded hash.
    pub hash: Option<String>,
}

/// A cache file, as `cache show` shows it.
#[derive(Debug, Clone)]
pub struct Shown {
    /// A legacy list (no metadata) rather than an object.
    pub legacy_list: bool,
    /// The format version (read as, for a legacy list).
    pub version: String,
    /// The goal.
    pub goal: Option<String>,
    /// When it was created (RFC 3339).
    pub created: String,
    /// When it was last replayed.
    pub last_replay: Option<String>,
    /// When a replay of it last passed.
    pub last_passed: Option<String>,
    /// Replays counted.
    pub attempts: u64,
    /// Replay failures recorded, oldest first.
    pub failures: Vec<RecordedFailure>,
    /// Whether it is valid.
    pub is_valid: bool,
    /// Why not, when it is not.
    pub invalidation_reason: Option<String>,
    /// The hash method and region side, when visual validation is on.
    pub visual_validation: Option<(String, u32)>,
    /// The tokens its recording spent.
    pub token_usage: Option<Usage>,
    /// Its parameters and their descriptions.
    pub parameters: Vec<(String, String)>,
    /// Its steps.
    pub steps: Vec<Step>,
    /// The file as `--json` shows it.
    document: Value,
}

impl Shown {
    /// The file as one JSON document (`--json`).
    pub fn to_json(&self) -> &Value {
        &self.document
    }
}

/// Reads the file at `path` for showing.
pub fn show(path: &Path) -> Result<Shown, Failure> {
    let file = read_cache_file(path, DEFAULT_MAX_FILE_SIZE).map_err(Failure::of)?;
    let summaries = summarize(&file.trajectory);
    let document = json!({
        "file": path.display().to_string(),
        "format": file.format,
        "metadata": file.metadata,
        "cache_parameters": file.cache_parameters,
        "steps": summaries,
    });
    let meta = &file.metadata;
    Ok(Shown {
        legacy_list: file.format == CacheFormat::LegacyList,
        version: meta.version.clone(),
        goal: meta.goal.clone(),
        created: format_timestamp(meta.created_at),
        last_replay: meta.last_executed_at.map(format_timestamp),
        last_passed: retrace_cache::fields::last_passed_at(meta).map(format_timestamp),
        attempts: meta.execution_attempts,
        failures: meta
            .failures
            .iter()
            .map(|failure| RecordedFailure {
                timestamp: format_timestamp(failure.timestamp),
                step_index: failure.step_index,
                failure_count_at_step: failure.failure_count_at_step,
                error_message: failure.error_message.clone(),
            })
            .collect(),
        is_valid: meta.is_valid,
        invalidation_reason: meta.invalidation_reason.clone(),
        visual_validation: meta
            .visual_validation
            .as_ref()
            .filter(|vv| vv.enabled)
            .map(|vv| (vv.method.clone(), vv.region_size)),
        token_usage: meta.token_usage,
        parameters: file
            .cache_parameters
            .iter()
            .map(|(name, description)| (name.clone(), description.clone()))
            .collect(),
        steps: summaries
            .into_iter()
            .map(|s| Step {
                step: s.step,
                base_tool: s.base_tool,
                action: s.action,
                point: s.point,
                hash: s.hash,
            })
            .collect(),
        document,
    })
}
