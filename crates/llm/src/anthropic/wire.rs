//! The Anthropic Messages API wire format, as pure functions over JSON (no I/O).
//!
//! - [`request_body`]: a [`MessageRequest`] as the body of `POST /v1/messages`; messages go
//!   through the protocol's API view, so cache-only fields never leave. The client sends the
//!   same bytes built from per-message fragments serialised once (`request_bytes`).
//! - [`beta_headers`]: the `anthropic-beta` values a request needs (the computer tool).
//! - [`parse_response`] and [`parse_error`]: the answer body back into types.

use bytes::Bytes;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::StopReason;
use retrace_protocol::Usage;
use retrace_protocol::api::message_to_api_json;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use crate::MessageRequest;
use crate::MessageResponse;
use crate::ToolChoice;
use crate::ToolSpec;
use crate::VlmError;
use crate::fragments::FragmentCache;
use crate::fragments::assemble;

/// The computer tool version this client sends.
pub const COMPUTER_TOOL_TYPE: &str = "computer_20250124";
/// The beta flag the computer tool needs.
pub const COMPUTER_USE_BETA: &str = "computer-use-2025-01-24";

/// The JSON body for `POST /v1/messages`.
pub fn request_body(model: &str, request: &MessageRequest) -> Value {
    let mut body = body_head(model, request);
    body.insert(
        "messages".into(),
        Value::Array(request.messages.iter().map(message_to_api_json).collect()),
    );
    Value::Object(body)
}

/// [`request_body`] as the bytes sent, each message's JSON taken from `cache` when an
/// earlier request had the same message (the bytes are the same either way).
pub(crate) fn request_bytes(
    model: &str,
    request: &MessageRequest,
    cache: &FragmentCache,
) -> Result<Bytes, VlmError> {
    let fragments = cache.fragments(&request.messages, message_json)?;
    assemble(&body_head(model, request), "messages", &fragments)
}

/// One message's JSON as it appears in the `messages` array.
pub(crate) fn message_json(message: &Message) -> Result<Vec<u8>, serde_json::Error> {
    serde_json::to_vec(&message_to_api_json(message))
}

/// Every field of the body in order, with `messages` as a `null` placeholder.
fn body_head(model: &str, request: &MessageRequest) -> Map<String, Value> {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("max_tokens".into(), json!(request.max_tokens));
    if let Some(system) = &request.system {
        body.insert("system".into(), json!(system));
    }
    body.insert("messages".into(), Value::Null);
    if !request.tools.is_empty() {
        body.insert(
            "tools".into(),
            Value::Array(request.tools.iter().map(tool_json).collect()),
        );
    }
    if let Some(choice) = &request.tool_choice {
        body.insert("tool_choice".into(), tool_choice_json(choice));
    }
    if let Some(temperature) = request.temperature {
        body.insert("temperature".into(), json!(temperature));
    }
    if let Some(budget) = request.thinking {
        body.insert(
            "thinking".into(),
            json!({"type": "enabled", "budget_tokens": budget}),
        );
    }
    body
}

/// The `anthropic-beta` flags this request needs.
pub fn beta_headers(request: &MessageRequest) -> Vec<&'static str> {
    let mut betas = Vec::new();
    if request.computer_tool().is_some() {
        betas.push(COMPUTER_USE_BETA);
    }
    betas
}

fn tool_json(tool: &ToolSpec) -> Value {
    match tool {
        ToolSpec::Custom {
            name,
            description,
            input_schema,
        } => json!({"name": name, "description": description, "input_schema": input_schema}),
        ToolSpec::Computer {
            display_width_px,
            display_height_px,
        } => json!({
            "type": COMPUTER_TOOL_TYPE,
            "name": retrace_protocol::tool_names::COMPUTER,
            "display_width_px": display_width_px,
            "display_height_px": display_height_px,
        }),
    }
}

fn tool_choice_json(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!({"type": "auto"}),
        ToolChoice::Any => json!({"type": "any"}),
        ToolChoice::Tool(name) => json!({"type": "tool", "name": name}),
        ToolChoice::None => json!({"type": "none"}),
    }
}

/// Reads a successful response body.
pub fn parse_response(body: &str) -> Result<MessageResponse, VlmError> {
    let value: Value = serde_json::from_str(body)
        .map_err(|e| VlmError::bad_response(format!("the body is not JSON ({e})"), body))?;
    let field = |name: &str| value.get(name).filter(|field| !field.is_null());
    let string_field = |name: &str| -> Result<String, VlmError> {
        field(name)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| VlmError::bad_response(format!("missing string field `{name}`"), body))
    };
    if let Some(kind) = field("type").and_then(Value::as_str)
        && kind != "message"
    {
        return Err(VlmError::bad_response(
            format!("expected `type: message`, got `{kind}`"),
            body,
        ));
    }
    let Some(Value::Array(items)) = field("content") else {
        return Err(VlmError::bad_response(
            "missing array field `content`",
            body,
        ));
    };
    let content = items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            ContentBlock::from_value(item.clone())
                .map_err(|e| VlmError::bad_response(format!("content[{index}]: {e}"), body))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let stop_reason: StopReason = serde_json::from_value(json!(string_field("stop_reason")?))
        .map_err(|e| VlmError::bad_response(format!("field `stop_reason`: {e}"), body))?;
    let usage: Usage = match field("usage") {
        Some(usage) => serde_json::from_value(usage.clone())
            .map_err(|e| VlmError::bad_response(format!("field `usage`: {e}"), body))?,
        None => Usage::default(),
    };
    Ok(MessageResponse {
        id: string_field("id")?,
        content,
        stop_reason,
        usage,
        model: string_field("model").unwrap_or_default(),
    })
}

/// The API's error type and message from an error body
/// (`{"type": "error", "error": {"type": ..., "message": ...}}`); for any other body, no type
/// and an excerpt of the body as the message.
pub fn parse_error(body: &str) -> (Option<String>, String) {
    let parsed = serde_json::from_str::<Value>(body).ok();
    let error = parsed.as_ref().and_then(|value| value.get("error"));
    let message = error
        .and_then(|error| error.get("message"))
        .and_then(Value::as_str);
    match message {
        Some(message) => (
            error
                .and_then(|error| error.get("type"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            message.to_owned(),
        ),
        None => (None, crate::error::excerpt(body)),
    }
}

#[cfg(test)]
#[path = "wire_tests.rs"]
mod tests;
