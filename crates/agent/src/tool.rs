//! Tools as the conversation sees them.
//!
//! [`AgentTool`] is what the conversation runs when an assistant message asks for a tool:
//! drive's tools (the computer tool, the web executor) are adapted to it, and control tools
//! that steer the conversation itself (switching speaker, the cache tools) implement it
//! directly, because only they may ask for a [`SwitchRequest`].

use std::sync::Arc;

use async_trait::async_trait;
use retrace_protocol::ContentBlock;
use serde_json::Value;

use crate::speaker_context::SpeakerContext;

/// How a tool is offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolKind {
    /// A custom tool described by a JSON Schema.
    Custom,
    /// The Anthropic computer-use tool at this display size (what the model sees).
    Computer {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
    },
}

/// A request to hand the conversation to another speaker after this tool's turn.
#[derive(Debug, Clone, PartialEq)]
pub struct SwitchRequest {
    /// The speaker to switch to.
    pub speaker: String,
    /// What the speaker gets in `on_activate` (a replay request...).
    pub context: SpeakerContext,
    /// Why, for the event stream.
    pub reason: String,
}

/// What a tool call produced.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolReply {
    /// Text and images for the tool_result.
    pub content: Vec<ContentBlock>,
    /// True when the call failed in a way the model should read and react to.
    pub is_error: bool,
    /// Set by control tools that hand the conversation over.
    pub switch_to: Option<SwitchRequest>,
}

impl ToolReply {
    /// A successful reply with text only.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![ContentBlock::text(text)],
            is_error: false,
            switch_to: None,
        }
    }

    /// An error the model reads.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            content: vec![ContentBlock::text(text)],
            is_error: true,
            switch_to: None,
        }
    }

    /// The text parts joined by newlines.
    pub fn text_content(&self) -> String {
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

/// A failure the model cannot repair: the run stops.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct FatalToolError(pub String);

/// A tool the conversation can run.
#[async_trait]
pub trait AgentTool: Send + Sync {
    /// The name the model calls it by.
    fn name(&self) -> &str;
    /// What it does, for the model.
    fn description(&self) -> &str;
    /// The JSON Schema of its input.
    fn input_schema(&self) -> Value;
    /// How it is offered to the model.
    fn kind(&self) -> ToolKind {
        ToolKind::Custom
    }
    /// Whether its calls are recorded with their input for replay. Calls of non-cacheable
    /// tools are recorded with an empty input and pause a replay.
    fn cacheable(&self) -> bool;
    /// Runs one call.
    async fn call(&self, input: Value) -> Result<ToolReply, FatalToolError>;
}

/// The tools of a run, resolved by name.
#[derive(Clone, Default)]
pub struct Toolbox {
    tools: Vec<Arc<dyn AgentTool>>,
}

impl std::fmt::Debug for Toolbox {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_list()
            .entries(self.tools.iter().map(|tool| tool.name()))
            .finish()
    }
}

impl Toolbox {
    /// An empty toolbox.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool; a tool of the same name is replaced.
    pub fn add(&mut self, tool: Arc<dyn AgentTool>) {
        self.tools.retain(|existing| existing.name() != tool.name());
        self.tools.push(tool);
    }

    /// The same toolbox with one more tool.
    pub fn with(mut self, tool: Arc<dyn AgentTool>) -> Self {
        self.add(tool);
        self
    }

    /// Finds a tool by exact name, or else by askui base name (`move_mouse_tags_..._<uuid>`
    /// finds `move_mouse`), the way askui matches recorded names at replay.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn AgentTool>> {
        self.tools
            .iter()
            .find(|tool| tool.name() == name)
            .or_else(|| {
                let base = retrace_protocol::tool_names::base_name(name);
                self.tools
                    .iter()
                    .find(|tool| retrace_protocol::tool_names::base_name(tool.name()) == base)
            })
    }

    /// All tools, in the order added.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn AgentTool>> {
        self.tools.iter()
    }

    /// The names of all tools, comma-separated, for error messages.
    pub fn names(&self) -> String {
        self.tools
            .iter()
            .map(|tool| tool.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}
