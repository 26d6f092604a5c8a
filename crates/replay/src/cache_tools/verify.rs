//! `verify_cache_execution`: the model's verdict on a replay, written to the file's metadata.

use std::sync::Arc;

use async_trait::async_trait;
use retrace_cache::CacheMetadata;
use retrace_cache::CacheStore;
use retrace_cache::MetadataUpdate;
use retrace_cache::Validators;
use retrace_cache::apply_update;
use retrace_cache::format_timestamp;
use retrace_protocol::tool_names::VERIFY_CACHE_EXECUTION;
use serde_json::Value;
use serde_json::json;

use super::file_input::FILE_KEY;
use super::file_input::file_name;
use super::file_input::file_property;
use crate::ledger::ReplayLedger;
use retrace_drive::tool::Tool;
use retrace_drive::tool::ToolError;
use retrace_drive::tool::ToolOutput;

/// The metadata field holding the last verdict: `{timestamp, success, notes}`.
pub use retrace_cache::fields::LAST_VERIFICATION as VERIFICATION_FIELD;

/// Notes are cut to this many characters before they are written.
const MAX_NOTES: usize = 1000;

/// Records whether a replay reached its goal, as askui 0.48's `verify_cache_execution` does,
/// plus the verdict and notes in [`VERIFICATION_FIELD`]: a successful verdict counts an
/// attempt ([`MetadataUpdate::RecordCompletion`]: `last_executed_at`, and retrace's
/// `last_passed_at`); an unsuccessful one invalidates the file with askui's reason
/// (`Agent reported unsuccessful cache execution: <notes>`,
/// [`MetadataUpdate::RecordUnsuccessful`]) and adds no failure. A replay the cache executor
/// already counted (see [`ReplayLedger`]) is not counted again.
pub struct VerifyCacheExecutionTool {
    store: Arc<CacheStore>,
    validators: Validators,
    ledger: Option<Arc<ReplayLedger>>,
}

impl std::fmt::Debug for VerifyCacheExecutionTool {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("VerifyCacheExecutionTool")
            .field("store", &self.store)
            .finish_non_exhaustive()
    }
}

impl VerifyCacheExecutionTool {
    /// The tool over `store` with askui's default validators.
    pub fn new(store: Arc<CacheStore>) -> Self {
        Self {
            store,
            validators: Validators::default(),
            ledger: None,
        }
    }

    /// The same tool reading `ledger`: a verdict on a replay the cache executor already
    /// counted (it ran to its end) amends that attempt instead of counting another.
    pub fn with_ledger(mut self, ledger: Arc<ReplayLedger>) -> Self {
        self.ledger = Some(ledger);
        self
    }

    /// The same tool with other validators.
    pub fn with_validators(mut self, validators: Validators) -> Self {
        self.validators = validators;
        self
    }
}

#[async_trait]
impl Tool for VerifyCacheExecutionTool {
    fn name(&self) -> &str {
        VERIFY_CACHE_EXECUTION
    }

    fn description(&self) -> &str {
        "After a replay of a recorded trajectory, say whether it reached the goal (look at the \
         screen first). success: true or false, with a short note on what you saw. This is \
         written to the trajectory's metadata; failed replays can invalidate it."
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                FILE_KEY: file_property(),
                "success": {"type": "boolean", "description": "Whether the replay reached the goal."},
                "notes": {"type": "string", "description": "What you saw, in a sentence."}
            },
            "required": [FILE_KEY, "success"],
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
        let Some(success) = input.get("success").and_then(Value::as_bool) else {
            return Err(ToolError::for_model(
                "`success` (true or false) is required",
            ));
        };
        let notes: Option<String> = match input.get("notes") {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) => Some(text.chars().take(MAX_NOTES).collect()),
            Some(_) => return Err(ToolError::for_model("`notes` must be a string")),
        };
        let now = jiff::Timestamp::now();
        let counted = match (&self.ledger, self.store.resolve(name)) {
            (Some(ledger), Ok(path)) => ledger.take(&path),
            _ => false,
        };
        let update = match (counted, success) {
            (false, true) => Some(MetadataUpdate::RecordCompletion { success }),
            (true, true) => None,
            (counted, false) => Some(MetadataUpdate::RecordUnsuccessful {
                notes: notes.clone().unwrap_or_else(|| "no notes given".to_owned()),
                counted,
            }),
        };
        let result = self.store.update_metadata(name, |metadata| {
            let was_valid = metadata.get("is_valid") != Some(&Value::Bool(false));
            let reason = match &update {
                Some(update) => apply_update(metadata, update, &self.validators, now)?,
                None => None,
            };
            metadata.insert(
                VERIFICATION_FIELD.to_owned(),
                json!({"timestamp": format_timestamp(now), "success": success, "notes": notes}),
            );
            let typed: CacheMetadata = serde_json::from_value(Value::Object(metadata.clone()))
                .map_err(|error| format!("metadata no longer parses: {error}"))?;
            Ok((
                typed.execution_attempts,
                was_valid && reason.is_none(),
                typed.invalidation_reason,
                reason,
            ))
        });
        let (attempts, valid, old_reason, new_reason) = match result {
            Ok(outcome) => outcome,
            Err(error) => return Err(ToolError::for_model(error.to_string())),
        };
        let verdict = if success {
            "a successful"
        } else {
            "an unsuccessful"
        };
        let state = match (new_reason, valid) {
            (Some(reason), _) => format!("This invalidated the trajectory: {reason}."),
            (None, true) => "The trajectory stays valid.".to_owned(),
            (None, false) => format!(
                "The trajectory was already invalid ({}).",
                old_reason.as_deref().unwrap_or("no reason given")
            ),
        };
        Ok(ToolOutput::text(format!(
            "Recorded {verdict} replay of {name} (attempt {attempts}){}. {state}",
            if notes.is_some() {
                " with your notes"
            } else {
                ""
            }
        )))
    }
}
