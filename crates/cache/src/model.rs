//! The typed cache file: `{metadata, trajectory, cache_parameters}`, field for field the askui
//! v0.2/v0.3 layout. Every struct keeps the fields it does not know in `extra`, so a file
//! written back from this model still holds them.

use std::collections::BTreeMap;

use jiff::Timestamp;
use retrace_protocol::ToolUseBlock;
use retrace_protocol::Usage;
use serde::Deserialize;
use serde::Serialize;
use serde_json::Map;
use serde_json::Value;

use crate::timestamp;

/// The metadata version this crate writes (askui 0.45 and later write `"0.3"`).
pub const CURRENT_VERSION: &str = "0.3";

/// The version askui gives a legacy bare-list file when it reads one.
pub const LEGACY_VERSION: &str = "0.0";

/// Which on-disk layout a file had when it was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheFormat {
    /// The object layout `{metadata, trajectory, cache_parameters}` (askui 0.25 and later).
    #[default]
    Object,
    /// A bare JSON array of tool_use blocks (askui 0.24 and earlier).
    LegacyList,
}

/// A whole trajectory cache file.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheFile {
    /// Who recorded it, when, and how replays went.
    pub metadata: CacheMetadata,
    /// The recorded tool calls, in order. Inputs may hold `{{name}}` placeholders.
    pub trajectory: Vec<ToolUseBlock>,
    /// The parameters the trajectory uses: name to description. Values are never stored.
    pub cache_parameters: BTreeMap<String, String>,
    /// Top-level fields this crate does not know, kept as they came.
    pub extra: Map<String, Value>,
    /// The layout the file had on disk (not written; a rewrite uses the object layout).
    pub format: CacheFormat,
}

/// `metadata` of a cache file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheMetadata {
    /// The format version: `"0.3"` (askui 0.45+), `"0.2"`, `"0.1"`, or `"0.0"` for a legacy
    /// list.
    pub version: String,
    /// When the trajectory was recorded.
    #[serde(with = "timestamp::required")]
    pub created_at: Timestamp,
    /// The goal the agent was given; may hold `{{name}}` placeholders.
    #[serde(default)]
    pub goal: Option<String>,
    /// When a replay was last attempted, passed or not (askui 0.48 sets it on every attempt);
    /// the last pass is [`crate::fields::LAST_PASSED`].
    #[serde(default, with = "timestamp::optional")]
    pub last_executed_at: Option<Timestamp>,
    /// Tokens the recording run used.
    #[serde(default)]
    pub token_usage: Option<Usage>,
    /// How many replays were attempted (successful or not).
    #[serde(default)]
    pub execution_attempts: u64,
    /// Every replay failure, oldest first.
    #[serde(default)]
    pub failures: Vec<CacheFailure>,
    /// Whether the cache may still be replayed.
    #[serde(default = "default_true")]
    pub is_valid: bool,
    /// Why it was invalidated (`<ValidatorName>: <reason>` joined by `; `, or a user's text).
    #[serde(default)]
    pub invalidation_reason: Option<String>,
    /// How the per-step hashes were made; `None` means hashes are not checked.
    #[serde(default)]
    pub visual_validation: Option<VisualValidation>,
    /// Fields this crate does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn default_true() -> bool {
    true
}

impl CacheMetadata {
    /// Fresh metadata for a recording made now: version [`CURRENT_VERSION`], no replays yet.
    pub fn new(created_at: Timestamp, goal: Option<String>) -> Self {
        CacheMetadata {
            version: CURRENT_VERSION.to_owned(),
            created_at,
            goal,
            last_executed_at: None,
            token_usage: None,
            execution_attempts: 0,
            failures: Vec::new(),
            is_valid: true,
            invalidation_reason: None,
            visual_validation: None,
            extra: Map::new(),
        }
    }

    /// The metadata askui gives a legacy bare-list file: version `"0.0"`, created at the time
    /// of reading, nothing else.
    pub fn legacy(read_at: Timestamp) -> Self {
        CacheMetadata {
            version: LEGACY_VERSION.to_owned(),
            ..CacheMetadata::new(read_at, None)
        }
    }

    /// How many recorded failures happened at `step_index`.
    pub fn failures_at_step(&self, step_index: u64) -> u64 {
        self.failures
            .iter()
            .filter(|f| f.step_index == step_index)
            .count() as u64
    }
}

/// One replay failure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheFailure {
    /// When it happened.
    #[serde(with = "timestamp::required")]
    pub timestamp: Timestamp,
    /// The trajectory index of the step that failed.
    pub step_index: u64,
    /// What went wrong (askui: `Visual validation failed: UI has changed significantly.
    /// Hamming distance: D > threshold: T.`).
    pub error_message: String,
    /// How many failures this step had, this one included.
    pub failure_count_at_step: u64,
    /// Fields this crate does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `metadata.visual_validation`: how per-step hashes were computed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VisualValidation {
    /// Whether replays check the hashes.
    pub enabled: bool,
    /// `phash` or `ahash` (8x8, as Python imagehash).
    pub method: String,
    /// The side of the square region around the action point, in pixels.
    pub region_size: u32,
    /// Fields this crate does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The hash methods a `visual_validation.method` may name.
pub const HASH_METHODS: [&str; 2] = ["phash", "ahash"];

impl CacheFile {
    /// A new object-layout file with the given metadata and trajectory and no parameters.
    pub fn new(metadata: CacheMetadata, trajectory: Vec<ToolUseBlock>) -> Self {
        CacheFile {
            metadata,
            trajectory,
            cache_parameters: BTreeMap::new(),
            extra: Map::new(),
            format: CacheFormat::Object,
        }
    }

    /// The file as a JSON value in the askui object layout: `metadata`, `trajectory`,
    /// `cache_parameters`, then unknown top-level fields. Every step carries `type`,
    /// `cache_control`, `visual_representation` and `extra_content` (null when absent), as
    /// askui writes them.
    pub fn to_json(&self) -> Value {
        let mut top = Map::new();
        top.insert(
            "metadata".to_owned(),
            serde_json::to_value(&self.metadata).unwrap_or(Value::Null),
        );
        top.insert(
            "trajectory".to_owned(),
            Value::Array(self.trajectory.iter().map(step_to_json).collect()),
        );
        let params = self
            .cache_parameters
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        top.insert("cache_parameters".to_owned(), Value::Object(params));
        for (key, value) in &self.extra {
            top.entry(key.clone()).or_insert_with(|| value.clone());
        }
        Value::Object(top)
    }
}

/// One step in askui's key order, with its unknown fields after the known ones.
fn step_to_json(step: &ToolUseBlock) -> Value {
    let mut out = Map::new();
    out.insert("id".to_owned(), Value::String(step.id.clone()));
    out.insert("input".to_owned(), step.input.clone());
    out.insert("name".to_owned(), Value::String(step.name.clone()));
    out.insert(
        "type".to_owned(),
        step.extra
            .get("type")
            .cloned()
            .unwrap_or_else(|| Value::String("tool_use".to_owned())),
    );
    out.insert(
        "cache_control".to_owned(),
        step.extra
            .get("cache_control")
            .cloned()
            .unwrap_or(Value::Null),
    );
    out.insert(
        "visual_representation".to_owned(),
        step.visual_representation
            .clone()
            .map_or(Value::Null, Value::String),
    );
    out.insert(
        "extra_content".to_owned(),
        step.extra
            .get("extra_content")
            .cloned()
            .unwrap_or(Value::Null),
    );
    for (key, value) in &step.extra {
        out.entry(key.clone()).or_insert_with(|| value.clone());
    }
    Value::Object(out)
}
