//! Adapts drive's tools (the computer tool, the web executor) to [`AgentTool`].
//!
//! The screenshot a tool returns is base64-encoded here, once, into the history; every later
//! request reuses that text.

use std::sync::Arc;

use async_trait::async_trait;
use base64::Engine;
use retrace_drive::tool::Tool;
use retrace_drive::tool::ToolError;
use retrace_protocol::ContentBlock;
use serde_json::Value;

use crate::tool::AgentTool;
use crate::tool::FatalToolError;
use crate::tool::ToolKind;
use crate::tool::ToolReply;

/// A drive tool offered to the model.
pub struct DriveTool {
    tool: Arc<dyn Tool>,
    kind: ToolKind,
}

impl std::fmt::Debug for DriveTool {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("DriveTool")
            .field("name", &self.tool.name())
            .field("kind", &self.kind)
            .finish()
    }
}

impl DriveTool {
    /// A custom tool (described to the model by its JSON Schema).
    pub fn custom(tool: Arc<dyn Tool>) -> Self {
        Self {
            tool,
            kind: ToolKind::Custom,
        }
    }

    /// The computer tool, offered as Anthropic's computer-use tool at the size the model sees.
    pub fn computer(tool: Arc<retrace_drive::computer::ComputerTool>) -> Self {
        let (width, height) = tool.model_size();
        Self {
            tool,
            kind: ToolKind::Computer { width, height },
        }
    }
}

/// The tool_result content for a drive tool's output: its text, then its screenshot.
pub fn output_blocks(output: &retrace_drive::tool::ToolOutput) -> Vec<ContentBlock> {
    let mut content = Vec::with_capacity(2);
    if let Some(text) = &output.text {
        content.push(ContentBlock::text(text.clone()));
    }
    if let Some(screenshot) = &output.screenshot {
        content.push(ContentBlock::png_base64(
            base64::engine::general_purpose::STANDARD.encode(&screenshot.png),
        ));
    }
    content
}

#[async_trait]
impl AgentTool for DriveTool {
    fn name(&self) -> &str {
        self.tool.name()
    }

    fn description(&self) -> &str {
        self.tool.description()
    }

    fn input_schema(&self) -> Value {
        self.tool.input_schema()
    }

    fn kind(&self) -> ToolKind {
        self.kind.clone()
    }

    fn cacheable(&self) -> bool {
        self.tool.cacheable()
    }

    async fn call(&self, input: Value) -> Result<ToolReply, FatalToolError> {
        match self.tool.call(input).await {
            Ok(output) => Ok(ToolReply {
                content: output_blocks(&output),
                is_error: false,
                switch_to: None,
            }),
            Err(ToolError::ForModel(message)) => Ok(ToolReply::error(message)),
            Err(ToolError::Fatal(error)) => Err(FatalToolError(error.to_string())),
        }
    }
}
