//! The OpenAI chat completions wire format, as pure functions over JSON (no I/O).
//!
//! Our history is Anthropic-shaped; this maps it both ways:
//! - the system prompt becomes a `system` message; text and images become content parts
//!   (images as `data:` URLs);
//! - an assistant `tool_use` becomes a `tool_calls` entry with JSON-string `arguments`;
//! - a `tool_result` becomes a `role: tool` message with its text; its images move into a
//!   user message right after the tool messages (most servers reject images in tool
//!   messages);
//! - thinking blocks and unknown blocks are not sent; cache-only fields are never read;
//! - `choices[0].message` comes back as text and tool_use blocks, `finish_reason` as a
//!   [`StopReason`], `usage` as [`Usage`] (cached prompt tokens counted as cache reads).

use bytes::Bytes;
use retrace_protocol::ContentBlock;
use retrace_protocol::ImageSource;
use retrace_protocol::Message;
use retrace_protocol::MessageContent;
use retrace_protocol::Role;
use retrace_protocol::StopReason;
use retrace_protocol::ToolResultBlock;
use retrace_protocol::ToolUseBlock;
use retrace_protocol::Usage;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use super::computer::computer_function;
use super::coordinates::CoordinateMap;
use crate::MessageRequest;
use crate::MessageResponse;
use crate::ToolChoice;
use crate::ToolSpec;
use crate::VlmError;
use crate::fragments::FragmentCache;
use crate::fragments::assemble;

/// The name `response_format.json_schema.name` is given.
pub const RESPONSE_SCHEMA_NAME: &str = "response";

/// The JSON body for `POST {base}/chat/completions`. `strict_schema` sets
/// `response_format.json_schema.strict` (OpenAI then requires every object in the schema to
/// list all properties as required and forbid additional ones).
///
/// Points in the history are sent in the model's coordinate space, the catalogue's for
/// `model` ([`mapped_request_body`] takes another).
pub fn request_body(model: &str, request: &MessageRequest, strict_schema: bool) -> Value {
    let space = crate::catalog::profile(
        crate::catalog::ModelProvider::OpenaiCompatible,
        model,
        crate::catalog::ProfileOverrides::default(),
    )
    .coordinates;
    mapped_request_body(
        model,
        request,
        strict_schema,
        coordinate_map(request, space),
    )
}

/// The coordinate map of `space` over the request's screenshots (the computer tool's display
/// size); `None` when points are pixels or no computer tool is offered.
pub fn coordinate_map(
    request: &MessageRequest,
    space: crate::catalog::Coordinates,
) -> Option<CoordinateMap> {
    CoordinateMap::new(space, request.computer_tool()?)
}

/// [`request_body`] with the history's points mapped by `map`.
pub fn mapped_request_body(
    model: &str,
    request: &MessageRequest,
    strict_schema: bool,
    map: Option<CoordinateMap>,
) -> Value {
    let mut body = body_head(model, request, strict_schema);
    let messages = mapped_messages_json(request.system.as_deref(), &request.messages, map);
    body.insert("messages".into(), Value::Array(messages));
    Value::Object(body)
}

/// `message` with its `computer` calls' points in the model's space (itself when there is
/// nothing to map).
fn in_model_space(message: &Message, map: Option<CoordinateMap>) -> std::borrow::Cow<'_, Message> {
    let Some(map) = map.filter(|_| message.role == Role::Assistant) else {
        return std::borrow::Cow::Borrowed(message);
    };
    let mut mapped = message.clone();
    if let MessageContent::Blocks(blocks) = &mut mapped.content {
        for block in blocks {
            if let ContentBlock::ToolUse(call) = block
                && call.name == retrace_protocol::tool_names::COMPUTER
            {
                map.to_model(&mut call.input);
            }
        }
    }
    std::borrow::Cow::Owned(mapped)
}

/// [`request_body`] as the bytes sent, each history message's JSON taken from `cache` when
/// an earlier request had the same message (the bytes are the same either way).
pub(crate) fn request_bytes(
    model: &str,
    request: &MessageRequest,
    strict_schema: bool,
    map: Option<CoordinateMap>,
    cache: &FragmentCache,
) -> Result<Bytes, VlmError> {
    let mut fragments = Vec::with_capacity(request.messages.len() + 1);
    if let Some(system) = &request.system {
        let system = serde_json::to_vec(&system_json(system)).map_err(|e| VlmError::Config {
            detail: format!("cannot serialise the system prompt: {e}"),
        })?;
        fragments.push(Bytes::from(system));
    }
    fragments.extend(cache.fragments(&request.messages, |message| {
        message_json(&in_model_space(message, map))
    })?);
    assemble(
        &body_head(model, request, strict_schema),
        "messages",
        &fragments,
    )
}

/// The chat messages one history message maps to, as comma-separated JSON values (empty
/// when it maps to none).
pub(crate) fn message_json(message: &Message) -> Result<Vec<u8>, serde_json::Error> {
    let mut values = Vec::with_capacity(1);
    push_message(&mut values, message);
    let mut out = Vec::new();
    for (index, value) in values.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        serde_json::to_writer(&mut out, value)?;
    }
    Ok(out)
}

/// Every field of the body in order, with `messages` as a `null` placeholder. The output
/// limit's field and whether `temperature` goes are the [catalogue](crate::catalog)'s for
/// `model`: OpenAI's GPT-5 models take `max_completion_tokens` and refuse `max_tokens` and
/// `temperature`; servers the catalogue does not know keep `max_tokens`.
fn body_head(model: &str, request: &MessageRequest, strict_schema: bool) -> Map<String, Value> {
    let profile = crate::catalog::profile(
        crate::catalog::ModelProvider::OpenaiCompatible,
        model,
        crate::catalog::ProfileOverrides::default(),
    );
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("messages".into(), Value::Null);
    body.insert(
        profile.token_limit.field().into(),
        json!(request.max_tokens),
    );
    if let Some(temperature) = request.temperature.filter(|_| profile.takes_temperature) {
        body.insert("temperature".into(), json!(temperature));
    }
    if !request.tools.is_empty() {
        body.insert(
            "tools".into(),
            Value::Array(request.tools.iter().map(tool_json).collect()),
        );
    }
    if let Some(choice) = &request.tool_choice {
        body.insert("tool_choice".into(), tool_choice_json(choice));
    }
    if let Some(schema) = &request.response_schema {
        body.insert(
            "response_format".into(),
            json!({
                "type": "json_schema",
                "json_schema": {"name": RESPONSE_SCHEMA_NAME, "schema": schema, "strict": strict_schema},
            }),
        );
    }
    body
}

/// The `messages` array: the system prompt, then each message mapped.
pub fn messages_json(system: Option<&str>, messages: &[Message]) -> Vec<Value> {
    mapped_messages_json(system, messages, None)
}

/// [`messages_json`] with the history's points mapped into the model's space by `map`.
fn mapped_messages_json(
    system: Option<&str>,
    messages: &[Message],
    map: Option<CoordinateMap>,
) -> Vec<Value> {
    let mut out = Vec::with_capacity(messages.len() + 1);
    if let Some(system) = system {
        out.push(system_json(system));
    }
    for message in messages {
        push_message(&mut out, &in_model_space(message, map));
    }
    out
}

fn system_json(system: &str) -> Value {
    json!({"role": "system", "content": system})
}

/// The chat messages one history message maps to.
fn push_message(out: &mut Vec<Value>, message: &Message) {
    match message.role {
        Role::Assistant => out.push(assistant_json(message)),
        Role::User => push_user(out, message),
    }
}

fn assistant_json(message: &Message) -> Value {
    let text = message.text();
    let tool_calls: Vec<Value> = message.tool_uses().map(tool_call_json).collect();
    let mut object = Map::new();
    object.insert("role".into(), json!("assistant"));
    let content = if text.is_empty() && !tool_calls.is_empty() {
        Value::Null
    } else {
        json!(text)
    };
    object.insert("content".into(), content);
    if !tool_calls.is_empty() {
        object.insert("tool_calls".into(), Value::Array(tool_calls));
    }
    Value::Object(object)
}

fn tool_call_json(call: &ToolUseBlock) -> Value {
    json!({
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.input.to_string()},
    })
}

/// A user message: its tool results first (as `tool` messages, which must follow the
/// assistant's calls), then one user message with the results' images and the user's own
/// text and images.
fn push_user(out: &mut Vec<Value>, message: &Message) {
    let blocks = match &message.content {
        MessageContent::Text(text) => {
            out.push(json!({"role": "user", "content": text}));
            return;
        }
        MessageContent::Blocks(blocks) => blocks,
    };
    let mut moved_images = Vec::new();
    let mut parts = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::ToolResult(result) => {
                out.push(tool_message(result));
                let images: Vec<Value> = result.images().map(image_part).collect();
                if !images.is_empty() {
                    moved_images.push(text_part(&format!(
                        "Image(s) returned by tool call {}:",
                        result.tool_use_id
                    )));
                    moved_images.extend(images);
                }
            }
            ContentBlock::Text { text, .. } => parts.push(text_part(text)),
            ContentBlock::Image { source, .. } => parts.push(image_part(source)),
            _ => {}
        }
    }
    moved_images.extend(parts);
    if moved_images.is_empty() {
        return;
    }
    let content = match moved_images.as_slice() {
        [only] if only["type"] == "text" => only["text"].clone(),
        _ => Value::Array(moved_images),
    };
    out.push(json!({"role": "user", "content": content}));
}

fn tool_message(result: &ToolResultBlock) -> Value {
    let mut text = result.text();
    if text.is_empty() {
        text = if result.images().next().is_some() {
            "(the result is the image in the next message)".into()
        } else {
            "(no output)".into()
        };
    }
    if result.is_error() {
        text = format!("Error: {text}");
    }
    json!({"role": "tool", "tool_call_id": result.tool_use_id, "content": text})
}

fn text_part(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

fn image_part(source: &ImageSource) -> Value {
    let url = match source {
        ImageSource::Base64 { media_type, data } => format!("data:{media_type};base64,{data}"),
        ImageSource::Url { url } => url.clone(),
    };
    json!({"type": "image_url", "image_url": {"url": url}})
}

fn tool_json(tool: &ToolSpec) -> Value {
    match tool {
        ToolSpec::Custom {
            name,
            description,
            input_schema,
        } => json!({
            "type": "function",
            "function": {"name": name, "description": description, "parameters": input_schema},
        }),
        ToolSpec::Computer {
            display_width_px,
            display_height_px,
        } => computer_function(*display_width_px, *display_height_px),
    }
}

fn tool_choice_json(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::Any => json!("required"),
        ToolChoice::None => json!("none"),
        ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
    }
}

/// Reads a successful response body.
pub fn parse_response(body: &str) -> Result<MessageResponse, VlmError> {
    let value: Value = serde_json::from_str(body)
        .map_err(|e| VlmError::bad_response(format!("the body is not JSON ({e})"), body))?;
    let bad = |detail: String| VlmError::bad_response(detail, body);
    let choice = value
        .get("choices")
        .and_then(|choices| choices.get(0))
        .ok_or_else(|| bad("missing `choices[0]`".into()))?;
    let message = choice
        .get("message")
        .filter(|message| message.is_object())
        .ok_or_else(|| bad("missing object `choices[0].message`".into()))?;

    let mut content = Vec::new();
    match message.get("content") {
        None | Some(Value::Null) => {}
        Some(Value::String(text)) if text.is_empty() => {}
        Some(Value::String(text)) => content.push(ContentBlock::text(text.clone())),
        Some(Value::Array(parts)) => content.extend(
            parts
                .iter()
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .map(ContentBlock::text),
        ),
        Some(other) => {
            return Err(bad(format!(
                "`choices[0].message.content` must be a string, got {other}"
            )));
        }
    }
    let refusal = message.get("refusal").and_then(Value::as_str);
    if let Some(refusal) = refusal
        && content.is_empty()
    {
        content.push(ContentBlock::text(refusal));
    }
    let calls = match message.get("tool_calls") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(calls)) => calls.as_slice(),
        Some(_) => return Err(bad("`tool_calls` must be an array".into())),
    };
    for (index, call) in calls.iter().enumerate() {
        content.push(ContentBlock::ToolUse(parse_tool_call(call, index, body)?));
    }

    let finish = choice.get("finish_reason").and_then(Value::as_str);
    let stop_reason = match (finish, refusal) {
        (_, Some(_)) | (Some("content_filter"), _) => StopReason::Refusal,
        (Some("length"), _) => StopReason::MaxTokens,
        (Some("tool_calls" | "function_call"), _) => StopReason::ToolUse,
        // Some servers (Ollama) say `stop` even when they call tools.
        (Some("stop") | None, _) if !calls.is_empty() => StopReason::ToolUse,
        (Some("stop") | None, _) => StopReason::EndTurn,
        (Some(other), _) => StopReason::Other(other.to_owned()),
    };
    Ok(MessageResponse {
        id: value
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        content,
        stop_reason,
        usage: parse_usage(value.get("usage")),
        model: value
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
    })
}

fn parse_tool_call(call: &Value, index: usize, body: &str) -> Result<ToolUseBlock, VlmError> {
    let at = format!("`choices[0].message.tool_calls[{index}]`");
    let function = call
        .get("function")
        .ok_or_else(|| VlmError::bad_response(format!("{at} has no `function`"), body))?;
    let name = function
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| VlmError::bad_response(format!("{at} has no `function.name`"), body))?;
    let input = match function.get("arguments") {
        None | Some(Value::Null) => json!({}),
        Some(Value::String(text)) if text.trim().is_empty() => json!({}),
        Some(Value::String(text)) => serde_json::from_str(text).map_err(|e| {
            VlmError::bad_response(
                format!("{at} (`{name}`): `arguments` is not valid JSON ({e}): {text}"),
                body,
            )
        })?,
        // Some servers send the arguments as an object already.
        Some(object @ Value::Object(_)) => object.clone(),
        Some(other) => {
            return Err(VlmError::bad_response(
                format!("{at} (`{name}`): `arguments` must be a JSON string, got {other}"),
                body,
            ));
        }
    };
    let id = call
        .get("id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map_or_else(|| format!("call_{index}"), str::to_owned);
    Ok(ToolUseBlock::new(id, name, input))
}

fn parse_usage(usage: Option<&Value>) -> Usage {
    let number = |path: &[&str]| {
        let mut value = usage;
        for key in path {
            value = value.and_then(|v| v.get(*key));
        }
        value.and_then(Value::as_u64).unwrap_or(0)
    };
    let prompt = number(&["prompt_tokens"]);
    let cached = number(&["prompt_tokens_details", "cached_tokens"]).min(prompt);
    Usage {
        input_tokens: prompt - cached,
        output_tokens: number(&["completion_tokens"]),
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: cached,
    }
}

/// The API's error type (or code) and message from an error body. Understands OpenAI's
/// `{"error": {"message", "type", "code"}}`, Ollama's `{"error": "..."}`, vLLM's
/// `{"object": "error", "message", "type"}` and FastAPI's `{"detail": ...}`; any other body
/// gives no type and an excerpt of the body.
pub fn parse_error(body: &str) -> (Option<String>, String) {
    let Ok(value) = serde_json::from_str::<Value>(body) else {
        return (None, crate::error::excerpt(body));
    };
    let text = |value: Option<&Value>| value.and_then(Value::as_str).map(str::to_owned);
    let holder = match value.get("error") {
        Some(Value::String(message)) => return (None, message.clone()),
        Some(error @ Value::Object(_)) => error,
        _ => &value,
    };
    let kind = text(holder.get("code"))
        .filter(|code| !code.is_empty())
        .or_else(|| text(holder.get("type")));
    let detail = holder.get("detail").map(|detail| {
        detail
            .as_str()
            .map_or_else(|| detail.to_string(), str::to_owned)
    });
    match text(holder.get("message")).or(detail) {
        Some(message) => (kind, message),
        None => (kind, crate::error::excerpt(body)),
    }
}

#[cfg(test)]
#[path = "wire_tests.rs"]
mod tests;
