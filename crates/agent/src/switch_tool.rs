//! The `switch_speaker` tool: lets the model hand the conversation to another speaker.

use async_trait::async_trait;
use retrace_protocol::tool_names::SWITCH_SPEAKER;
use serde_json::Value;
use serde_json::json;

use crate::speaker::SpeakerContext;
use retrace_drive::tool::SwitchRequest;
use retrace_drive::tool::Tool;
use retrace_drive::tool::ToolError;
use retrace_drive::tool::ToolOutput;

/// Hands the conversation to a named speaker after this turn.
#[derive(Debug, Clone)]
pub struct SwitchSpeakerTool {
    roster: Vec<(String, String)>,
    description: String,
}

impl SwitchSpeakerTool {
    /// A switch tool for these speakers (name, description).
    pub fn new(roster: Vec<(String, String)>) -> Self {
        let list = roster
            .iter()
            .map(|(name, what)| format!("- {name}: {what}"))
            .collect::<Vec<_>>()
            .join("\n");
        let description = format!(
            "Hand the conversation to another speaker after this turn. Speakers:\n{list}\nPass `context` with what that speaker needs."
        );
        Self {
            roster,
            description,
        }
    }
}

#[async_trait]
impl Tool for SwitchSpeakerTool {
    fn name(&self) -> &str {
        SWITCH_SPEAKER
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn input_schema(&self) -> Value {
        let names: Vec<&str> = self.roster.iter().map(|(name, _)| name.as_str()).collect();
        json!({
            "type": "object",
            "properties": {
                "speaker": {"type": "string", "enum": names, "description": "The speaker to hand over to."},
                "context": {"type": "object", "description": "What the speaker needs (for example a trajectory file)."}
            },
            "required": ["speaker"],
            "additionalProperties": false
        })
    }

    fn cacheable(&self) -> bool {
        false
    }

    async fn call(&self, input: Value) -> Result<ToolOutput, ToolError> {
        let names = || {
            self.roster
                .iter()
                .map(|(name, _)| name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let Some(speaker) = input.get("speaker").and_then(Value::as_str) else {
            return Err(ToolError::for_model(format!(
                "`speaker` (a string) is required; speakers: {}",
                names()
            )));
        };
        if !self.roster.iter().any(|(name, _)| name == speaker) {
            return Err(ToolError::for_model(format!(
                "no speaker named `{speaker}`; speakers: {}",
                names()
            )));
        }
        let context = input
            .get("context")
            .cloned()
            .map_or_else(SpeakerContext::none, SpeakerContext::of);
        let mut reply = ToolOutput::text(format!("Switching to {speaker}."));
        reply.switch_to = Some(SwitchRequest {
            speaker: speaker.to_owned(),
            context,
            reason: "requested by the model".into(),
        });
        Ok(reply)
    }
}
