//! [`AgentSpeaker`]: the speaker that asks the model.
//!
//! Each turn it sends the model the context view of the history (recent screenshots only),
//! the system prompt and the tools, and appends the answer. The stop reason decides what
//! comes next: tool calls continue the run, as does `pause_turn` (the answer is sent back
//! for the model to go on); a plain answer ends it; `max_tokens`, `refusal`,
//! `model_context_window_exceeded` and stop reasons retrace does not know end it with a typed
//! cause instead of being taken for success.

use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;
use retrace_llm::ConversationCache;
use retrace_llm::MessageRequest;
use retrace_llm::MessageResponse;
use retrace_llm::VlmProvider;
use retrace_protocol::Message;
use retrace_protocol::StopReason;
use retrace_protocol::events::Event;

use crate::context::ContextPolicy;
use crate::error::AgentError;
use crate::speaker::Speaker;
use crate::speaker::SpeakerResult;
use crate::speaker::SpeakerTurn;
use crate::speaker::StopCause;
use crate::speaker::TurnContext;

/// The name of the model speaker.
pub const AGENT_SPEAKER: &str = "agent";

/// The system prompt used when none is configured.
pub const DEFAULT_SYSTEM_PROMPT: &str = "\
You operate a user interface through tools, one action at a time, to reach the user's goal.
Look at the latest screenshot before every action; take a screenshot first if you have none.
Click the centre of the element you mean. After typing into a field, check it took the text.
When the goal is reached, answer with a short summary and no tool call.
If the goal cannot be reached, say why in one sentence and make no tool call.";

/// Settings of the model speaker.
#[derive(Debug, Clone)]
pub struct AgentSettings {
    /// The system prompt.
    pub system_prompt: String,
    /// Extra system prompt sections (for example how to use the cache tools).
    pub system_sections: Vec<String>,
    /// Output token limit per turn.
    pub max_tokens: u32,
    /// Sampling temperature, when set.
    pub temperature: Option<f32>,
    /// Thinking budget in tokens, when set.
    pub thinking: Option<u32>,
    /// What of the history the model sees.
    pub context: ContextPolicy,
}

impl Default for AgentSettings {
    fn default() -> Self {
        Self {
            system_prompt: DEFAULT_SYSTEM_PROMPT.into(),
            system_sections: Vec::new(),
            max_tokens: 4096,
            temperature: None,
            thinking: None,
            context: ContextPolicy::default(),
        }
    }
}

/// The speaker that asks a vision-language model what to do next.
pub struct AgentSpeaker {
    provider: Arc<dyn VlmProvider>,
    settings: AgentSettings,
}

impl std::fmt::Debug for AgentSpeaker {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("AgentSpeaker")
            .field("model", &self.provider.model_id())
            .field("settings", &self.settings)
            .finish()
    }
}

impl AgentSpeaker {
    /// A model speaker over `provider`.
    pub fn new(provider: Arc<dyn VlmProvider>, settings: AgentSettings) -> Self {
        Self { provider, settings }
    }

    fn system_prompt(&self) -> String {
        let mut prompt = self.settings.system_prompt.clone();
        for section in &self.settings.system_sections {
            prompt.push_str("\n\n");
            prompt.push_str(section);
        }
        prompt
    }
}

#[async_trait]
impl Speaker for AgentSpeaker {
    fn name(&self) -> &str {
        AGENT_SPEAKER
    }

    fn description(&self) -> &str {
        "the vision-language model: decides each action from the screenshots"
    }

    async fn handle_step(&mut self, turn: &TurnContext<'_>) -> Result<SpeakerTurn, AgentError> {
        let context = &self.settings.context;
        let view = context.view(turn.history);
        let cache = conversation_cache(context, turn.history, view.len());
        let mut request = MessageRequest::new(view, self.settings.max_tokens)
            .with_system(self.system_prompt())
            .with_tools(turn.toolbox.specs())
            .with_conversation_cache(cache);
        request.temperature = self.settings.temperature;
        request.thinking = self.settings.thinking;
        let response = call_model(self.provider.as_ref(), &request, turn).await?;
        let message = response.to_message();
        let has_tool_calls = message.tool_uses().next().is_some();
        let result = outcome(&response.stop_reason, has_tool_calls, || response.text());
        Ok(SpeakerTurn {
            usage: Some(response.usage),
            ..SpeakerTurn::ending(vec![message], result)
        })
    }
}

/// How far this turn's request caches its conversation: all of it, unless the next view
/// drops a batch of images and cannot reuse it; then only what the previous request stored
/// (the view less this turn's answer and tool results), read again and not written anew.
fn conversation_cache(
    context: &ContextPolicy,
    history: &[Message],
    view_len: usize,
) -> ConversationCache {
    if view_len > 2 && context.next_view_drops_images(history) {
        ConversationCache::Stored(view_len - 2)
    } else {
        ConversationCache::Whole
    }
}

/// What a turn that stopped for `reason` means for the run.
fn outcome(
    reason: &StopReason,
    has_tool_calls: bool,
    text: impl FnOnce() -> String,
) -> SpeakerResult {
    match reason {
        StopReason::MaxTokens => SpeakerResult::Failed(StopCause::MaxTokens),
        StopReason::Refusal => SpeakerResult::Failed(StopCause::Refusal(text())),
        StopReason::ModelContextWindowExceeded => {
            SpeakerResult::Failed(StopCause::ContextWindowExceeded)
        }
        _ if has_tool_calls => SpeakerResult::Continue,
        StopReason::PauseTurn => SpeakerResult::Continue,
        StopReason::EndTurn | StopReason::StopSequence | StopReason::ToolUse => SpeakerResult::Done,
        StopReason::Other(other) => SpeakerResult::Failed(StopCause::Failed(format!(
            "the model stopped for a reason retrace does not know (`{other}`) without a tool call"
        ))),
    }
}

/// Sends `request` to the model and reports the call (duration, usage, stop reason) as an
/// event: the one way a speaker asks the model, so every call is seen alike.
pub(crate) async fn call_model(
    provider: &dyn VlmProvider,
    request: &MessageRequest,
    turn: &TurnContext<'_>,
) -> Result<MessageResponse, AgentError> {
    let started = Instant::now();
    let response = provider
        .create_message(request)
        .await
        .map_err(|source| AgentError::Model {
            turn: turn.turn,
            source,
        })?;
    turn.events.emit(Event::ModelCall {
        turn: turn.turn,
        model: provider.model_id().to_owned(),
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        usage: response.usage,
        stop_reason: response.stop_reason.clone(),
    });
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each stop reason ends or continues the run as it should, with a message saying which.
    #[test]
    fn each_stop_reason_ends_or_continues_the_run() {
        let text = || "I cannot help with that.".to_owned();
        let cases = [
            (StopReason::EndTurn, false, SpeakerResult::Done),
            (StopReason::ToolUse, true, SpeakerResult::Continue),
            (StopReason::PauseTurn, false, SpeakerResult::Continue),
            (
                StopReason::MaxTokens,
                true,
                SpeakerResult::Failed(StopCause::MaxTokens),
            ),
            (
                StopReason::Refusal,
                false,
                SpeakerResult::Failed(StopCause::Refusal(text())),
            ),
            (
                StopReason::ModelContextWindowExceeded,
                false,
                SpeakerResult::Failed(StopCause::ContextWindowExceeded),
            ),
        ];
        for (reason, calls, expected) in cases {
            assert_eq!(outcome(&reason, calls, text), expected, "{reason:?}");
        }
        let SpeakerResult::Failed(StopCause::Failed(message)) =
            outcome(&StopReason::Other("compaction".into()), false, text)
        else {
            panic!("an unknown stop reason must not be a success");
        };
        assert!(message.contains("`compaction`"), "{message}");
    }
}
