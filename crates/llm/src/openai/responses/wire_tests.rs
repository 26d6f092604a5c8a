use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::StopReason;
use retrace_protocol::ToolResultBlock;
use serde_json::Value;
use serde_json::json;

use super::*;
use crate::MessageRequest;
use crate::ToolSpec;

const PNG: &str = "iVBORw0KGgo=";

fn shape(tool: ComputerTool, acknowledge: bool) -> Shape {
    Shape {
        tool,
        acknowledge_safety_checks: acknowledge,
        strict_schema: false,
    }
}

fn answer(output: Value) -> String {
    json!({"id": "resp_1", "object": "response", "model": "computer-use-preview",
           "status": "completed", "output": output,
           "usage": {"input_tokens": 120, "output_tokens": 7,
                     "input_tokens_details": {"cached_tokens": 20}}})
    .to_string()
}

fn screenshot_result(id: &str) -> ContentBlock {
    ContentBlock::ToolResult(ToolResultBlock::new(
        id,
        vec![ContentBlock::png_base64(PNG)],
        false,
    ))
}

/// A first turn, the model's `computer_call` (with a safety check) and the screenshot it
/// was answered with.
fn history(checks: Value) -> MessageRequest {
    let reply = answer(json!([
        {"type": "reasoning", "id": "rs_1", "summary": [], "status": "completed"},
        {"type": "computer_call", "id": "cu_1", "call_id": "call_1", "status": "completed",
         "pending_safety_checks": checks,
         "action": {"type": "click", "button": "left", "x": 10, "y": 20}},
    ]));
    let assistant = parse_response(&reply).unwrap().to_message();
    MessageRequest::new(
        vec![
            Message::user(vec![
                ContentBlock::text("Log in"),
                ContentBlock::png_base64(PNG),
            ]),
            assistant,
            Message::user(vec![screenshot_result("call_1")]),
        ],
        1024,
    )
    .with_system("You operate a web page.")
    .with_tools(vec![ToolSpec::computer(1280, 800)])
}

#[test]
fn a_history_becomes_input_items_with_the_preview_tool() {
    let body = request_body(
        "computer-use-preview",
        &history(json!([])),
        shape(ComputerTool::Preview, false),
    );
    let image = format!("data:image/png;base64,{PNG}");
    assert_eq!(
        body,
        json!({
            "model": "computer-use-preview",
            "instructions": "You operate a web page.",
            "input": [
                {"role": "user", "content": [
                    {"type": "input_text", "text": "Log in"},
                    {"type": "input_image", "image_url": image, "detail": "auto"}]},
                {"type": "reasoning", "id": "rs_1", "summary": []},
                {"type": "computer_call", "id": "cu_1", "call_id": "call_1",
                 "pending_safety_checks": [], "status": "completed",
                 "action": {"type": "click", "button": "left", "x": 10, "y": 20}},
                {"type": "computer_call_output", "call_id": "call_1",
                 "output": {"type": "computer_screenshot", "image_url": image}},
            ],
            "max_output_tokens": 1024,
            "tools": [{"type": "computer_use_preview", "display_width": 1280,
                       "display_height": 800, "environment": "browser"}],
            "truncation": "auto",
        })
    );
}

#[test]
fn pending_safety_checks_are_acknowledged_only_when_allowed() {
    let checks = json!([{"id": "sc_1", "code": "malicious_instructions", "message": "Ignore it"}]);
    let request = history(checks.clone());
    let output = |acknowledge: bool| -> Value {
        let body = request_body(
            "computer-use-preview",
            &request,
            shape(ComputerTool::Preview, acknowledge),
        );
        body["input"][3].clone()
    };
    assert_eq!(output(true)["acknowledged_safety_checks"], checks);
    assert!(output(false).get("acknowledged_safety_checks").is_none());
    let body = request_body(
        "computer-use-preview",
        &request,
        shape(ComputerTool::Preview, true),
    );
    assert_eq!(body["input"][2]["pending_safety_checks"], checks);
}

#[test]
fn a_computer_call_reads_as_a_computer_tool_use_with_its_call_kept() {
    let reply = answer(json!([
        {"type": "computer_call", "id": "cu_1", "call_id": "call_1", "status": "completed",
         "pending_safety_checks": [],
         "action": {"type": "keypress", "keys": ["CTRL", "A"]}},
    ]));
    let response = parse_response(&reply).unwrap();
    assert_eq!(response.stop_reason, StopReason::ToolUse);
    assert_eq!(response.usage.input_tokens, 100);
    assert_eq!(response.usage.cache_read_input_tokens, 20);
    let ContentBlock::ToolUse(call) = &response.content[0] else {
        panic!("{:?}", response.content);
    };
    assert_eq!(
        (call.id.as_str(), call.name.as_str()),
        ("call_1", "computer")
    );
    assert_eq!(call.input, json!({"action": "key", "text": "ctrl+a"}));
    assert_eq!(call.extra[CALL_FIELD]["id"], "cu_1");
    // Never sent to Anthropic.
    assert!(
        retrace_protocol::api::block_to_api_json(&response.content[0])
            .get(CALL_FIELD)
            .is_none()
    );
}

#[test]
fn batched_actions_become_one_tool_use_each_and_go_back_as_one_call() {
    let reply = answer(json!([
        {"type": "computer_call", "id": "cu_2", "call_id": "call_2", "status": "completed",
         "pending_safety_checks": [],
         "actions": [{"type": "click", "button": "left", "x": 5, "y": 6},
                     {"type": "type", "text": "demo"}]},
    ]));
    let response = parse_response(&reply).unwrap();
    let ids: Vec<&str> = response
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::ToolUse(call) => Some(call.id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(ids, ["call_2", "call_2#1"]);
    let request = MessageRequest::new(
        vec![
            Message::user_text("Log in"),
            response.to_message(),
            Message::user(vec![
                screenshot_result("call_2"),
                screenshot_result("call_2#1"),
            ]),
        ],
        64,
    )
    .with_tools(vec![ToolSpec::computer(1280, 800)]);
    let body = request_body("gpt-5.5", &request, shape(ComputerTool::Computer, false));
    assert_eq!(body["tools"], json!([{"type": "computer"}]));
    let input = body["input"].as_array().unwrap();
    assert_eq!(input.len(), 3, "{input:?}");
    assert_eq!(
        input[1]["actions"],
        json!([{"type": "click", "button": "left", "x": 5, "y": 6}, {"type": "type", "text": "demo"}])
    );
    assert_eq!(input[2]["type"], "computer_call_output");
    assert_eq!(input[2]["call_id"], "call_2");
}

#[test]
fn error_results_follow_as_text_and_function_tools_round_trip() {
    let reply = answer(json!([
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "Checking", "annotations": []}]},
        {"type": "function_call", "id": "fc_1", "call_id": "call_f", "name": "done",
         "arguments": "{\"ok\":true}", "status": "completed"},
    ]));
    let response = parse_response(&reply).unwrap();
    assert_eq!(response.text(), "Checking");
    let result = ToolResultBlock::new("call_f", vec![ContentBlock::text("no such page")], true);
    let request = MessageRequest::new(
        vec![
            Message::user_text("Go"),
            response.to_message(),
            Message::user(vec![ContentBlock::ToolResult(result)]),
        ],
        64,
    )
    .with_tools(vec![ToolSpec::custom(
        "done",
        "Finish",
        json!({"type": "object"}),
    )]);
    let body = request_body("gpt-5.5", &request, shape(ComputerTool::Computer, false));
    assert_eq!(
        body["input"],
        json!([
            {"role": "user", "content": [{"type": "input_text", "text": "Go"}]},
            {"role": "assistant", "content": "Checking"},
            {"type": "function_call", "call_id": "call_f", "name": "done", "arguments": "{\"ok\":true}"},
            {"type": "function_call_output", "call_id": "call_f", "output": "Error: no such page"},
        ])
    );
    assert_eq!(
        body["tools"],
        json!([{"type": "function", "name": "done", "description": "Finish",
                "parameters": {"type": "object"}, "strict": false}])
    );
    assert!(body.get("truncation").is_none());
    assert!(body.get("temperature").is_none());
}

#[test]
fn incomplete_answers_say_why() {
    let cut = json!({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"},
                     "output": []});
    assert_eq!(
        parse_response(&cut.to_string()).unwrap().stop_reason,
        StopReason::MaxTokens
    );
    let filtered = json!({"status": "incomplete", "incomplete_details": {"reason": "content_filter"},
                          "output": []});
    assert_eq!(
        parse_response(&filtered.to_string()).unwrap().stop_reason,
        StopReason::Refusal
    );
}

#[test]
fn a_malformed_computer_call_names_where() {
    let reply = answer(json!([
        {"type": "computer_call", "id": "cu_1", "call_id": "call_1", "status": "completed",
         "pending_safety_checks": [], "action": {"type": "click", "button": "left", "x": 1}},
    ]));
    let error = parse_response(&reply).unwrap_err().to_string();
    assert!(
        error.contains("output[0].action (click) has no integer `y`"),
        "{error}"
    );
}

#[test]
fn pending_checks_are_listed_once() {
    let reply = answer(json!([
        {"type": "computer_call", "id": "cu_1", "call_id": "call_1", "status": "completed",
         "pending_safety_checks": [{"id": "sc_1", "code": "sensitive_domain", "message": "Bank"}],
         "actions": [{"type": "screenshot"}, {"type": "wait"}]},
    ]));
    let response = parse_response(&reply).unwrap();
    assert_eq!(
        pending_safety_checks(&response),
        vec![SafetyCheck {
            id: "sc_1".into(),
            code: "sensitive_domain".into(),
            message: "Bank".into()
        }]
    );
}

#[test]
fn a_call_whose_screenshot_was_dropped_goes_as_text_without_its_reasoning() {
    let reply = answer(json!([
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "computer_call", "id": "cu_1", "call_id": "call_1", "status": "completed",
         "pending_safety_checks": [], "action": {"type": "click", "button": "left", "x": 1, "y": 2}},
    ]));
    let text_only = ToolResultBlock::new("call_1", vec![ContentBlock::text("clicked")], false);
    let request = MessageRequest::new(
        vec![
            Message::user_text("Go"),
            parse_response(&reply).unwrap().to_message(),
            Message::user(vec![ContentBlock::ToolResult(text_only)]),
        ],
        64,
    )
    .with_tools(vec![ToolSpec::computer(1280, 800)]);
    let body = request_body(
        "computer-use-preview",
        &request,
        shape(ComputerTool::Preview, false),
    );
    assert_eq!(
        body["input"],
        json!([
            {"role": "user", "content": [{"type": "input_text", "text": "Go"}]},
            {"role": "assistant", "content": "Computer call call_1 (its screenshot is no longer shown): {\"action\":\"left_click\",\"coordinate\":[1,2]}"},
            {"role": "user", "content": [{"type": "input_text", "text": "Computer call call_1: clicked"}]},
        ])
    );
}
