//! [`StructuredSpeaker`]: the model answering in the response schema, as a speaker of the
//! ordinary [`crate::Conversation`].
//!
//! Each turn: observe the page, ask the model (goal, steps so far, page, schema), read the
//! answer; an answer that cannot be used goes back with its errors, up to
//! [`StructuredSettings::max_attempts`] answers per step. The accepted decision becomes the
//! turn's result: a command is emitted as a `web_executor` tool_use (so the conversation
//! runs it, and history, events, recorder and replay treat it like any tool call), ABORT
//! fails the run with the model's message, PROCEED without a command ends it.

use std::sync::Arc;

use async_trait::async_trait;
use retrace_llm::MessageRequest;
use retrace_llm::VlmProvider;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::StopReason;
use retrace_protocol::ToolUseBlock;
use retrace_protocol::Usage;
use retrace_protocol::events::Event;
use retrace_protocol::tool_names;
use retrace_schema::ResponseOptions;
use retrace_schema::SchemaManager;
use retrace_schema::ValidationContext;
use serde_json::Value;

use crate::agent_speaker::call_model;
use crate::error::AgentError;
use crate::speaker::Speaker;
use crate::speaker::SpeakerResult;
use crate::speaker::SpeakerTurn;
use crate::speaker::StopCause;
use crate::speaker::TurnContext;
use crate::structured::decision::Decision;
use crate::structured::decision::Rejection;
use crate::structured::decision::read_answer;
use crate::structured::page::PageObserver;
use crate::structured::prompt;

/// The name of the structured speaker.
pub const STRUCTURED_SPEAKER: &str = "structured";

/// How the schema reaches the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaDelivery {
    /// In the system prompt (Anthropic, which has no structured-output option).
    Prompt,
    /// As the provider's structured-output option (`response_format` for OpenAI-compatible
    /// servers); the prompt keeps only the rules.
    ResponseFormat,
    /// Both.
    Both,
}

/// Settings of the structured loop.
#[derive(Debug, Clone)]
pub struct StructuredSettings {
    /// Answers asked for per step, the first included, before the run fails (at least 1).
    pub max_attempts: u32,
    /// Output token limit per answer.
    pub max_tokens: u32,
    /// Sampling temperature, when set.
    pub temperature: Option<f32>,
    /// The response schema's options.
    pub options: ResponseOptions,
    /// How the schema reaches the model.
    pub delivery: SchemaDelivery,
    /// The semantic checks' context (allowed URL schemes, limits). The session's saved
    /// variables are filled in each step, so `${unknown}` is sent back as an error.
    pub validation: ValidationContext,
}

impl Default for StructuredSettings {
    fn default() -> Self {
        Self {
            max_attempts: 3,
            max_tokens: 4096,
            temperature: None,
            options: ResponseOptions::default(),
            delivery: SchemaDelivery::Prompt,
            validation: ValidationContext::default(),
        }
    }
}

/// The speaker that asks a model for structured decisions; see the module docs.
pub struct StructuredSpeaker {
    provider: Arc<dyn VlmProvider>,
    observer: Arc<dyn PageObserver>,
    manager: Arc<SchemaManager>,
    settings: StructuredSettings,
    run_tag: String,
}

impl std::fmt::Debug for StructuredSpeaker {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("StructuredSpeaker")
            .field("model", &self.provider.model_id())
            .field("settings", &self.settings)
            .finish()
    }
}

impl StructuredSpeaker {
    /// A structured speaker over `provider`, reading the page from `observer` and checking
    /// answers with `manager` (share one per process: it caches compiled schemas).
    pub fn new(
        provider: Arc<dyn VlmProvider>,
        observer: Arc<dyn PageObserver>,
        manager: Arc<SchemaManager>,
        settings: StructuredSettings,
    ) -> Self {
        let run_tag = jiff::Timestamp::now()
            .as_microsecond()
            .rem_euclid(1_000_000_000)
            .to_string();
        Self {
            provider,
            observer,
            manager,
            settings,
            run_tag,
        }
    }

    fn request(&self, messages: Vec<Message>, schema: &Value) -> MessageRequest {
        let in_prompt = self.settings.delivery != SchemaDelivery::ResponseFormat;
        let mut request = MessageRequest::new(messages, self.settings.max_tokens)
            .with_system(prompt::system_prompt(schema, in_prompt));
        if self.settings.delivery != SchemaDelivery::Prompt {
            request = request.with_response_schema(schema.clone());
        }
        request.temperature = self.settings.temperature;
        request
    }

    /// The assistant message carrying the answer and, when it has one, its command.
    fn answer_message(&self, text: &str, turn: usize, command: Option<&Value>) -> Message {
        let mut content = vec![ContentBlock::text(text)];
        if let Some(command) = command {
            content.push(ContentBlock::ToolUse(ToolUseBlock::new(
                format!("toolu_structured_{}_{turn}", self.run_tag),
                tool_names::WEB_EXECUTOR,
                command.clone(),
            )));
        }
        Message::assistant(content)
    }
}

/// The turn that ends a step whose answers were all rejected.
fn exhausted(messages: Vec<Message>, usage: Usage, attempts: u32, last: &Rejection) -> SpeakerTurn {
    SpeakerTurn {
        usage: Some(usage),
        ..SpeakerTurn::ending(
            messages,
            SpeakerResult::Failed(StopCause::Failed(format!(
                "the model's answer was still unusable after {attempts} attempts: {}",
                last.error_lines().join("; ")
            ))),
        )
    }
}

#[async_trait]
impl Speaker for StructuredSpeaker {
    fn name(&self) -> &str {
        STRUCTURED_SPEAKER
    }

    fn description(&self) -> &str {
        "the model answering in the response schema: one decision and web command per step"
    }

    async fn handle_step(&mut self, turn: &TurnContext<'_>) -> Result<SpeakerTurn, AgentError> {
        let page = self.observer.observe().await;
        let mut validation = self.settings.validation.clone();
        validation.known_variables = Some(page.variables.keys().cloned().collect());
        let schema = self.manager.generate_response_schema(self.settings.options);
        let mut request_messages = vec![prompt::step_request(turn.history, &page)];
        let mut history_out = Vec::new();
        let mut usage = Usage::default();
        let attempts = self.settings.max_attempts.max(1);
        let mut attempt = 0;
        let (text, accepted) = loop {
            attempt += 1;
            let request = self.request(request_messages.clone(), &schema);
            let response = call_model(self.provider.as_ref(), &request, turn).await?;
            usage += response.usage;
            let text = response.text();
            let stop = match &response.stop_reason {
                StopReason::MaxTokens => Some(StopCause::MaxTokens),
                StopReason::Refusal => Some(StopCause::Refusal(text.clone())),
                StopReason::ModelContextWindowExceeded => Some(StopCause::ContextWindowExceeded),
                _ => None,
            };
            if let Some(cause) = stop {
                history_out.push(Message::assistant(vec![ContentBlock::text(text)]));
                return Ok(SpeakerTurn {
                    usage: Some(usage),
                    ..SpeakerTurn::ending(history_out, SpeakerResult::Failed(cause))
                });
            }
            match read_answer(&text, &self.manager, self.settings.options, &validation) {
                Ok(accepted) => break (text, accepted),
                Err(rejection) => {
                    turn.events.emit(Event::StructuredAnswerRejected {
                        turn: turn.turn,
                        attempt,
                        errors: rejection.error_lines(),
                    });
                    let answer = Message::assistant(vec![ContentBlock::text(text)]);
                    let correction = Message::user_text(rejection.correction_request());
                    history_out.push(answer.clone());
                    history_out.push(correction.clone());
                    if attempt >= attempts {
                        return Ok(exhausted(history_out, usage, attempt, &rejection));
                    }
                    request_messages.push(answer);
                    request_messages.push(correction);
                }
            }
        };
        let decision = accepted.decision;
        turn.events.emit(Event::StructuredDecision {
            turn: turn.turn,
            attempt,
            decision: decision.label().to_owned(),
            command: decision
                .command()
                .and_then(|command| command.get("action"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            message: decision.message().to_owned(),
        });
        let result = match &decision {
            Decision::Abort { message } if message.trim().is_empty() => SpeakerResult::Failed(
                StopCause::Failed("the model aborted without saying why".to_owned()),
            ),
            Decision::Abort { message } => {
                SpeakerResult::Failed(StopCause::Failed(message.clone()))
            }
            Decision::Proceed { command: None, .. } => SpeakerResult::Done,
            Decision::Proceed {
                command: Some(_), ..
            }
            | Decision::Retry { .. } => SpeakerResult::Continue,
        };
        history_out.push(self.answer_message(&text, turn.turn, decision.command()));
        Ok(SpeakerTurn {
            usage: Some(usage),
            ..SpeakerTurn::ending(history_out, result)
        })
    }
}
