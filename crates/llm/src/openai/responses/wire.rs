//! The Responses API wire format (`POST /v1/responses`), as pure functions over JSON.
//!
//! Shapes are those of `openai` 3.57.0 (PyPI): `types/responses/response_create_params.py`,
//! `response_input_param.py`, `response_computer_tool_call.py`, `computer_action.py`,
//! `response.py`. retrace's history is Anthropic-shaped; this maps it both ways:
//! - the system prompt becomes `instructions`; user text and images become a `message`
//!   with `input_text` / `input_image` parts; assistant text an assistant `message`;
//! - `computer` tool_use blocks become `computer_call` items: the blocks one `computer_call`
//!   came as share its `call_id` and are sent back as that one item (its `id`, `call_id` and
//!   `pending_safety_checks` are kept on the blocks under [`CALL_FIELD`]); other tool_use
//!   blocks become `function_call` items;
//! - a `computer` tool_result becomes the call's `computer_call_output` with the last
//!   screenshot of its results (a `computer_screenshot`), acknowledging the call's pending
//!   safety checks when the user allowed it; its text (an error, "not executed") follows in
//!   a user message, as a screenshot output has no text;
//! - a call none of whose results still holds a screenshot (the agent drops old ones; the
//!   API takes only a screenshot as a computer call's output) is sent as text, the call as
//!   an assistant message and its result as user text, without its reasoning item;
//! - `reasoning` items come back as [`ContentBlock::Other`] and are sent back as they came
//!   (the API refuses a `computer_call` whose reasoning item is missing);
//! - `output` comes back as text and tool_use blocks, `status`/`incomplete_details` as a
//!   [`StopReason`], `usage` as [`Usage`].

use std::collections::HashMap;
use std::collections::HashSet;

use retrace_protocol::ContentBlock;
use retrace_protocol::ImageSource;
use retrace_protocol::Message;
use retrace_protocol::MessageContent;
use retrace_protocol::Role;
use retrace_protocol::ToolResultBlock;
use retrace_protocol::ToolUseBlock;
use retrace_protocol::tool_names::COMPUTER;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use super::actions;

mod answer;
use crate::MessageRequest;
use crate::ToolChoice;
use crate::ToolSpec;
pub use answer::CALL_FIELD;
pub use answer::SafetyCheck;
pub use answer::parse_response;
pub use answer::pending_safety_checks;

/// Which computer tool a model takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComputerTool {
    /// `{"type": "computer_use_preview", display_width, display_height, environment}`
    /// (`computer_use_preview_tool_param.py`); calls carry one `action`.
    Preview,
    /// `{"type": "computer"}` (`computer_tool_param.py`); calls carry batched `actions`.
    Computer,
}

impl ComputerTool {
    /// The tool `model` takes: `computer-use-preview` (and its dated snapshots) the preview
    /// tool, newer models the GA `computer` tool.
    pub fn for_model(model: &str) -> Self {
        if model.starts_with("computer-use-preview") {
            ComputerTool::Preview
        } else {
            ComputerTool::Computer
        }
    }

    fn type_name(self) -> &'static str {
        match self {
            ComputerTool::Preview => "computer_use_preview",
            ComputerTool::Computer => "computer",
        }
    }
}

/// How a request is shaped beyond the [`MessageRequest`].
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// The computer tool's form.
    pub tool: ComputerTool,
    /// Whether pending safety checks are acknowledged (`--allow-safety-checks`).
    pub acknowledge_safety_checks: bool,
    /// `text.format.strict` for structured output.
    pub strict_schema: bool,
}

/// The JSON body for `POST {base}/responses`. No `temperature` (the computer-use models
/// refuse any but the default) and the limit as `max_output_tokens`.
pub fn request_body(model: &str, request: &MessageRequest, shape: Shape) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    if let Some(system) = &request.system {
        body.insert("instructions".into(), json!(system));
    }
    body.insert("input".into(), Value::Array(input_items(request, shape)));
    body.insert("max_output_tokens".into(), json!(request.max_tokens));
    if !request.tools.is_empty() {
        let tools = request.tools.iter().map(|tool| tool_json(tool, shape.tool));
        body.insert("tools".into(), Value::Array(tools.collect()));
    }
    if request.computer_tool().is_some() {
        // The computer tool requires truncation "auto" (OpenAI's computer use guide).
        body.insert("truncation".into(), json!("auto"));
    }
    if let Some(choice) = &request.tool_choice {
        body.insert("tool_choice".into(), tool_choice_json(choice, shape.tool));
    }
    if let Some(schema) = &request.response_schema {
        body.insert(
            "text".into(),
            json!({"format": {"type": "json_schema", "name": crate::openai::wire::RESPONSE_SCHEMA_NAME,
                              "schema": schema, "strict": shape.strict_schema}}),
        );
    }
    Value::Object(body)
}

fn tool_json(tool: &ToolSpec, form: ComputerTool) -> Value {
    match tool {
        ToolSpec::Custom {
            name,
            description,
            input_schema,
        } => json!({"type": "function", "name": name, "description": description,
                    "parameters": input_schema, "strict": false}),
        ToolSpec::Computer {
            display_width_px,
            display_height_px,
        } => match form {
            ComputerTool::Preview => json!({"type": "computer_use_preview",
                "display_width": display_width_px, "display_height": display_height_px,
                "environment": "browser"}),
            ComputerTool::Computer => json!({"type": "computer"}),
        },
    }
}

fn tool_choice_json(choice: &ToolChoice, form: ComputerTool) -> Value {
    match choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::Any => json!("required"),
        ToolChoice::None => json!("none"),
        ToolChoice::Tool(name) if name == COMPUTER => json!({"type": form.type_name()}),
        ToolChoice::Tool(name) => json!({"type": "function", "name": name}),
    }
}

/// The `computer_call` a block came as: from [`CALL_FIELD`], else one made up from the
/// block's id (a call recorded through another API).
fn call_of(call: &ToolUseBlock) -> Value {
    call.extra.get(CALL_FIELD).cloned().unwrap_or_else(|| {
        json!({"id": format!("cu_{}", call.id), "call_id": call.id,
               "pending_safety_checks": [], "batched": false})
    })
}

fn call_id_of(call: &Value) -> String {
    call.get("call_id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The `input` items of the whole history.
fn input_items(request: &MessageRequest, shape: Shape) -> Vec<Value> {
    // Each computer tool_use id → its call's JSON, for the results.
    let mut calls: HashMap<&str, Value> = HashMap::new();
    for message in request
        .messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
    {
        for call in message.tool_uses().filter(|call| call.name == COMPUTER) {
            calls.insert(&call.id, call_of(call));
        }
    }
    // The calls whose results still hold a screenshot: the agent drops old screenshots, and
    // a call whose output would have none is sent as text instead.
    let mut shown: HashSet<String> = HashSet::new();
    for message in request.messages.iter().filter(|m| m.role == Role::User) {
        let MessageContent::Blocks(blocks) = &message.content else {
            continue;
        };
        for block in blocks {
            if let ContentBlock::ToolResult(result) = block
                && let Some(call) = calls.get(result.tool_use_id.as_str())
                && result.images().next().is_some()
            {
                shown.insert(call_id_of(call));
            }
        }
    }
    let mut items = Vec::new();
    for message in &request.messages {
        match message.role {
            Role::Assistant => push_assistant(&mut items, message, &shown, shape),
            Role::User => push_user(&mut items, message, &calls, &shown, shape),
        }
    }
    items
}

fn push_assistant(
    items: &mut Vec<Value>,
    message: &Message,
    shown: &HashSet<String>,
    shape: Shape,
) {
    let MessageContent::Blocks(blocks) = &message.content else {
        items.push(json!({"role": "assistant", "content": message.text()}));
        return;
    };
    let mut index = 0;
    while index < blocks.len() {
        match &blocks[index] {
            ContentBlock::Text { text, .. } if !text.is_empty() => {
                items.push(json!({"role": "assistant", "content": text}));
            }
            ContentBlock::Other(item) if item.get("type") == Some(&json!("reasoning")) => {
                items.push(reasoning_param(item));
            }
            ContentBlock::ToolUse(call) if call.name == COMPUTER => {
                let head = call_of(call);
                let mut inputs = vec![&call.input];
                while let Some(ContentBlock::ToolUse(next)) = blocks.get(index + 1) {
                    if next.name != COMPUTER || call_id_of(&call_of(next)) != call_id_of(&head) {
                        break;
                    }
                    inputs.push(&next.input);
                    index += 1;
                }
                if shown.contains(&call_id_of(&head)) {
                    let group = inputs
                        .iter()
                        .map(|input| actions::from_computer_input(input));
                    items.push(computer_call_param(&head, group.collect(), shape.tool));
                } else {
                    // Its reasoning item goes with it: the API refuses one with no call after.
                    if items.last().is_some_and(|item| item["type"] == "reasoning") {
                        items.pop();
                    }
                    let said: Vec<String> = inputs.iter().map(ToString::to_string).collect();
                    items.push(json!({"role": "assistant", "content": format!(
                        "Computer call {} (its screenshot is no longer shown): {}",
                        call_id_of(&head),
                        said.join(", ")
                    )}));
                }
            }
            ContentBlock::ToolUse(call) => items.push(json!({
                "type": "function_call", "call_id": call.id, "name": call.name,
                "arguments": call.input.to_string(),
            })),
            _ => {}
        }
        index += 1;
    }
}

/// A reasoning item as the API takes it back (`response_reasoning_item_param.py`).
fn reasoning_param(item: &Value) -> Value {
    let mut out = Map::new();
    for key in ["type", "id", "summary", "content", "encrypted_content"] {
        if let Some(value) = item.get(key).filter(|value| !value.is_null()) {
            out.insert(key.into(), value.clone());
        }
    }
    out.entry("summary").or_insert(json!([]));
    Value::Object(out)
}

fn computer_call_param(call: &Value, mut group: Vec<Value>, tool: ComputerTool) -> Value {
    let batched = call.get("batched").and_then(Value::as_bool) == Some(true);
    let mut item = json!({
        "type": "computer_call",
        "id": call.get("id").cloned().unwrap_or(json!("")),
        "call_id": call_id_of(call),
        "pending_safety_checks": call.get("pending_safety_checks").cloned().unwrap_or(json!([])),
        "status": "completed",
    });
    if batched || tool == ComputerTool::Computer || group.len() > 1 {
        item["actions"] = Value::Array(group);
    } else if let Some(action) = group.pop() {
        item["action"] = action;
    }
    item
}

fn push_user(
    items: &mut Vec<Value>,
    message: &Message,
    calls: &HashMap<&str, Value>,
    shown: &HashSet<String>,
    shape: Shape,
) {
    let blocks = match &message.content {
        MessageContent::Text(text) => {
            items.push(json!({"role": "user", "content": [{"type": "input_text", "text": text}]}));
            return;
        }
        MessageContent::Blocks(blocks) => blocks,
    };
    let mut parts = Vec::new();
    // Results of one computer_call, in order: (call, images, texts).
    let mut outputs: Vec<(Value, Option<String>, Vec<String>)> = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::ToolResult(result) => match calls.get(result.tool_use_id.as_str()) {
                Some(call) => {
                    let image = result.images().last().map(image_url);
                    let text = result_text(result);
                    match outputs
                        .iter_mut()
                        .find(|(c, ..)| call_id_of(c) == call_id_of(call))
                    {
                        Some((_, last, texts)) => {
                            *last = image.or(last.take());
                            texts.extend(text);
                        }
                        None => outputs.push((call.clone(), image, text.into_iter().collect())),
                    }
                }
                None => {
                    let text = result_text(result).unwrap_or_else(|| "(no output)".into());
                    items.push(json!({"type": "function_call_output",
                                      "call_id": result.tool_use_id, "output": text}));
                    parts.extend(result.images().map(|source| image_part(&image_url(source))));
                }
            },
            ContentBlock::Text { text, .. } => {
                parts.push(json!({"type": "input_text", "text": text}))
            }
            ContentBlock::Image { source, .. } => parts.push(image_part(&image_url(source))),
            _ => {}
        }
    }
    let mut notes = Vec::new();
    for (call, image, texts) in outputs {
        let mut texts = texts.into_iter().map(|text| {
            json!({"type": "input_text",
                   "text": format!("Computer call {}: {text}", call_id_of(&call))})
        });
        let Some(image) = image.filter(|_| shown.contains(&call_id_of(&call))) else {
            // Sent as text (push_assistant): its result is text too.
            notes.extend(texts);
            continue;
        };
        let mut item = json!({
            "type": "computer_call_output",
            "call_id": call_id_of(&call),
            "output": {"type": "computer_screenshot", "image_url": image},
        });
        let checks = call.get("pending_safety_checks").and_then(Value::as_array);
        if let Some(checks) = checks.filter(|c| !c.is_empty() && shape.acknowledge_safety_checks) {
            item["acknowledged_safety_checks"] = Value::Array(checks.clone());
        }
        items.push(item);
        notes.extend(&mut texts);
    }
    notes.extend(parts);
    if !notes.is_empty() {
        items.push(json!({"role": "user", "content": notes}));
    }
}

/// A result's text, marked when it is an error; `None` when it has none.
fn result_text(result: &ToolResultBlock) -> Option<String> {
    let text = result.text();
    match (text.is_empty(), result.is_error()) {
        (true, false) => None,
        (true, true) => Some("Error".into()),
        (false, true) => Some(format!("Error: {text}")),
        (false, false) => Some(text),
    }
}

fn image_url(source: &ImageSource) -> String {
    match source {
        ImageSource::Base64 { media_type, data } => format!("data:{media_type};base64,{data}"),
        ImageSource::Url { url } => url.clone(),
    }
}

fn image_part(url: &str) -> Value {
    json!({"type": "input_image", "image_url": url, "detail": "auto"})
}

#[cfg(test)]
#[path = "wire_tests.rs"]
mod tests;
