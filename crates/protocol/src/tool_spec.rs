//! The one description of a tool an API request carries: a custom tool by its JSON Schema,
//! or the computer-use tool at a display size. Every tool gives one
//! (`retrace_drive::tool::Tool::spec`) and every provider writes it in its own wire form.

use serde_json::Value;

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolSpec {
    /// A tool described by a JSON Schema of its input.
    Custom {
        /// The name the model calls it by.
        name: String,
        /// What it does and when to use it.
        description: String,
        /// JSON Schema of the input object.
        input_schema: Value,
    },
    /// The computer-use tool on a display of this size, in the form the model takes
    /// (Anthropic's `computer_20250124`, `computer_20251124` or the computer toolset, from
    /// the catalogue); OpenAI-compatible servers get it as a function with the same actions.
    Computer {
        /// Display width in pixels.
        display_width_px: u32,
        /// Display height in pixels.
        display_height_px: u32,
    },
}

impl ToolSpec {
    /// A custom tool.
    pub fn custom(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
    ) -> Self {
        ToolSpec::Custom {
            name: name.into(),
            description: description.into(),
            input_schema,
        }
    }

    /// The computer tool on a display of `width` × `height` pixels.
    pub fn computer(width: u32, height: u32) -> Self {
        ToolSpec::Computer {
            display_width_px: width,
            display_height_px: height,
        }
    }

    /// The name the model calls the tool by.
    pub fn name(&self) -> &str {
        match self {
            ToolSpec::Custom { name, .. } => name,
            ToolSpec::Computer { .. } => crate::tool_names::COMPUTER,
        }
    }
}
