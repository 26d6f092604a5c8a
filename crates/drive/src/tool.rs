//! The one tool abstraction of retrace: [`Tool`] (name, description, JSON input schema, the
//! [`ToolSpec`] a request carries, whether its calls may be cached for replay, and `call`),
//! which every tool implements (the computer tool, the web executor, the switch tool, the
//! cache tools, askui's tools), and the [`Toolbox`] of one run that resolves the names a
//! model uses.
//!
//! A tool failure is either [`ToolError::ForModel`] (bad input, an element not found: the
//! text goes back to the model, which can correct itself) or [`ToolError::Fatal`] (the
//! backend is gone: the run ends).

use std::sync::Arc;

use async_trait::async_trait;
use base64::Engine;
use retrace_protocol::ContentBlock;
pub use retrace_protocol::tool_spec::ToolSpec;

use crate::backend::Screenshot;
use crate::error::DriveError;
pub use crate::handover::SpeakerContext;
pub use crate::handover::SwitchRequest;

/// What a tool call produced: text, a screenshot, or both; and, from control tools, a
/// request to hand the conversation over.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolOutput {
    /// Text for the model ("X=10,Y=20", a variable's value, a DOM view).
    pub text: Option<String>,
    /// The screen after the call.
    pub screenshot: Option<Screenshot>,
    /// Set by control tools that hand the conversation to another speaker.
    pub switch_to: Option<SwitchRequest>,
}

impl ToolOutput {
    /// Output with only text.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: Some(text.into()),
            ..Self::default()
        }
    }

    /// The tool_result content: the text, then the screenshot, base64-encoded here once into
    /// the history (every later request reuses that text).
    pub fn content_blocks(&self) -> Vec<ContentBlock> {
        let mut content = Vec::with_capacity(2);
        if let Some(text) = &self.text {
            content.push(ContentBlock::text(text.clone()));
        }
        if let Some(screenshot) = &self.screenshot {
            content.push(ContentBlock::png_base64(
                base64::engine::general_purpose::STANDARD.encode(&screenshot.png),
            ));
        }
        content
    }
}

/// Why a tool call failed.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The model's input was wrong or the page did not allow the action; the message goes
    /// back to the model as the tool result, so it says what was wrong and what is valid.
    #[error("{0}")]
    ForModel(String),
    /// The backend failed in a way the model cannot fix; the run ends.
    #[error(transparent)]
    Fatal(DriveError),
}

impl ToolError {
    /// An error for the model to read.
    pub fn for_model(text: impl Into<String>) -> Self {
        ToolError::ForModel(text.into())
    }
}

impl From<DriveError> for ToolError {
    /// Fatal, except a dialog the page opened unexpectedly: the page's doing, for the model
    /// to read (and a replay's step to fail on).
    fn from(error: DriveError) -> Self {
        match error {
            DriveError::UnexpectedDialog { .. } => ToolError::ForModel(error.to_string()),
            other => ToolError::Fatal(other),
        }
    }
}

/// Something a model can call.
#[async_trait]
pub trait Tool: Send + Sync {
    /// The name the model calls this tool by (a constant from
    /// `retrace_protocol::tool_names`).
    fn name(&self) -> &str;
    /// What the tool does, written for the model.
    fn description(&self) -> &str;
    /// The JSON Schema of `call`'s input.
    fn input_schema(&self) -> serde_json::Value;
    /// Whether calls of this tool may be recorded in a trajectory and replayed without the
    /// model. Calls of other tools are recorded with an empty input and pause a replay.
    fn cacheable(&self) -> bool;
    /// How an API request offers the tool: by its JSON Schema, unless the tool says
    /// otherwise (the computer tool is offered as the computer-use tool).
    fn spec(&self) -> ToolSpec {
        ToolSpec::custom(self.name(), self.description(), self.input_schema())
    }
    /// Runs the tool.
    async fn call(&self, input: serde_json::Value) -> Result<ToolOutput, ToolError>;
}

/// The tools of one run, resolved by the names a model uses.
#[derive(Clone, Default)]
pub struct Toolbox {
    tools: Vec<Arc<dyn Tool>>,
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
    pub fn add(&mut self, tool: Arc<dyn Tool>) {
        self.tools.retain(|existing| existing.name() != tool.name());
        self.tools.push(tool);
    }

    /// The same toolbox with one more tool.
    pub fn with(mut self, tool: Arc<dyn Tool>) -> Self {
        self.add(tool);
        self
    }

    /// Finds a tool by exact name, or else by askui base name (`move_mouse_tags_..._<uuid>`
    /// finds `move_mouse`), the way askui matches recorded names at replay.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
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
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
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

    /// Every tool's spec, in the order added, for an API request.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools.iter().map(|tool| tool.spec()).collect()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;
    use serde_json::json;

    use super::*;

    /// A tool with a name and a text answer; the computer-use one is offered as such.
    struct Named(&'static str, &'static str);

    #[async_trait]
    impl Tool for Named {
        fn name(&self) -> &str {
            self.0
        }
        fn description(&self) -> &str {
            self.1
        }
        fn input_schema(&self) -> Value {
            json!({"type": "object"})
        }
        fn cacheable(&self) -> bool {
            true
        }
        fn spec(&self) -> ToolSpec {
            match self.0 {
                retrace_protocol::tool_names::COMPUTER => ToolSpec::computer(1280, 800),
                _ => ToolSpec::custom(self.name(), self.description(), self.input_schema()),
            }
        }
        async fn call(&self, _input: Value) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput::text(self.1))
        }
    }

    #[tokio::test]
    async fn the_toolbox_resolves_exact_and_askui_names_and_replaces_a_same_named_tool() {
        let toolbox = Toolbox::new()
            .with(Arc::new(Named("computer", "first")))
            .with(Arc::new(Named("move_mouse", "moves")))
            .with(Arc::new(Named("computer", "second")));
        assert_eq!(toolbox.names(), "move_mouse, computer");
        let askui = "move_mouse_tags_computer_scaled_agent_os_15e1e729-bbda-4558-8f76";
        let found = toolbox.get(askui).map(|tool| tool.name());
        assert_eq!(found, Some("move_mouse"));
        assert!(toolbox.get("mouse").is_none());
        let output = toolbox.get("computer").unwrap().call(json!({})).await;
        assert_eq!(output.unwrap().text.as_deref(), Some("second"));
        assert_eq!(
            toolbox.specs(),
            vec![
                ToolSpec::custom("move_mouse", "moves", json!({"type": "object"})),
                ToolSpec::computer(1280, 800),
            ]
        );
    }

    #[test]
    fn content_blocks_are_the_text_then_the_screenshot_in_base64() {
        let output = ToolOutput {
            text: Some("taken".into()),
            screenshot: Some(Screenshot {
                png: vec![1, 2, 3],
                width: 1,
                height: 1,
            }),
            switch_to: None,
        };
        assert_eq!(
            output.content_blocks(),
            vec![
                ContentBlock::text("taken"),
                ContentBlock::png_base64("AQID")
            ]
        );
        assert_eq!(ToolOutput::default().content_blocks(), Vec::new());
    }
}
