//! The SDK body checker itself (`retrace_test_support::sdk_check`): bodies of every form
//! retrace sends pass against the pinned SDKs' request types, and the checker is shown to
//! refuse what the SDKs' types refuse: a misspelt field at the top and deep inside a tool, a
//! wrong literal, a wrong value type, a bad element deep inside an `Iterable`.
//!
//! Each test installs `anthropic` and `openai` from PyPI into a cached venv on first use; off
//! CI it is skipped when that cannot be done.

use pretty_assertions::assert_eq;
use retrace_test_support::sdk_check::SdkApi;
use retrace_test_support::sdk_check::validate;
use retrace_test_support::sdk_check::validate_each;
use serde_json::Value;
use serde_json::json;

const PNG: &str = "iVBORw0KGgo=";

/// A beta request with `computer_20250124` (Sonnet 4.5 and older), cache breakpoints on the
/// system prompt, the tool and the last message.
fn beta_20250124() -> Value {
    json!({
        "model": "claude-sonnet-4-5",
        "max_tokens": 4096,
        "system": [{"type": "text", "text": "You operate a web page.", "cache_control": {"type": "ephemeral"}}],
        "tools": [{
            "type": "computer_20250124", "name": "computer",
            "display_width_px": 1280, "display_height_px": 800,
            "cache_control": {"type": "ephemeral"},
        }],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Log in"}]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Clicking."},
                {"type": "tool_use", "id": "toolu_1", "name": "computer",
                 "input": {"action": "left_click", "coordinate": [640, 400]}},
            ]},
            {"role": "user", "content": [{
                "type": "tool_result", "tool_use_id": "toolu_1", "is_error": false,
                "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}],
                "cache_control": {"type": "ephemeral", "ttl": "5m"},
            }]},
        ],
    })
}

/// A beta request with `computer_20251124` and zoom (Opus 4.5 and later, Sonnet 4.6).
fn beta_20251124() -> Value {
    json!({
        "model": "claude-sonnet-4-6",
        "max_tokens": 4096,
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "tools": [{
            "type": "computer_20251124", "name": "computer",
            "display_width_px": 1280, "display_height_px": 800, "enable_zoom": true,
        }],
        "messages": [{"role": "user", "content": "Log in"}],
    })
}

/// A GA request with the computer toolset: `configs`, a toolset tool_use in the history and
/// its tool_result with `toolset_name`, adaptive thinking with effort.
fn ga_toolset() -> Value {
    json!({
        "model": "claude-opus-5-5",
        "max_tokens": 8192,
        "thinking": {"type": "adaptive"},
        "output_config": {"effort": "high"},
        "system": [{"type": "text", "text": "You operate a web page.", "cache_control": {"type": "ephemeral"}}],
        "tools": [{
            "type": "computer_toolset_20260801",
            "configs": {"zoom": {"enabled": true}, "hold_key": {"enabled": false}},
            "cache_control": {"type": "ephemeral"},
        }],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Log in"}]},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "left_click", "toolset_name": "computer",
                 "input": {"coordinate": [640, 400]}},
                {"type": "tool_use", "id": "toolu_2", "name": "type", "toolset_name": "computer",
                 "input": {"text": "demo"}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "toolset_name": "computer",
                 "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}]},
                {"type": "tool_result", "tool_use_id": "toolu_2", "toolset_name": "computer",
                 "content": "typed", "cache_control": {"type": "ephemeral"}},
            ]},
        ],
    })
}

/// A chat completions request as OpenAI's own models take it: `max_completion_tokens`, a
/// function tool, a screenshot as `image_url` content, a tool call and its result.
fn openai_chat() -> Value {
    json!({
        "model": "gpt-5.2",
        "max_completion_tokens": 4096,
        "tools": [{"type": "function", "function": {
            "name": "computer", "description": "Operate the screen.",
            "parameters": {"type": "object", "properties": {"action": {"type": "string"}}, "required": ["action"]},
        }}],
        "messages": [
            {"role": "system", "content": "You operate a web page."},
            {"role": "user", "content": [
                {"type": "text", "text": "Log in"},
                {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG}")}},
            ]},
            {"role": "assistant", "content": null, "tool_calls": [{
                "id": "call_1", "type": "function",
                "function": {"name": "computer", "arguments": "{\"action\":\"screenshot\"}"},
            }]},
            {"role": "tool", "tool_call_id": "call_1", "content": "done"},
        ],
    })
}

/// A Responses API request with OpenAI's computer tool and a `computer_call_output` item.
fn openai_responses() -> Value {
    json!({
        "model": "gpt-5.5",
        "tools": [{"type": "computer"}],
        "truncation": "auto",
        "input": [
            {"role": "user", "content": [{"type": "input_text", "text": "Log in"}]},
            {"type": "computer_call_output", "call_id": "call_1",
             "acknowledged_safety_checks": [{"id": "sc_1", "code": "malicious_instructions", "message": "m"}],
             "output": {"type": "computer_screenshot", "image_url": format!("data:image/png;base64,{PNG}")}},
        ],
    })
}

#[test]
fn bodies_of_every_form_retrace_sends_pass() {
    let beta_a = beta_20250124();
    let beta_b = beta_20251124();
    let ga = ga_toolset();
    let chat = openai_chat();
    let responses = openai_responses();
    let items = [
        (SdkApi::AnthropicBetaMessages, &beta_a),
        (SdkApi::AnthropicBetaMessages, &beta_b),
        (SdkApi::AnthropicMessages, &ga),
        // The toolset is in the beta types too.
        (SdkApi::AnthropicBetaMessages, &ga),
        (SdkApi::OpenAiChat, &chat),
        (SdkApi::OpenAiResponses, &responses),
    ];
    let Some(verdicts) = validate_each(&items) else {
        return;
    };
    assert_eq!(verdicts, vec![Ok(()); items.len()]);
}

/// The errors for `body` after `edit`, which must fail.
fn errors_after(
    api: SdkApi,
    mut body: Value,
    edit: impl FnOnce(&mut Value),
) -> Option<Vec<String>> {
    edit(&mut body);
    let verdicts = validate(api, &[body])?;
    Some(
        verdicts[0]
            .clone()
            .expect_err("the edited body must be refused"),
    )
}

#[test]
fn a_misspelt_top_level_field_is_refused() {
    let Some(errors) = errors_after(SdkApi::AnthropicMessages, ga_toolset(), |body| {
        let max = body.as_object_mut().unwrap().remove("max_tokens").unwrap();
        body["max_token"] = max;
    }) else {
        return;
    };
    assert_eq!(
        errors,
        vec![
            "max_token: unknown field (not a field of MessageCreateParamsNonStreaming)",
            "max_tokens: required field of MessageCreateParamsNonStreaming missing",
        ]
    );
}

#[test]
fn a_misspelt_field_inside_a_tool_is_refused() {
    let Some(errors) = errors_after(SdkApi::AnthropicBetaMessages, beta_20250124(), |body| {
        let tool = body["tools"][0].as_object_mut().unwrap();
        let width = tool.remove("display_width_px").unwrap();
        tool.insert("display_widht_px".into(), width);
    }) else {
        return;
    };
    assert_eq!(
        errors,
        vec![
            "tools[0].display_widht_px: unknown field (not a field of BetaToolComputerUse20250124Param)",
            "tools[0].display_width_px: required field of BetaToolComputerUse20250124Param missing",
        ]
    );
}

#[test]
fn a_wrong_literal_is_refused_naming_the_field() {
    let Some(errors) = errors_after(SdkApi::AnthropicBetaMessages, beta_20250124(), |body| {
        body["tools"][0]["type"] = json!("computer_20990101");
    }) else {
        return;
    };
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("tools[0].type: \"computer_20990101\" is not one of \"custom\""),
        "{errors:?}"
    );
}

#[test]
fn a_value_of_the_wrong_type_is_refused() {
    let Some(errors) = errors_after(SdkApi::AnthropicMessages, ga_toolset(), |body| {
        body["max_tokens"] = json!("10");
    }) else {
        return;
    };
    assert_eq!(errors, vec!["max_tokens: expected int, got string \"10\""]);
}

#[test]
fn a_bad_element_deep_inside_an_iterable_is_refused() {
    // messages[1].content[0]: pydantic's TypeAdapter would accept this without walking the
    // Iterable; the checker walks it.
    let Some(errors) = errors_after(SdkApi::AnthropicMessages, ga_toolset(), |body| {
        body["messages"][1]["content"][0]["toolset_nam"] = json!("computer");
    }) else {
        return;
    };
    assert_eq!(
        errors,
        vec![
            "messages[1].content[0].toolset_nam: unknown field (not a field of ToolUseBlockParam)"
        ]
    );
}

#[test]
fn openai_misspellings_are_refused_in_both_apis() {
    let chat = {
        let mut body = openai_chat();
        body["messages"][1]["content"][1]["image_url"]["detial"] = json!("high");
        body
    };
    let responses = {
        let mut body = openai_responses();
        body["input"][1]["output"]["imag_url"] = json!("x");
        body
    };
    let Some(verdicts) = validate_each(&[
        (SdkApi::OpenAiChat, &chat),
        (SdkApi::OpenAiResponses, &responses),
    ]) else {
        return;
    };
    let chat_errors = verdicts[0].clone().unwrap_err();
    assert!(
        chat_errors
            .iter()
            .any(|e| e.starts_with("messages[1].content[1].image_url.detial: unknown field")),
        "{chat_errors:?}"
    );
    let responses_errors = verdicts[1].clone().unwrap_err();
    assert!(
        responses_errors
            .iter()
            .any(|e| e.starts_with("input[1].output.imag_url: unknown field")),
        "{responses_errors:?}"
    );
}

#[test]
fn temperature_is_not_a_field_of_the_current_anthropic_sdk() {
    // anthropic 2.14.0's MessageCreateParams has no `temperature` (nor top_p / top_k): a
    // request carrying it does not validate, whatever the model.
    let Some(errors) = errors_after(SdkApi::AnthropicMessages, ga_toolset(), |body| {
        body["temperature"] = json!(0.0);
    }) else {
        return;
    };
    assert_eq!(
        errors,
        vec!["temperature: unknown field (not a field of MessageCreateParamsNonStreaming)"]
    );
}

#[test]
fn responses_are_checked_strictly_against_the_sdk_models() {
    let message = json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-opus-5-5",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "left_click", "toolset_name": "computer",
                     "caller": {"type": "direct"}, "input": {"coordinate": [1, 2]}}],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": {"input_tokens": 1, "output_tokens": 2},
    });
    let extra_key = {
        let mut body = message.clone();
        body["usage"]["input_tokenz"] = json!(1);
        body
    };
    let no_caller = {
        let mut body = message.clone();
        body["content"][0].as_object_mut().unwrap().remove("caller");
        body
    };
    let Some(verdicts) = validate(SdkApi::AnthropicResponse, &[message, extra_key, no_caller])
    else {
        return;
    };
    assert_eq!(verdicts[0], Ok(()));
    assert_eq!(
        verdicts[1],
        Err(vec![
            "usage.input_tokenz: unknown field (not a field of Usage)".to_owned()
        ])
    );
    assert_eq!(
        verdicts[2],
        Err(vec![
            "content[0].caller: required field of ComputerLeftClickToolUseBlock missing".to_owned()
        ])
    );
}

#[test]
fn a_responses_api_reply_with_a_computer_call_is_checked() {
    let reply = json!({
        "id": "resp_1", "object": "response", "created_at": 1_700_000_000, "model": "gpt-5.5",
        "status": "completed", "parallel_tool_calls": true, "tool_choice": "auto",
        "tools": [{"type": "computer"}], "error": null, "incomplete_details": null,
        "instructions": null, "metadata": {}, "temperature": 1.0, "top_p": 1.0,
        "output": [{"type": "computer_call", "id": "cu_1", "call_id": "call_1", "status": "completed",
                    "pending_safety_checks": [], "actions": [{"type": "click", "button": "left", "x": 10, "y": 20}]}],
    });
    let mut misspelt = reply.clone();
    misspelt["output"][0]["actions"][0]["buton"] = json!("left");
    let Some(verdicts) = validate(SdkApi::OpenAiResponsesResponse, &[reply, misspelt]) else {
        return;
    };
    assert_eq!(verdicts[0], Ok(()));
    let errors = verdicts[1].clone().unwrap_err();
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with("output[0].actions[0].buton: unknown field")),
        "{errors:?}"
    );
}
