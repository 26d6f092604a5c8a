//! Each rule refuses what it should, and the same request without the offending part passes
//! (so the refusal is that rule's doing, and removing the rule fails its test).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use serde_json::Value;
use serde_json::json;

use super::Refusal;
use super::anthropic;
use super::anthropic::COMPUTER_20250124;
use super::anthropic::COMPUTER_20251124;
use super::anthropic::COMPUTER_TOOLSET_20260801;
use super::anthropic::ComputerForm;
use super::anthropic::MODEL_RULES;
use super::openai;

fn headers(beta: Option<&str>) -> BTreeMap<String, String> {
    let mut headers = BTreeMap::from([("anthropic-version".to_owned(), "2026-10-21".to_owned())]);
    if let Some(beta) = beta {
        headers.insert("anthropic-beta".into(), beta.into());
    }
    headers
}

/// The `tools[]` entry and beta header of a form, as a client that gets it right sends it.
fn tool_of(form: &ComputerForm) -> Value {
    if form.beta.is_none() {
        return json!({"type": form.tool_type, "configs": {"zoom": {"enabled": true}}});
    }
    json!({"type": form.tool_type, "name": "computer", "display_width_px": 1280, "display_height_px": 800})
}

fn request(model: &str, tools: Vec<Value>) -> Value {
    json!({"model": model, "max_tokens": 1024, "tools": tools, "messages": [{"role": "user", "content": "go"}]})
}

fn admit(headers: &BTreeMap<String, String>, body: &Value) -> Result<Value, Refusal> {
    anthropic::admit(headers, body.to_string().as_bytes())
}

fn message(result: Result<Value, Refusal>) -> String {
    let refusal = result.expect_err("the request must be refused");
    assert_eq!(
        (refusal.status, refusal.error_type),
        (400, "invalid_request_error")
    );
    refusal.message
}

#[test]
fn a_missing_anthropic_version_header_is_refused() {
    let body = request("claude-test", vec![]);
    assert_eq!(
        message(anthropic::admit(
            &BTreeMap::new(),
            body.to_string().as_bytes()
        )),
        "anthropic-version: header is required"
    );
    assert!(admit(&headers(None), &body).is_ok());
}

#[test]
fn every_known_model_takes_exactly_the_forms_of_its_rule() {
    let forms = [
        &COMPUTER_20250124,
        &COMPUTER_20251124,
        &COMPUTER_TOOLSET_20260801,
    ];
    for rule in MODEL_RULES {
        for model in rule.ids {
            for form in forms {
                let result = admit(&headers(form.beta), &request(model, vec![tool_of(form)]));
                if rule.forms.contains(&form) {
                    assert!(result.is_ok(), "{model} {}: {result:?}", form.tool_type);
                } else {
                    assert_eq!(
                        message(result),
                        format!("'{model}' does not support tool types: {}", form.tool_type)
                    );
                }
            }
        }
    }
}

#[test]
fn the_issues_examples_of_which_form_a_model_takes() {
    let cases = [
        ("claude-sonnet-4-5", &COMPUTER_20250124),
        ("claude-haiku-4-5", &COMPUTER_20250124),
        ("claude-sonnet-4-6", &COMPUTER_20251124),
        ("claude-opus-4-5", &COMPUTER_20251124),
        ("claude-opus-5", &COMPUTER_20251124),
        ("claude-opus-5-5", &COMPUTER_TOOLSET_20260801),
    ];
    for (model, form) in cases {
        let rule = anthropic::model_rule(model).unwrap();
        assert_eq!(rule.forms, [form], "{model}");
    }
    assert!(anthropic::model_rule("claude-test").is_none());
}

#[test]
fn unknown_models_take_any_form_and_a_made_up_one() {
    for form in [
        &COMPUTER_20250124,
        &COMPUTER_20251124,
        &COMPUTER_TOOLSET_20260801,
    ] {
        let body = request("claude-test", vec![tool_of(form)]);
        assert!(
            admit(&headers(form.beta), &body).is_ok(),
            "{}",
            form.tool_type
        );
    }
    let made_up = json!({"type": "computer_20990101", "name": "computer"});
    assert!(
        admit(
            &headers(None),
            &request("claude-test", vec![made_up.clone()])
        )
        .is_ok()
    );
    assert_eq!(
        message(admit(
            &headers(None),
            &request("claude-opus-5-5", vec![made_up])
        )),
        "'claude-opus-5-5' does not support tool types: computer_20990101"
    );
}

#[test]
fn a_beta_form_without_its_beta_header_is_refused_for_any_model() {
    for (model, form) in [
        ("claude-test", &COMPUTER_20250124),
        ("claude-sonnet-4-6", &COMPUTER_20251124),
    ] {
        let body = request(model, vec![tool_of(form)]);
        let beta = form.beta.unwrap();
        assert_eq!(
            message(admit(&headers(None), &body)),
            format!(
                "tools.0.type: '{}' is a beta tool: it needs the header 'anthropic-beta: {beta}'",
                form.tool_type
            )
        );
        // Another beta does not stand in for it; a list including it does.
        assert!(admit(&headers(Some("prompt-caching-2024-07-31")), &body).is_err());
        let list = format!("prompt-caching-2024-07-31, {beta}");
        assert!(admit(&headers(Some(&list)), &body).is_ok());
    }
}

#[test]
fn unknown_fields_are_refused_for_known_models() {
    let mut body = request("claude-sonnet-4-5", vec![]);
    body["max_token"] = json!(10);
    assert_eq!(
        message(admit(&headers(None), &body)),
        "max_token: Extra inputs are not permitted"
    );
    body["model"] = json!("claude-test");
    assert!(admit(&headers(None), &body).is_ok());
    // Beta-only fields pass on a beta request only.
    let mut beta = request("claude-sonnet-4-5", vec![]);
    beta["context_management"] = json!({});
    assert!(admit(&headers(None), &beta).is_err());
    assert!(admit(&headers(Some("context-management-2025-06-27")), &beta).is_ok());
}

#[test]
fn unknown_fields_of_a_computer_tool_are_refused_for_known_models() {
    let mut tool = tool_of(&COMPUTER_20250124);
    tool["display_widht_px"] = tool
        .as_object_mut()
        .unwrap()
        .remove("display_width_px")
        .unwrap();
    let beta = headers(COMPUTER_20250124.beta);
    assert_eq!(
        message(admit(
            &beta,
            &request("claude-sonnet-4-5", vec![tool.clone()])
        )),
        "tools.0.display_widht_px: Extra inputs are not permitted"
    );
    assert!(admit(&beta, &request("claude-test", vec![tool])).is_ok());
    // The toolset entry carries only type, configs and cache_control.
    let mut toolset = tool_of(&COMPUTER_TOOLSET_20260801);
    toolset["display_width_px"] = json!(1280);
    assert_eq!(
        message(admit(
            &headers(None),
            &request("claude-opus-5-5", vec![toolset])
        )),
        "tools.0.display_width_px: Extra inputs are not permitted"
    );
    let mut zoom = tool_of(&COMPUTER_20251124);
    zoom["enable_zoom"] = json!(true);
    let beta = headers(COMPUTER_20251124.beta);
    assert!(admit(&beta, &request("claude-opus-4-6", vec![zoom])).is_ok());
}

#[test]
fn the_newest_models_refuse_temperature_and_manual_thinking() {
    for model in ["claude-opus-4-7", "claude-opus-5", "claude-sonnet-5-5"] {
        let mut body = request(model, vec![]);
        body["temperature"] = json!(0.0);
        assert_eq!(
            message(admit(&headers(None), &body)),
            format!(
                "temperature: '{model}' supports only the default temperature; omit temperature (got 0.0)"
            )
        );
        body["temperature"] = json!(1.0);
        assert!(admit(&headers(None), &body).is_ok(), "{model}");
        body["thinking"] = json!({"type": "enabled", "budget_tokens": 2048});
        assert!(message(admit(&headers(None), &body)).starts_with("thinking.type: 'enabled'"));
        body["thinking"] = json!({"type": "adaptive"});
        body["output_config"] = json!({"effort": "high"});
        assert!(admit(&headers(None), &body).is_ok(), "{model}");
    }
    for model in ["claude-sonnet-4-5", "claude-opus-4-6", "claude-test"] {
        let mut body = request(model, vec![]);
        body["temperature"] = json!(0.0);
        body["thinking"] = json!({"type": "enabled", "budget_tokens": 2048});
        assert!(admit(&headers(None), &body).is_ok(), "{model}");
    }
}

/// A toolset request whose history has a left_click and its result.
fn toolset_history(tool_use: Value, tool_result: Value) -> Value {
    json!({
        "model": "claude-test", "max_tokens": 1024,
        "tools": [{"type": "computer_toolset_20260801"}],
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [tool_use]},
            {"role": "user", "content": [tool_result]},
        ],
    })
}

#[test]
fn a_toolset_history_carries_toolset_name_on_calls_and_results() {
    let call = json!({"type": "tool_use", "id": "toolu_1", "name": "left_click", "toolset_name": "computer", "input": {"coordinate": [1, 2]}});
    let result = json!({"type": "tool_result", "tool_use_id": "toolu_1", "toolset_name": "computer", "content": "ok"});
    let head = admit(
        &headers(None),
        &toolset_history(call.clone(), result.clone()),
    )
    .unwrap();
    assert_eq!(head, json!({"model": "claude-test", "toolset": true}));

    let mut bare_result = result.clone();
    bare_result.as_object_mut().unwrap().remove("toolset_name");
    assert_eq!(
        message(admit(
            &headers(None),
            &toolset_history(call.clone(), bare_result)
        )),
        "messages.2.content.0.toolset_name: a tool_result for a computer toolset tool_use must carry toolset_name 'computer'"
    );
    let mut bare_call = call;
    bare_call.as_object_mut().unwrap().remove("toolset_name");
    assert_eq!(
        message(admit(&headers(None), &toolset_history(bare_call, result))),
        "messages.1.content.0: tool_use 'left_click' of the computer toolset must carry toolset_name 'computer'"
    );
}

#[test]
fn a_scripted_computer_call_is_rendered_in_the_toolset_shape() {
    let mut block = json!({"type": "tool_use", "id": "toolu_1", "name": "computer", "input": {"action": "left_click", "coordinate": [3, 4]}});
    anthropic::toolset_tool_use(&mut block);
    assert_eq!(
        block,
        json!({"type": "tool_use", "id": "toolu_1", "name": "left_click", "toolset_name": "computer",
               "caller": {"type": "direct"}, "input": {"coordinate": [3, 4]}})
    );
    let mut other =
        json!({"type": "tool_use", "id": "toolu_2", "name": "finish", "input": {"action": "x"}});
    let before = other.clone();
    anthropic::toolset_tool_use(&mut other);
    assert_eq!(other, before);
}

fn openai_admit(body: &Value) -> Result<Value, Refusal> {
    openai::admit(body.to_string().as_bytes())
}

#[test]
fn gpt_5_and_later_refuse_max_tokens_with_openais_error() {
    let body = json!({"model": "gpt-5.2", "max_tokens": 100, "messages": []});
    assert_eq!(
        openai_admit(&body).unwrap_err(),
        Refusal {
            status: 400,
            error_type: "invalid_request_error",
            message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.".into(),
            param: Some("max_tokens"),
            code: Some("unsupported_parameter"),
        }
    );
    let fixed = json!({"model": "gpt-5.2", "max_completion_tokens": 100, "messages": []});
    assert!(openai_admit(&fixed).is_ok());
    for open_model in ["Qwen/Qwen2.5-VL-7B-Instruct", "fake-model", "gpt-4o"] {
        let body =
            json!({"model": open_model, "max_tokens": 100, "temperature": 0.0, "messages": []});
        assert!(openai_admit(&body).is_ok(), "{open_model}");
    }
}

#[test]
fn gpt_5_and_later_refuse_a_non_default_temperature() {
    let body = json!({"model": "gpt-5-mini", "temperature": 0.0, "messages": []});
    let refusal = openai_admit(&body).unwrap_err();
    assert_eq!(
        refusal.message,
        "Unsupported value: 'temperature' does not support 0.0 with this model. Only the default (1) value is supported."
    );
    assert_eq!(
        (refusal.param, refusal.code),
        (Some("temperature"), Some("unsupported_value"))
    );
    assert!(
        openai_admit(&json!({"model": "gpt-5-mini", "temperature": 1, "messages": []})).is_ok()
    );
}

#[test]
fn the_gpt_5_families_are_matched_by_prefix() {
    for model in [
        "gpt-5",
        "gpt-5-mini",
        "gpt-5.1",
        "gpt-5.2-pro-2025-12-11",
        "gpt-6-sol",
        "gpt-6.2-astra",
    ] {
        assert!(openai::refuses_max_tokens(model), "{model}");
    }
    for model in ["gpt-4o", "gpt-50", "gpt-4.1", "qwen3-vl", ""] {
        assert!(!openai::refuses_max_tokens(model), "{model}");
    }
}

/// A user message carrying `count` PNG images of `width`x`height` (only their headers are
/// read, so the pixels are left out).
fn with_images(count: usize, width: u32, height: u32) -> Value {
    use base64::Engine;
    let mut head = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    head.extend_from_slice(&width.to_be_bytes());
    head.extend_from_slice(&height.to_be_bytes());
    head.extend_from_slice(&[8, 6, 0, 0, 0]);
    let data = base64::engine::general_purpose::STANDARD.encode(&head);
    let image = json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}});
    let mut content = vec![json!({"type": "text", "text": "look"})];
    content.extend(std::iter::repeat_n(image, count));
    json!({"model": "claude-judge", "max_tokens": 1024, "messages": [{"role": "user", "content": content}]})
}

#[test]
fn images_over_the_apis_size_limits_are_refused_for_every_model() {
    assert_eq!(
        message(admit(&headers(None), &with_images(3, 1280, 12000))),
        "messages.0.content.1.image.source.base64.data: At least one of the image dimensions \
         exceed max allowed size: 8000 pixels"
    );
    admit(&headers(None), &with_images(3, 1280, 8000)).unwrap();
    assert!(
        message(admit(&headers(None), &with_images(21, 640, 2001)))
            .ends_with("exceed max allowed size for many-image requests: 2000 pixels")
    );
    admit(&headers(None), &with_images(21, 640, 2000)).unwrap();
    admit(&headers(None), &with_images(20, 640, 4000)).unwrap();
}
