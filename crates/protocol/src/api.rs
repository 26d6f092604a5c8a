//! The API view: what is sent to a model.
//!
//! A history carries fields that only the cache needs (a tool_use's `visual_representation`,
//! askui's `extra_content`). Models reject or must not see them, so requests are built from
//! this view, never by serialising the history directly.

use serde_json::Map;
use serde_json::Value;

use crate::ContentBlock;
use crate::Message;
use crate::MessageContent;
use crate::ToolResultBlock;
use crate::ToolResultContent;
use crate::ToolUseBlock;

/// Fields of a tool_use block the Messages API accepts besides `type`, `id`, `name`, `input`.
const TOOL_USE_API_EXTRAS: &[&str] = &["cache_control"];

/// A message as JSON for a model request.
pub fn message_to_api_json(message: &Message) -> Value {
    let content = match &message.content {
        MessageContent::Text(text) => Value::String(text.clone()),
        MessageContent::Blocks(blocks) => {
            Value::Array(blocks.iter().map(block_to_api_json).collect())
        }
    };
    let mut object = Map::with_capacity(2);
    object.insert(
        "role".into(),
        serde_json::to_value(message.role).unwrap_or(Value::Null),
    );
    object.insert("content".into(), content);
    Value::Object(object)
}

/// A content block as JSON for a model request: cache-only fields dropped.
pub fn block_to_api_json(block: &ContentBlock) -> Value {
    match block {
        ContentBlock::ToolUse(tool_use) => tool_use_to_api_json(tool_use),
        ContentBlock::ToolResult(result) => tool_result_to_api_json(result),
        other => serde_json::to_value(other).unwrap_or(Value::Null),
    }
}

fn tool_use_to_api_json(tool_use: &ToolUseBlock) -> Value {
    let mut object = Map::with_capacity(5);
    object.insert("type".into(), Value::String("tool_use".into()));
    object.insert("id".into(), Value::String(tool_use.id.clone()));
    object.insert("name".into(), Value::String(tool_use.name.clone()));
    object.insert("input".into(), tool_use.input.clone());
    for key in TOOL_USE_API_EXTRAS {
        if let Some(value) = tool_use.extra.get(*key).filter(|value| !value.is_null()) {
            object.insert((*key).into(), value.clone());
        }
    }
    Value::Object(object)
}

fn tool_result_to_api_json(result: &ToolResultBlock) -> Value {
    let mut object = Map::with_capacity(5);
    object.insert("type".into(), Value::String("tool_result".into()));
    object.insert(
        "tool_use_id".into(),
        Value::String(result.tool_use_id.clone()),
    );
    let content = match &result.content {
        ToolResultContent::Text(text) => Value::String(text.clone()),
        ToolResultContent::Blocks(blocks) => {
            Value::Array(blocks.iter().map(block_to_api_json).collect())
        }
    };
    object.insert("content".into(), content);
    if let Some(is_error) = result.is_error {
        object.insert("is_error".into(), Value::Bool(is_error));
    }
    if let Some(value) = result
        .extra
        .get("cache_control")
        .filter(|value| !value.is_null())
    {
        object.insert("cache_control".into(), value.clone());
    }
    Value::Object(object)
}
