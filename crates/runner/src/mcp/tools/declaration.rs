//! How a tool is declared to clients.

use rmcp::model::Tool;

/// A tool's declaration: its name, description, and the input and output schemas generated
/// from its types.
pub(crate) fn declare<I: schemars::JsonSchema + 'static, O: schemars::JsonSchema + 'static>(
    name: &'static str,
    description: &'static str,
) -> Tool {
    Tool::new(name, description, serde_json::Map::new())
        .with_input_schema::<I>()
        .with_output_schema::<O>()
}
