//! `execute_cached_executions_tool`: hands the run to the cache executor to replay a file.

use std::sync::Arc;

use async_trait::async_trait;
use retrace_cache::CacheError;
use retrace_cache::CacheStore;
use retrace_cache::ParameterValues;
use retrace_cache::params::substitute_trajectory;
use retrace_protocol::tool_names::EXECUTE_CACHED_TRAJECTORY;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use super::file_input::FILE_KEY;
use super::file_input::file_name;
use super::file_input::file_property;
use crate::request::ReplayRequest;
use crate::speaker::CACHE_EXECUTOR;
use retrace_agent::speaker::SpeakerContext;
use retrace_drive::tool::SwitchRequest;
use retrace_drive::tool::Tool;
use retrace_drive::tool::ToolError;
use retrace_drive::tool::ToolOutput;

/// Checks a replay request (the file exists inside the cache directory, is valid, every
/// parameter has a value, the start step exists) and hands the conversation to the replay
/// speaker with a [`ReplayRequest`].
#[derive(Debug, Clone)]
pub struct ExecuteCachedTrajectoryTool {
    store: Arc<CacheStore>,
}

impl ExecuteCachedTrajectoryTool {
    /// The tool over `store`.
    pub fn new(store: Arc<CacheStore>) -> Self {
        Self { store }
    }
}

/// The `parameter_values` object as strings (numbers and booleans are accepted as text).
fn parameter_values(input: &Value) -> Result<Map<String, Value>, String> {
    let Some(given) = input.get("parameter_values").filter(|v| !v.is_null()) else {
        return Ok(Map::new());
    };
    let Value::Object(given) = given else {
        return Err("`parameter_values` must be an object of {\"name\": \"value\"}".to_owned());
    };
    let mut values = Map::new();
    let mut bad = Vec::new();
    for (name, value) in given {
        match value {
            Value::String(text) => values.insert(name.clone(), Value::String(text.clone())),
            Value::Number(number) => values.insert(name.clone(), Value::String(number.to_string())),
            Value::Bool(flag) => values.insert(name.clone(), Value::String(flag.to_string())),
            _ => {
                bad.push(name.as_str());
                None
            }
        };
    }
    if bad.is_empty() {
        Ok(values)
    } else {
        Err(format!(
            "parameter values must be strings; not a string: {}",
            bad.join(", ")
        ))
    }
}

#[async_trait]
impl Tool for ExecuteCachedTrajectoryTool {
    fn name(&self) -> &str {
        EXECUTE_CACHED_TRAJECTORY
    }

    fn description(&self) -> &str {
        "Replay a recorded trajectory instead of acting step by step. Give the file name, a value \
         for every parameter it lists, and optionally the step index to start from. The replay \
         checks the screen before each step and hands back to you when it ends or a step does \
         not match."
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                FILE_KEY: file_property(),
                "parameter_values": {
                    "type": "object",
                    "additionalProperties": {"type": "string"},
                    "description": "A value for every parameter of the trajectory: {\"name\": \"value\"}."
                },
                "start_from_step_index": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "The trajectory step to start at (default 0), for resuming a replay."
                }
            },
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
        let path = match self.store.resolve(name) {
            Ok(path) => path,
            Err(error) => return Err(ToolError::for_model(error.to_string())),
        };
        let file = match self.store.read(name) {
            Ok(file) => file,
            Err(error) => return Err(ToolError::for_model(error.to_string())),
        };
        if !file.metadata.is_valid {
            return Err(ToolError::for_model(format!(
                "trajectory {name} is invalidated ({}); do not replay it, do the task yourself",
                file.metadata
                    .invalidation_reason
                    .as_deref()
                    .unwrap_or("no reason given")
            )));
        }
        let values = match parameter_values(&input) {
            Ok(values) => values,
            Err(message) => return Err(ToolError::for_model(message)),
        };
        let start = match input.get("start_from_step_index") {
            None | Some(Value::Null) => 0,
            Some(value) => match value.as_u64().and_then(|n| usize::try_from(n).ok()) {
                Some(n) if n < file.trajectory.len() => n,
                _ => {
                    return Err(ToolError::for_model(format!(
                        "`start_from_step_index` must be an integer from 0 to {} (trajectory {name} has {} steps)",
                        file.trajectory.len().saturating_sub(1),
                        file.trajectory.len()
                    )));
                }
            },
        };
        let typed: ParameterValues = values
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
            .collect();
        match substitute_trajectory(&file.trajectory, &typed) {
            Ok(_) => {}
            Err(CacheError::MissingParameters { names }) => {
                return Err(ToolError::for_model(format!(
                    "trajectory {name} needs values for these parameters: {}; pass them in parameter_values",
                    names.join(", ")
                )));
            }
            Err(error) => return Err(ToolError::for_model(format!("trajectory {name}: {error}"))),
        }
        let names = if values.is_empty() {
            "no parameters".to_owned()
        } else {
            format!(
                "parameters {}",
                values.keys().cloned().collect::<Vec<_>>().join(", ")
            )
        };
        let mut reply = ToolOutput::text(format!(
            "Replaying {name} from step {start} of {} with {names}. The cache executor takes over now; \
             when it hands back, check the screen and call verify_cache_execution.",
            file.trajectory.len()
        ));
        reply.switch_to = Some(SwitchRequest {
            speaker: CACHE_EXECUTOR.to_owned(),
            context: SpeakerContext::of(
                ReplayRequest::new(path)
                    .with_parameters(typed)
                    .starting_at(start),
            ),
            reason: format!("the model asked to replay {name}"),
        });
        Ok(reply)
    }
}
