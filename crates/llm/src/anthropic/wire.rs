//! The Anthropic Messages API wire format, as pure functions over JSON (no I/O).
//!
//! - [`request_body`]: a [`MessageRequest`] as the body of `POST /v1/messages`, shaped for
//!   the model ([`RequestShape`]: its computer tool form and thinking form, from the
//!   [catalogue](crate::catalog)); messages go through the protocol's API view, so cache-only
//!   fields never leave, and through the toolset encoding when the form is the toolset. The
//!   client sends the same bytes built from per-message fragments serialised once
//!   (`request_bytes`).
//! - [`beta_headers`]: the `anthropic-beta` values a request needs (a beta computer tool).
//! - [`parse_response`] and [`parse_error`]: the answer body back into types, toolset member
//!   calls back into `computer` calls.
//!
//! `temperature` is never sent: the official SDK (`anthropic` 2.14.0,
//! `types/message_create_params.py`) has no such field, and current models refuse it.

use bytes::Bytes;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::StopReason;
use retrace_protocol::Usage;
use retrace_protocol::api::message_to_api_json;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use super::toolset;
use crate::ConversationCache;
use crate::MessageRequest;
use crate::MessageResponse;
use crate::ToolChoice;
use crate::ToolSpec;
use crate::VlmError;
use crate::catalog::ComputerToolForm;
use crate::catalog::ModelProvider;
use crate::catalog::ProfileOverrides;
use crate::catalog::ThinkingForm;
use crate::fragments::FragmentCache;
use crate::fragments::assemble;

/// The smallest thinking budget the API takes (`types/thinking_config_enabled_param.py`:
/// "Must be ≥1024").
pub const MIN_THINKING_BUDGET: u32 = 1024;

/// How a request is shaped for one model: which computer tool form and which thinking form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestShape {
    /// The computer tool form sent when the request offers the computer tool.
    pub computer_tool: ComputerToolForm,
    /// How thinking is asked for when the request asks for it.
    pub thinking: ThinkingForm,
    /// Whether the prompt is cached: breakpoints on the system prompt, the tools and the
    /// conversation's last block (see [`CACHE_BREAKPOINT`]).
    pub caching: bool,
}

/// The `cache_control` a breakpoint carries (`types/cache_control_ephemeral_param.py`; the
/// default five-minute lifetime). A request sets three of the API's four: the system prompt,
/// the last tool, and the conversation's last block (the top-level `cache_control`, which
/// "automatically applies a cache_control marker to the last cacheable block",
/// `types/message_create_params.py`), so each turn reads the prefix the previous one wrote.
/// A request whose newest turn the next one will not reuse moves the last back to the end of
/// what an earlier request stored ([`ConversationCache::Stored`]).
pub const CACHE_BREAKPOINT: &str = "ephemeral";

impl RequestShape {
    /// The catalogue's shape for `model` (an unknown model gets the newest forms).
    pub fn for_model(model: &str) -> Self {
        let profile =
            crate::catalog::profile(ModelProvider::Anthropic, model, ProfileOverrides::default());
        Self {
            computer_tool: profile.computer_tool,
            thinking: profile.thinking,
            caching: true,
        }
    }
}

/// The JSON body for `POST /v1/messages`, shaped for `model` as the catalogue says.
pub fn request_body(model: &str, request: &MessageRequest) -> Value {
    shaped_request_body(model, request, RequestShape::for_model(model))
}

/// The JSON body for `POST /v1/messages` in this shape.
pub fn shaped_request_body(model: &str, request: &MessageRequest, shape: RequestShape) -> Value {
    let mut body = body_head(model, request, shape);
    let encode = MessageEncoder::new(request, shape);
    let mut messages: Vec<Value> = request
        .messages
        .iter()
        .map(|message| encode.value(message))
        .collect();
    if let Some(stored) = stored_breakpoint(request, shape) {
        mark_breakpoint(&mut messages[stored]);
    }
    body.insert("messages".into(), Value::Array(messages));
    Value::Object(body)
}

/// [`shaped_request_body`] as the bytes sent, each message's JSON taken from `cache` when an
/// earlier request had the same message (the bytes are the same either way; the cache must
/// be cleared when the shape changes).
pub(crate) fn request_bytes(
    model: &str,
    request: &MessageRequest,
    shape: RequestShape,
    cache: &FragmentCache,
) -> Result<Bytes, VlmError> {
    let encode = MessageEncoder::new(request, shape);
    let mut fragments = cache.fragments(&request.messages, |message| {
        serde_json::to_vec(&encode.value(message))
    })?;
    // The marked message is encoded afresh: the cache keeps its plain form for the next
    // request.
    if let Some(stored) = stored_breakpoint(request, shape) {
        let mut marked = encode.value(&request.messages[stored]);
        mark_breakpoint(&mut marked);
        fragments[stored] = serde_json::to_vec(&marked)
            .map_err(|e| VlmError::Config {
                detail: format!("cannot serialise message {stored} of the request: {e}"),
            })?
            .into();
    }
    assemble(&body_head(model, request, shape), "messages", &fragments)
}

/// The index of the message whose last block carries the conversation's breakpoint when it
/// is not the top-level one ([`ConversationCache::Stored`]).
fn stored_breakpoint(request: &MessageRequest, shape: RequestShape) -> Option<usize> {
    match request.conversation_cache {
        ConversationCache::Stored(count) if shape.caching => (1..=request.messages.len())
            .contains(&count)
            .then(|| count - 1),
        _ => None,
    }
}

/// Marks the last block of an encoded message that may carry `cache_control` (thinking
/// blocks may not) as a breakpoint; a string content becomes one text block to carry it.
fn mark_breakpoint(message: &mut Value) {
    let Some(content) = message.get_mut("content") else {
        return;
    };
    if let Value::String(text) = content {
        *content = json!([{"type": "text", "text": text}]);
    }
    let Some(blocks) = content.as_array_mut() else {
        return;
    };
    let markable = blocks.iter_mut().rev().find(|block| {
        !matches!(
            block.get("type").and_then(Value::as_str),
            Some("thinking" | "redacted_thinking")
        )
    });
    if let Some(Value::Object(block)) = markable {
        block.insert("cache_control".into(), json!({"type": CACHE_BREAKPOINT}));
    }
}

/// Turns history messages into the API's JSON for one request's shape.
struct MessageEncoder {
    /// With the toolset form: the ids of the request's `computer` calls.
    toolset_ids: Option<std::collections::HashSet<String>>,
}

impl MessageEncoder {
    fn new(request: &MessageRequest, shape: RequestShape) -> Self {
        let toolset_ids = (shape.computer_tool == ComputerToolForm::Toolset20260801).then(|| {
            let ids = request
                .messages
                .iter()
                .flat_map(Message::tool_uses)
                .filter(|call| call.name == retrace_protocol::tool_names::COMPUTER)
                .map(|call| call.id.clone());
            ids.collect()
        });
        Self { toolset_ids }
    }

    fn value(&self, message: &Message) -> Value {
        let mut value = message_to_api_json(message);
        if let Some(ids) = &self.toolset_ids {
            toolset::encode_message(&mut value, ids);
        }
        value
    }
}

/// Every field of the body in order, with `messages` as a `null` placeholder.
fn body_head(model: &str, request: &MessageRequest, shape: RequestShape) -> Map<String, Value> {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("max_tokens".into(), json!(request.max_tokens));
    let breakpoint = json!({"type": CACHE_BREAKPOINT});
    if let Some(system) = &request.system {
        let system = if shape.caching {
            json!([{"type": "text", "text": system, "cache_control": breakpoint}])
        } else {
            json!(system)
        };
        body.insert("system".into(), system);
    }
    body.insert("messages".into(), Value::Null);
    if !request.tools.is_empty() {
        let mut tools: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| tool_json(tool, shape.computer_tool))
            .collect();
        if shape.caching
            && let Some(Value::Object(last)) = tools.last_mut()
        {
            last.insert("cache_control".into(), breakpoint.clone());
        }
        body.insert("tools".into(), Value::Array(tools));
    }
    if shape.caching && request.conversation_cache == ConversationCache::Whole {
        body.insert("cache_control".into(), breakpoint);
    }
    if let Some(choice) = &request.tool_choice {
        body.insert("tool_choice".into(), tool_choice_json(choice));
    }
    if let Some(budget) = request.thinking {
        match shape.thinking {
            ThinkingForm::Adaptive => {
                body.insert("thinking".into(), json!({"type": "adaptive"}));
            }
            ThinkingForm::Budget => {
                body.insert(
                    "thinking".into(),
                    json!({"type": "enabled", "budget_tokens": budget.max(MIN_THINKING_BUDGET)}),
                );
            }
            ThinkingForm::None => {}
        }
    }
    if let Some(effort) = request.effort {
        body.insert("output_config".into(), json!({"effort": effort.name()}));
    }
    body
}

/// The `anthropic-beta` flags this request needs in this shape.
pub fn beta_headers(request: &MessageRequest, shape: RequestShape) -> Vec<&'static str> {
    request
        .computer_tool()
        .and_then(|_| shape.computer_tool.anthropic_beta())
        .into_iter()
        .collect()
}

fn tool_json(tool: &ToolSpec, form: ComputerToolForm) -> Value {
    match tool {
        ToolSpec::Custom {
            name,
            description,
            input_schema,
        } => json!({"name": name, "description": description, "input_schema": input_schema}),
        ToolSpec::Computer {
            display_width_px,
            display_height_px,
        } => match form {
            // Every member is enabled by default, zoom included
            // (`types/computer_toolset_20260801_param.py`).
            ComputerToolForm::Toolset20260801 => json!({"type": form.name()}),
            ComputerToolForm::Computer20251124 => json!({
                "type": form.name(),
                "name": retrace_protocol::tool_names::COMPUTER,
                "display_width_px": display_width_px,
                "display_height_px": display_height_px,
                "enable_zoom": true,
            }),
            _ => json!({
                "type": ComputerToolForm::Computer20250124.name(),
                "name": retrace_protocol::tool_names::COMPUTER,
                "display_width_px": display_width_px,
                "display_height_px": display_height_px,
            }),
        },
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
                .map(toolset::decode_block)
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
