//! What is asked of a model ([`MessageRequest`]) and what comes back ([`MessageResponse`]),
//! independent of any vendor's wire format.

use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::StopReason;
use retrace_protocol::Usage;
use retrace_protocol::tool_spec::ToolSpec;
use serde_json::Value;

/// One request to a model: a conversation and the tools the model may call.
///
/// Build it with [`MessageRequest::new`] and the `with_*` methods. `messages` is the
/// conversation as recorded; each provider sends its API view (cache-only fields such as
/// `visual_representation` are never sent).
#[derive(Debug, Clone, PartialEq)]
pub struct MessageRequest {
    /// The system prompt.
    pub system: Option<String>,
    /// The conversation so far; must start with a user message.
    pub messages: Vec<Message>,
    /// Tools offered to the model.
    pub tools: Vec<ToolSpec>,
    /// Whether and which tool the model must call; `None` leaves the API default (auto).
    pub tool_choice: Option<ToolChoice>,
    /// Upper bound on output tokens.
    pub max_tokens: u32,
    /// Sampling temperature; `None` leaves the API default. Sent only to models that take
    /// one (the [catalogue](crate::catalog) says which): never to Anthropic, whose current
    /// API has no such field, nor to OpenAI's GPT-5 models.
    pub temperature: Option<f32>,
    /// Thinking, with a budget in tokens for models that take manual budgets; models with
    /// adaptive thinking get `{"type": "adaptive"}` instead (Anthropic; ignored by
    /// OpenAI-compatible servers).
    pub thinking: Option<u32>,
    /// How much effort the model should spend (Anthropic `output_config.effort`).
    pub effort: Option<Effort>,
    /// Structured output: the JSON Schema the answer must follow. OpenAI-compatible servers
    /// get it as `response_format`; Anthropic gets no wire field (say it in the prompt and
    /// validate the answer, as [`crate::qa`] does).
    pub response_schema: Option<Value>,
    /// How far into the conversation a cached prompt reaches (the system prompt and the
    /// tools are cached either way).
    pub conversation_cache: ConversationCache,
}

impl MessageRequest {
    /// A request with these messages, no system prompt, no tools and `max_tokens` output.
    pub fn new(messages: Vec<Message>, max_tokens: u32) -> Self {
        Self {
            system: None,
            messages,
            tools: Vec::new(),
            tool_choice: None,
            max_tokens,
            temperature: None,
            thinking: None,
            effort: None,
            response_schema: None,
            conversation_cache: ConversationCache::Whole,
        }
    }

    /// The same request with a system prompt.
    pub fn with_system(mut self, system: impl Into<String>) -> Self {
        self.system = Some(system.into());
        self
    }

    /// The same request offering these tools.
    pub fn with_tools(mut self, tools: Vec<ToolSpec>) -> Self {
        self.tools = tools;
        self
    }

    /// The same request with a tool choice.
    pub fn with_tool_choice(mut self, choice: ToolChoice) -> Self {
        self.tool_choice = Some(choice);
        self
    }

    /// The same request with a temperature.
    pub fn with_temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// The same request with a thinking budget (tokens).
    pub fn with_thinking(mut self, budget_tokens: u32) -> Self {
        self.thinking = Some(budget_tokens);
        self
    }

    /// The same request asking for an answer that follows `schema`.
    pub fn with_response_schema(mut self, schema: Value) -> Self {
        self.response_schema = Some(schema);
        self
    }

    /// The same request caching its conversation this far.
    pub fn with_conversation_cache(mut self, cache: ConversationCache) -> Self {
        self.conversation_cache = cache;
        self
    }

    /// The computer tool, if offered.
    pub fn computer_tool(&self) -> Option<(u32, u32)> {
        self.tools.iter().find_map(|tool| match tool {
            ToolSpec::Computer {
                display_width_px,
                display_height_px,
            } => Some((*display_width_px, *display_height_px)),
            ToolSpec::Custom { .. } => None,
        })
    }
}

/// How far into the conversation a request's cache breakpoint goes (Anthropic; others cache
/// prefixes on their own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConversationCache {
    /// To its last block, so the next request reads it all (the top-level `cache_control`).
    Whole,
    /// To the end of its first `n` messages, which an earlier request stored: this request
    /// reads them and stores nothing new. For a request whose newest turn the next one will
    /// not reuse (its oldest screenshots are about to become notes): a cache write costs
    /// 1.25x the input price, a plain input 1x, so an entry nothing reads is money lost.
    Stored(usize),
}

/// How much effort a model spends (`anthropic` 2.14.0, `types/output_config_param.py`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effort {
    /// `low`.
    Low,
    /// `medium`.
    Medium,
    /// `high`.
    High,
    /// `xhigh`.
    XHigh,
    /// `max`.
    Max,
}

impl Effort {
    /// The value the API takes.
    pub fn name(self) -> &'static str {
        match self {
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
            Effort::XHigh => "xhigh",
            Effort::Max => "max",
        }
    }
}

impl std::str::FromStr for Effort {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        [
            Effort::Low,
            Effort::Medium,
            Effort::High,
            Effort::XHigh,
            Effort::Max,
        ]
        .into_iter()
        .find(|effort| effort.name() == text)
        .ok_or_else(|| format!("unknown effort `{text}`: use low, medium, high, xhigh or max"))
    }
}

/// Whether the model must call a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoice {
    /// The model decides.
    Auto,
    /// The model must call some tool.
    Any,
    /// The model must call this tool.
    Tool(String),
    /// The model must not call tools.
    None,
}

/// A model's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageResponse {
    /// The API's id for this message.
    pub id: String,
    /// Text, tool calls, thinking.
    pub content: Vec<ContentBlock>,
    /// Why the model stopped; `MaxTokens` and `Refusal` mean the answer is incomplete.
    pub stop_reason: StopReason,
    /// Tokens used by this call.
    pub usage: Usage,
    /// The model that answered, as the API named it.
    pub model: String,
}

impl MessageResponse {
    /// The answer as an assistant message, ready to append to the history.
    pub fn to_message(&self) -> Message {
        Message::assistant(self.content.clone())
    }

    /// The text blocks joined by newlines.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}
