//! `inspect_cache_metadata`: everything recorded about one trajectory's replays.

use std::sync::Arc;

use async_trait::async_trait;
use retrace_cache::CacheStore;
use retrace_protocol::tool_names::INSPECT_CACHE_METADATA;
use serde_json::Value;
use serde_json::json;

use super::file_input::FILE_KEY;
use super::file_input::file_name;
use super::file_input::file_property;
use retrace_drive::tool::Tool;
use retrace_drive::tool::ToolError;
use retrace_drive::tool::ToolOutput;

/// Shows one cache file's metadata (attempts, failures, validity) and parameters.
#[derive(Debug, Clone)]
pub struct InspectCacheMetadataTool {
    store: Arc<CacheStore>,
}

impl InspectCacheMetadataTool {
    /// The tool over `store`.
    pub fn new(store: Arc<CacheStore>) -> Self {
        Self { store }
    }
}

#[async_trait]
impl Tool for InspectCacheMetadataTool {
    fn name(&self) -> &str {
        INSPECT_CACHE_METADATA
    }

    fn description(&self) -> &str {
        "Show the metadata of one recorded trajectory: goal, replay attempts, failures (step, \
         message), validity and invalidation reason, and its parameters."
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {FILE_KEY: file_property()},
            "required": [FILE_KEY],
            "additionalProperties": false
        })
    }

    fn cacheable(&self) -> bool {
        false
    }

    async fn call(&self, input: Value) -> Result<ToolOutput, ToolError> {
        let name = match file_name(&input) {
            Ok(name) => name,
            Err(message) => return Err(ToolError::for_model(message)),
        };
        let file = match self.store.read(name) {
            Ok(file) => file,
            Err(error) => return Err(ToolError::for_model(error.to_string())),
        };
        let report = json!({
            "trajectory_file": name,
            "steps": file.trajectory.len(),
            "cache_parameters": file.cache_parameters,
            "metadata": file.metadata,
        });
        Ok(ToolOutput::text(
            serde_json::to_string_pretty(&report).unwrap_or_else(|_| report.to_string()),
        ))
    }
}
