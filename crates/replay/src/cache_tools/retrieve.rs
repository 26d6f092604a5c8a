//! `retrieve_available_trajectories_tool`: the trajectories the model may replay.

use std::sync::Arc;

use async_trait::async_trait;
use retrace_cache::CacheFile;
use retrace_cache::CacheStore;
use retrace_cache::format_timestamp;
use retrace_protocol::tool_names::RETRIEVE_TRAJECTORIES;
use serde_json::Value;
use serde_json::json;

use retrace_drive::tool::Tool;
use retrace_drive::tool::ToolError;
use retrace_drive::tool::ToolOutput;

/// Lists the cache files: goal, parameters, validity, step count, last run and last passed run of
/// each. Invalidated files are hidden unless `include_invalid` is true.
#[derive(Debug, Clone)]
pub struct RetrieveTrajectoriesTool {
    store: Arc<CacheStore>,
}

impl RetrieveTrajectoriesTool {
    /// The tool over `store`.
    pub fn new(store: Arc<CacheStore>) -> Self {
        Self { store }
    }
}

/// One line describing a cache file.
pub(crate) fn describe(name: &str, file: &CacheFile) -> String {
    let goal = file.metadata.goal.as_deref().map_or_else(
        || "(no goal recorded)".to_owned(),
        |goal| format!("{goal:?}"),
    );
    let parameters = if file.cache_parameters.is_empty() {
        "none".to_owned()
    } else {
        file.cache_parameters
            .keys()
            .cloned()
            .collect::<Vec<_>>()
            .join(", ")
    };
    let validity = if file.metadata.is_valid {
        "valid".to_owned()
    } else {
        format!(
            "INVALID ({})",
            file.metadata
                .invalidation_reason
                .as_deref()
                .unwrap_or("no reason given")
        )
    };
    // `last_executed_at` is any attempt (askui); a pass is retrace's own field, absent
    // from files askui wrote.
    let last_pass = retrace_cache::fields::last_passed_at(&file.metadata)
        .map_or_else(|| "not recorded".to_owned(), format_timestamp);
    let last_run = file
        .metadata
        .last_executed_at
        .map_or_else(|| "never".to_owned(), format_timestamp);
    format!(
        "- {name}: goal {goal}; parameters: {parameters}; {} steps; {validity}; {} replays, {} failures; last replay: {last_run}; last passed: {last_pass}",
        file.trajectory.len(),
        file.metadata.execution_attempts,
        file.metadata.failures.len(),
    )
}

#[async_trait]
impl Tool for RetrieveTrajectoriesTool {
    fn name(&self) -> &str {
        RETRIEVE_TRAJECTORIES
    }

    fn description(&self) -> &str {
        "List the recorded trajectories you can replay, with each one's goal, parameters, validity, \
         number of steps, last replay and last passed replay. Invalidated trajectories are hidden unless \
         include_invalid is true."
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "include_invalid": {"type": "boolean", "description": "Also list invalidated trajectories (default false)."}
            },
            "additionalProperties": false
        })
    }

    fn cacheable(&self) -> bool {
        false
    }

    async fn call(&self, input: Value) -> Result<ToolOutput, ToolError> {
        let include_invalid = match input.get("include_invalid") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(flag)) => *flag,
            Some(_) => {
                return Err(ToolError::for_model(
                    "`include_invalid` must be true or false",
                ));
            }
        };
        let listing = match self.store.list(include_invalid) {
            Ok(listing) => listing,
            Err(error) => {
                return Err(ToolError::for_model(format!(
                    "cannot list the trajectories: {error}"
                )));
            }
        };
        let dir = self.store.dir().display();
        let mut text = if listing.entries.is_empty() {
            format!("No recorded trajectories in {dir}.")
        } else {
            format!("{} recorded trajectories in {dir}:", listing.entries.len())
        };
        for entry in &listing.entries {
            text.push('\n');
            text.push_str(&describe(&entry.name, &entry.file));
        }
        if listing.hidden_invalid > 0 {
            text.push_str(&format!(
                "\n{} invalidated trajectories hidden (call again with include_invalid: true to see them).",
                listing.hidden_invalid
            ));
        }
        for problem in &listing.problems {
            text.push_str(&format!("\nUnreadable: {problem}"));
        }
        Ok(ToolOutput::text(text))
    }
}
