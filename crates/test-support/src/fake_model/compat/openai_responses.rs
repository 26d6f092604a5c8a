//! The Responses API's refusals (`POST /v1/responses`), for the computer-use models it
//! serves (`computer-use-preview`, GPT-5 and later with the `computer` tool):
//! - `max_tokens` is not one of its fields (`openai` 3.57.0,
//!   `types/responses/response_create_params.py` has `max_output_tokens`);
//! - `temperature` is refused by these reasoning models;
//! - a `computer_call_output` must answer a `computer_call` of the same input, with a
//!   screenshot;
//! - a `computer_call` the fake sent after a reasoning item (`cu_fake_<n>` after
//!   `rs_fake_<n>`) must come back right after that item;
//! - a `computer_call` with pending safety checks must be answered by an output that
//!   acknowledges every one of them.

use std::collections::HashMap;

use serde_json::Value;
use serde_json::json;

use super::Refusal;

/// What the reply needs from an admitted request: `{"model", "tools", "tool_choice"}`.
pub(crate) fn admit(raw: &[u8]) -> Result<Value, Refusal> {
    let Ok(body) = serde_json::from_slice::<Value>(raw) else {
        return Ok(json!({}));
    };
    if body.get("max_tokens").is_some() {
        // Source: the API refuses fields `response_create_params.py` does not define, as
        // "Unknown parameter: '<name>'." with code `unknown_parameter` (the same shape as
        // its unsupported-parameter answers quoted in compat/openai.rs).
        return Err(Refusal {
            param: Some("max_tokens"),
            code: Some("unknown_parameter"),
            ..Refusal::invalid("Unknown parameter: 'max_tokens'.".into())
        });
    }
    if body.get("temperature").is_some_and(|t| !t.is_null()) {
        // Source: the API's answer for a reasoning model given a temperature
        // (CherryHQ/cherry-studio#911): "Unsupported parameter: 'temperature' is not
        // supported with this model.", param 'temperature', code 'unsupported_parameter'.
        return Err(Refusal {
            param: Some("temperature"),
            code: Some("unsupported_parameter"),
            ..Refusal::invalid(
                "Unsupported parameter: 'temperature' is not supported with this model.".into(),
            )
        });
    }
    let items = body
        .get("input")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    // Each computer_call's call_id → the ids of its pending safety checks.
    let mut pending: HashMap<String, Vec<String>> = HashMap::new();
    for item in items.iter().filter(|item| item["type"] == "computer_call") {
        let checks = item["pending_safety_checks"]
            .as_array()
            .into_iter()
            .flatten();
        let ids = checks
            .filter_map(|c| c["id"].as_str().map(str::to_owned))
            .collect();
        pending.insert(item["call_id"].as_str().unwrap_or("").to_owned(), ids);
    }
    for (index, item) in items.iter().enumerate() {
        let Some(n) = item["id"]
            .as_str()
            .and_then(|id| id.strip_prefix("cu_fake_"))
        else {
            continue;
        };
        let reasoning = format!("rs_fake_{n}");
        let before = index.checked_sub(1).and_then(|i| items.get(i));
        if before.is_some_and(|b| b["type"] == "reasoning" && b["id"] == reasoning.as_str()) {
            continue;
        }
        // Source: a replayed `cu_*` call whose preceding `rs_*` reasoning item was dropped
        // fails with HTTP 400 (can1357/oh-my-pi#6824); the message follows the API's answer
        // for the converse case (continuedev/continue#8933: "Item 'rs_...' of type
        // 'reasoning' was provided without its required following item.", param 'input').
        return Err(Refusal {
            param: Some("input"),
            ..Refusal::invalid(format!(
                "Item 'cu_fake_{n}' of type 'computer_call' was provided without its required \
                 'reasoning' item: '{reasoning}'."
            ))
        });
    }
    for item in items
        .iter()
        .filter(|item| item["type"] == "computer_call_output")
    {
        let call_id = item["call_id"].as_str().unwrap_or("");
        let url = item["output"]["image_url"].as_str().unwrap_or("");
        if item["output"]["file_id"].is_null()
            && !(url.starts_with("data:image/") || url.starts_with("https://"))
        {
            // Source: `response_input_param.py` (ComputerCallOutput): the output is a
            // `computer_screenshot` given by `image_url` or `file_id`. The wording is this
            // fake's own, in the API's "Invalid '<param>'" style.
            return Err(Refusal {
                param: Some("input"),
                ..Refusal::invalid(format!(
                    "Invalid 'output.image_url' of computer call output {call_id}: expected \
                     the URL of a screenshot, got '{url}'."
                ))
            });
        }
        let Some(checks) = pending.get(call_id) else {
            // Source: the API's answer to an output with no call (binaricat/Netcatty#684:
            // "No tool call found for function call output with call_id call_...").
            return Err(Refusal {
                param: Some("input"),
                ..Refusal::invalid(format!(
                    "No tool call found for computer call output with call_id {call_id}."
                ))
            });
        };
        let acknowledged: Vec<&str> = item["acknowledged_safety_checks"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["id"].as_str())
            .collect();
        let missing: Vec<&String> = checks
            .iter()
            .filter(|id| !acknowledged.contains(&id.as_str()))
            .collect();
        if !missing.is_empty() {
            // Source: the API's answer (openai/openai-agents-python#843): "Computer tool
            // has unacknowledged safety check for ['cu_sc_xxx']", param 'input', code null.
            let ids: Vec<String> = missing.iter().map(|id| format!("'{id}'")).collect();
            return Err(Refusal {
                param: Some("input"),
                ..Refusal::invalid(format!(
                    "Computer tool has unacknowledged safety check for [{}]",
                    ids.join(", ")
                ))
            });
        }
    }
    Ok(json!({
        "model": body.get("model"),
        "tools": body.get("tools").cloned().unwrap_or(json!([])),
        "tool_choice": body.get("tool_choice").cloned().unwrap_or(json!("auto")),
    }))
}
