//! [`ScriptSpeaker`]: a speaker that plays a fixed list of tool calls, one per turn.
//!
//! It stands where a model would, so a scripted flow (the demo recording, `retrace do`)
//! goes through the same conversation, tools, history and recorder as a model-driven run.

use async_trait::async_trait;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::ToolUseBlock;
use serde_json::Value;

use crate::error::AgentError;
use crate::speaker::Speaker;
use crate::speaker::SpeakerResult;
use crate::speaker::SpeakerTurn;
use crate::speaker::TurnContext;

/// The name of the script speaker.
pub const SCRIPT_SPEAKER: &str = "script";

/// Plays tool calls `(tool name, input)` in order, then ends the run.
#[derive(Debug, Clone)]
pub struct ScriptSpeaker {
    calls: Vec<(String, Value)>,
    next: usize,
}

impl ScriptSpeaker {
    /// A script of tool calls.
    pub fn new(calls: Vec<(String, Value)>) -> Self {
        Self { calls, next: 0 }
    }
}

#[async_trait]
impl Speaker for ScriptSpeaker {
    fn name(&self) -> &str {
        SCRIPT_SPEAKER
    }

    fn description(&self) -> &str {
        "plays a fixed list of tool calls"
    }

    async fn handle_step(&mut self, turn: &TurnContext<'_>) -> Result<SpeakerTurn, AgentError> {
        // A tool error in the previous call ends the script: later calls assume it worked.
        if let Some(error) = turn.history.last().and_then(|m| {
            m.tool_results()
                .find(|r| r.is_error())
                .map(retrace_protocol::ToolResultBlock::text)
        }) {
            return Ok(SpeakerTurn::ending(
                Vec::new(),
                SpeakerResult::Failed(crate::speaker::StopCause::Failed(format!(
                    "script step {} failed: {error}",
                    self.next
                ))),
            ));
        }
        let Some((tool, input)) = self.calls.get(self.next).cloned() else {
            return Ok(SpeakerTurn::ending(
                vec![Message::assistant(vec![ContentBlock::text(
                    "Script finished.",
                )])],
                SpeakerResult::Done,
            ));
        };
        let id = format!("toolu_script_{:03}", self.next);
        self.next += 1;
        Ok(SpeakerTurn::continue_with(vec![Message::assistant(vec![
            ContentBlock::ToolUse(ToolUseBlock::new(id, tool, input)),
        ])]))
    }
}
