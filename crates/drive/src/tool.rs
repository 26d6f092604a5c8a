//! The [`Tool`] abstraction: what a model can call (name, description, JSON input schema,
//! whether its calls may be cached for replay, and `call`), and the [`ToolCollection`] that
//! resolves a model's tool name to a tool.
//!
//! A tool failure is either [`ToolError::ForModel`] (bad input, an element not found: the
//! text goes back to the model, which can correct itself) or [`ToolError::Fatal`] (the
//! backend is gone: the run ends).

use std::sync::Arc;

use async_trait::async_trait;
use serde::Serialize;

use crate::backend::Screenshot;
use crate::error::DriveError;

/// What a tool call produced: text, a screenshot, or both.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolOutput {
    /// Text for the model ("X=10,Y=20", a variable's value, a DOM view).
    pub text: Option<String>,
    /// The screen after the call.
    pub screenshot: Option<Screenshot>,
}

impl ToolOutput {
    /// Output with only text.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: Some(text.into()),
            screenshot: None,
        }
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

/// The tool description an API request carries.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    /// The name the model calls the tool by.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// The JSON Schema of the tool's input.
    pub input_schema: serde_json::Value,
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
    /// model.
    fn cacheable(&self) -> bool;
    /// Runs the tool.
    async fn call(&self, input: serde_json::Value) -> Result<ToolOutput, ToolError>;
    /// The tool as an API request describes it.
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_owned(),
            description: self.description().to_owned(),
            input_schema: self.input_schema(),
        }
    }
}

/// The tools of one run, built from one list; resolves names the model uses.
#[derive(Clone, Default)]
pub struct ToolCollection {
    tools: Vec<Arc<dyn Tool>>,
}

impl std::fmt::Debug for ToolCollection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCollection")
            .field("names", &self.names())
            .finish()
    }
}

impl ToolCollection {
    /// Builds a collection; two tools with one name is a programming error reported as
    /// [`DriveError::InvalidInput`].
    pub fn new(tools: Vec<Arc<dyn Tool>>) -> Result<Self, DriveError> {
        let mut names: Vec<&str> = tools.iter().map(|tool| tool.name()).collect();
        names.sort_unstable();
        if let Some(pair) = names.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(DriveError::InvalidInput(format!(
                "two tools are named `{}`; tool names must be unique",
                pair[0]
            )));
        }
        Ok(Self { tools })
    }

    /// The tool names, in the order the tools were given.
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(|tool| tool.name()).collect()
    }

    /// The tool called `name`, or an error for the model listing the valid names.
    pub fn get(&self, name: &str) -> Result<&Arc<dyn Tool>, ToolError> {
        self.tools
            .iter()
            .find(|tool| tool.name() == name)
            .ok_or_else(|| {
                ToolError::ForModel(format!(
                    "there is no tool named `{name}`; the tools are: {}",
                    self.names().join(", ")
                ))
            })
    }

    /// Calls the tool `name` with `input`.
    pub async fn call(
        &self,
        name: &str,
        input: serde_json::Value,
    ) -> Result<ToolOutput, ToolError> {
        self.get(name)?.call(input).await
    }

    /// Every tool's spec, for an API request.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools.iter().map(|tool| tool.spec()).collect()
    }

    /// The tools themselves.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.tools.iter()
    }
}
