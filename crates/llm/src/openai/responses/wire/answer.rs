//! Reading a Responses API answer (`types/responses/response.py`): `output` items as text
//! and tool_use blocks, `status` as a stop reason, `usage`, and the pending safety checks.

use retrace_protocol::ContentBlock;
use retrace_protocol::StopReason;
use retrace_protocol::ToolUseBlock;
use retrace_protocol::Usage;
use retrace_protocol::tool_names::COMPUTER;
use serde_json::Value;
use serde_json::json;

use super::actions;
use crate::MessageResponse;
use crate::VlmError;

/// The field of a `computer` tool_use block's `extra` holding the `computer_call` it came
/// as: `{"id", "call_id", "pending_safety_checks", "batched"}`. Never sent to Anthropic (its
/// API view keeps no such field).
pub const CALL_FIELD: &str = "openai_computer_call";

/// Reads a successful response body (`types/responses/response.py`).
pub fn parse_response(body: &str) -> Result<MessageResponse, VlmError> {
    let value: Value = serde_json::from_str(body)
        .map_err(|e| VlmError::bad_response(format!("the body is not JSON ({e})"), body))?;
    let bad = |detail: String| VlmError::bad_response(detail, body);
    let output = value
        .get("output")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("missing array `output`".into()))?;
    let mut content = Vec::new();
    let mut refused = false;
    let mut calls = false;
    for (index, item) in output.iter().enumerate() {
        let at = format!("output[{index}]");
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                for part in item
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    match part.get("type").and_then(Value::as_str) {
                        Some("output_text") => {
                            let text = part.get("text").and_then(Value::as_str).unwrap_or("");
                            content.push(ContentBlock::text(text));
                        }
                        Some("refusal") => {
                            refused = true;
                            let text = part.get("refusal").and_then(Value::as_str).unwrap_or("");
                            content.push(ContentBlock::text(text));
                        }
                        _ => {}
                    }
                }
            }
            Some("reasoning") => content.push(ContentBlock::Other(item.clone())),
            Some("computer_call") => {
                calls = true;
                content.extend(computer_blocks(item, &at).map_err(bad)?);
            }
            Some("function_call") => {
                calls = true;
                content.push(ContentBlock::ToolUse(
                    function_block(item, &at).map_err(bad)?,
                ));
            }
            _ => {}
        }
    }
    let incomplete = value
        .pointer("/incomplete_details/reason")
        .and_then(Value::as_str);
    let stop_reason = match (value.get("status").and_then(Value::as_str), incomplete) {
        (_, Some("content_filter")) => StopReason::Refusal,
        _ if refused => StopReason::Refusal,
        (Some("incomplete"), Some("max_output_tokens")) => StopReason::MaxTokens,
        (Some("incomplete"), Some(other)) => StopReason::Other(other.to_owned()),
        _ if calls => StopReason::ToolUse,
        _ => StopReason::EndTurn,
    };
    let text = |key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    Ok(MessageResponse {
        id: text("id"),
        content,
        stop_reason,
        usage: parse_usage(value.get("usage")),
        model: text("model"),
    })
}

/// The `computer` tool_use blocks of one `computer_call` item: one per action, the first
/// with the call's id, the rest `<call_id>#<n>`.
fn computer_blocks(item: &Value, at: &str) -> Result<Vec<ContentBlock>, String> {
    let field = |key: &str| {
        item.get(key)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{at} (computer_call) has no string `{key}`"))
    };
    let (id, call_id) = (field("id")?, field("call_id")?);
    let (list, batched) = match (item.get("actions"), item.get("action")) {
        (Some(Value::Array(list)), _) => (list.clone(), true),
        (_, Some(action)) if action.is_object() => (vec![action.clone()], false),
        _ => {
            return Err(format!(
                "{at} (computer_call) has neither `action` nor `actions`"
            ));
        }
    };
    let checks = item
        .get("pending_safety_checks")
        .cloned()
        .unwrap_or(json!([]));
    let call = json!({"id": id, "call_id": call_id, "pending_safety_checks": checks,
                      "batched": batched});
    let mut blocks = Vec::with_capacity(list.len());
    for (n, action) in list.iter().enumerate() {
        let where_ = if batched {
            format!("{at}.actions[{n}]")
        } else {
            format!("{at}.action")
        };
        let input = actions::to_computer_input(action, &where_)?;
        let block_id = if n == 0 {
            call_id.to_owned()
        } else {
            format!("{call_id}#{n}")
        };
        let mut block = ToolUseBlock::new(block_id, COMPUTER, input);
        block.extra.insert(CALL_FIELD.into(), call.clone());
        blocks.push(ContentBlock::ToolUse(block));
    }
    Ok(blocks)
}

fn function_block(item: &Value, at: &str) -> Result<ToolUseBlock, String> {
    let field = |key: &str| {
        item.get(key)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{at} (function_call) has no string `{key}`"))
    };
    let arguments = field("arguments")?;
    let input = serde_json::from_str(arguments)
        .map_err(|e| format!("{at} (function_call): `arguments` is not JSON ({e})"))?;
    Ok(ToolUseBlock::new(field("call_id")?, field("name")?, input))
}

fn parse_usage(usage: Option<&Value>) -> Usage {
    let number = |pointer: &str| {
        usage
            .and_then(|usage| usage.pointer(pointer))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    let cached = number("/input_tokens_details/cached_tokens");
    Usage {
        input_tokens: number("/input_tokens").saturating_sub(cached),
        output_tokens: number("/output_tokens"),
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: cached,
    }
}

/// A pending safety check the model's answer waits on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SafetyCheck {
    /// The check's id.
    pub id: String,
    /// Its type (`malicious_instructions`, `irrelevant_domain`, `sensitive_domain`).
    pub code: String,
    /// What it says.
    pub message: String,
}

/// The pending safety checks of the `computer_call`s in `response`, in order.
pub fn pending_safety_checks(response: &MessageResponse) -> Vec<SafetyCheck> {
    let mut seen = Vec::new();
    for block in &response.content {
        let ContentBlock::ToolUse(call) = block else {
            continue;
        };
        let checks = call
            .extra
            .get(CALL_FIELD)
            .and_then(|c| c.get("pending_safety_checks"));
        for check in checks.and_then(Value::as_array).into_iter().flatten() {
            let text = |key: &str| {
                check
                    .get(key)
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned()
            };
            let check = SafetyCheck {
                id: text("id"),
                code: text("code"),
                message: text("message"),
            };
            if !seen.contains(&check) {
                seen.push(check);
            }
        }
    }
    seen
}
