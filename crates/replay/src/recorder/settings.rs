//! How a run is recorded ([`RecordSettings`]): hashing, parameters, where the file goes, and
//! what the page said about each step.

use std::collections::BTreeMap;
use std::path::PathBuf;

use retrace_cache::CacheStore;
use retrace_cache::ParameterValues;
use retrace_vision::Method;
use serde_json::Value;

use crate::observe::Observations;

/// The default cache directory.
pub const DEFAULT_CACHE_DIR: &str = ".retrace_cache";

/// How a run is recorded.
#[derive(Debug, Clone)]
pub struct RecordSettings {
    /// The hash of each action region (pHash by default, as askui).
    pub method: Method,
    /// The side of the square hashed around each action point, in pixels (100).
    pub region_size: u32,
    /// Hash size (8: 64-bit hashes, 16 hex digits).
    pub hash_size: u32,
    /// Preset parameter values (`--param name=value`): replaced by `{{name}}` in the inputs.
    /// Values may be secrets; they are never written.
    pub parameters: ParameterValues,
    /// Descriptions for parameters; `Parameter for <name>` (askui's) when missing.
    pub parameter_descriptions: BTreeMap<String, String>,
    /// Where cache files go.
    pub cache_dir: PathBuf,
    /// The file name; a generated one (`cached_trajectory_<time>.json`) when `None`.
    pub file_name: Option<String>,
    /// The screen size of the run (the model's); the first screenshot's size when `None`.
    pub display_size: Option<(u32, u32)>,
    /// The browser viewport, stored (`metadata.viewport`) when it differs from the display
    /// size, so a replay opens the same viewport and scales as the recording did.
    pub viewport: Option<(u32, u32)>,
    /// Whether replays should check the hashes (`visual_validation.enabled`).
    pub visual_validation: bool,
    /// Keep calls of [`retrace_protocol::tool_names::CONTROL_TOOLS`] in the trajectory (with empty inputs), as askui does.
    pub keep_control_tools: bool,
    /// What the page said about each action while the run was recorded (browser runs, see
    /// [`crate::observe`]): stored beside each step's hashes for replay's semantic checks.
    pub observations: Observations,
    /// The desktop target the run was on (`metadata.target`, see
    /// [`retrace_cache::fields::TARGET`]); `None` for a browser run.
    pub target: Option<Value>,
    /// Store the crop of each hashed region (`visual_crop`, a small PNG) so reports show
    /// what was expected on any machine. Off for regions that may show sensitive text.
    pub store_crops: bool,
}

impl Default for RecordSettings {
    fn default() -> Self {
        Self {
            method: Method::Phash,
            region_size: 100,
            hash_size: 8,
            parameters: ParameterValues::new(),
            parameter_descriptions: BTreeMap::new(),
            cache_dir: PathBuf::from(DEFAULT_CACHE_DIR),
            file_name: None,
            display_size: None,
            viewport: None,
            target: None,
            visual_validation: true,
            keep_control_tools: false,
            observations: Observations::new(),
            store_crops: true,
        }
    }
}

impl RecordSettings {
    /// The store over [`RecordSettings::cache_dir`].
    pub fn store(&self) -> CacheStore {
        CacheStore::new(&self.cache_dir)
    }
}
