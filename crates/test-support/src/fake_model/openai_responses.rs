//! [`FakeOpenAiResponses`]: a scripted OpenAI Responses API (`POST /v1/responses`) with
//! OpenAI's computer tool.
//!
//! A scripted `computer` tool call (`{"action": "left_click", "coordinate": [x, y]}`) is
//! answered as a `computer_call` item in OpenAI's action shape (`{"type": "click", "button":
//! "left", "x", "y"}`): one call with `action` per tool call when the request offered
//! `computer_use_preview`, one call with batched `actions` per turn when it offered
//! `computer`, each after the `reasoning` item it came with. The action mapping here is written apart from retrace's own (a test passes
//! only when the two agree). Replies are built to pass the SDK's `Response` model
//! (`openai` 3.57.0, `types/responses/response.py`).

use std::collections::BTreeMap;

use retrace_protocol::ContentBlock;
use retrace_protocol::StopReason;
use retrace_protocol::ToolUseBlock;
use serde_json::Value;
use serde_json::json;

use super::RecordedRequest;
use super::ScriptStep;
use super::compat;
use super::compat::Refusal;
use super::script::SAFETY_CHECKS_FIELD;
use super::script::StepAction;
use super::script::effective_stop;
use super::server::Render;
use super::server::ScriptedServer;

/// A fake Responses API on 127.0.0.1 playing a script; stopped when dropped.
pub struct FakeOpenAiResponses {
    server: ScriptedServer,
}

struct ResponsesWire;

/// A scripted `computer` input as OpenAI's action (`computer_action.py`).
fn openai_action(input: &Value) -> Value {
    let (x, y) = (&input["coordinate"][0], &input["coordinate"][1]);
    let keys = |text: &Value| -> Vec<String> {
        text.as_str()
            .unwrap_or("")
            .split('+')
            .map(|key| match key {
                "Return" => "ENTER".to_owned(),
                other => other.to_ascii_uppercase(),
            })
            .collect()
    };
    match input["action"].as_str().unwrap_or("") {
        "screenshot" => json!({"type": "screenshot"}),
        "left_click" => json!({"type": "click", "button": "left", "x": x, "y": y}),
        "right_click" => json!({"type": "click", "button": "right", "x": x, "y": y}),
        "middle_click" => json!({"type": "click", "button": "wheel", "x": x, "y": y}),
        "double_click" => json!({"type": "double_click", "x": x, "y": y}),
        "mouse_move" => json!({"type": "move", "x": x, "y": y}),
        "left_click_drag" => json!({"type": "drag", "path": [
            {"x": input["start_coordinate"][0], "y": input["start_coordinate"][1]},
            {"x": x, "y": y}]}),
        "type" => json!({"type": "type", "text": input["text"]}),
        "key" => json!({"type": "keypress", "keys": keys(&input["text"])}),
        "wait" => json!({"type": "wait"}),
        "scroll" => {
            let amount = input["scroll_amount"].as_i64().unwrap_or(1) * 100;
            let (dx, dy) = match input["scroll_direction"].as_str() {
                Some("up") => (0, -amount),
                Some("left") => (-amount, 0),
                Some("right") => (amount, 0),
                _ => (0, amount),
            };
            json!({"type": "scroll", "x": x, "y": y, "scroll_x": dx, "scroll_y": dy})
        }
        other => panic!("FakeOpenAiResponses: no OpenAI action for scripted `{other}`"),
    }
}

fn computer_call(calls: &[&ToolUseBlock], batched: bool) -> Value {
    let first = calls[0];
    let call_id = first.id.replacen("toolu", "call", 1);
    let checks: Vec<Value> = calls
        .iter()
        .filter_map(|call| {
            call.extra
                .get(SAFETY_CHECKS_FIELD)
                .and_then(Value::as_array)
        })
        .flatten()
        .cloned()
        .collect();
    let mut item = json!({
        "type": "computer_call",
        "id": first.id.replacen("toolu", "cu", 1),
        "call_id": call_id,
        "status": "completed",
        "pending_safety_checks": checks,
    });
    let actions: Vec<Value> = calls
        .iter()
        .map(|call| openai_action(&call.input))
        .collect();
    if batched {
        item["actions"] = Value::Array(actions);
    } else {
        item["action"] = actions.into_iter().next().unwrap_or(Value::Null);
    }
    item
}

impl Render for ResponsesWire {
    const PATH: &'static str = "/v1/responses";
    const REQUEST_ID_HEADER: &'static str = "x-request-id";

    fn admit(_headers: &BTreeMap<String, String>, body: &[u8]) -> Result<Value, Refusal> {
        compat::openai_responses::admit(body)
    }

    fn reply(request: &Value, action: &StepAction, index: usize) -> Value {
        let StepAction::Reply {
            blocks,
            stop,
            usage,
        } = action
        else {
            return Value::Null;
        };
        let batched = request["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|tool| tool["type"] == "computer");
        let mut output = Vec::new();
        let text: Vec<&str> = blocks
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        if !text.is_empty() {
            output.push(json!({
                "type": "message", "id": format!("msg_fake_{index}"), "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text.join("\n"), "annotations": []}],
            }));
        }
        let calls: Vec<&ToolUseBlock> = blocks
            .iter()
            .filter_map(|block| match block {
                ContentBlock::ToolUse(call) => Some(call),
                _ => None,
            })
            .collect();
        let computer: Vec<&ToolUseBlock> = calls
            .iter()
            .copied()
            .filter(|call| call.name == "computer")
            .collect();
        let groups: Vec<Vec<&ToolUseBlock>> = if batched && !computer.is_empty() {
            vec![computer]
        } else {
            computer.iter().map(|call| vec![*call]).collect()
        };
        for group in groups {
            let call = computer_call(&group, batched);
            // The computer-use models reason before each call; the item must come back with
            // it (compat::openai_responses).
            let reasoning_id = call["id"].as_str().unwrap_or("").replacen("cu", "rs", 1);
            output.push(
                json!({"type": "reasoning", "id": reasoning_id, "summary": [],
                               "status": "completed"}),
            );
            output.push(call);
        }
        for call in calls.iter().filter(|call| call.name != "computer") {
            output.push(json!({
                "type": "function_call", "id": call.id.replacen("toolu", "fc", 1),
                "call_id": call.id.replacen("toolu", "call", 1), "name": call.name,
                "arguments": call.input.to_string(), "status": "completed",
            }));
        }
        let (status, incomplete) = match effective_stop(blocks, stop.as_ref()) {
            StopReason::MaxTokens => ("incomplete", json!({"reason": "max_output_tokens"})),
            StopReason::Refusal => ("incomplete", json!({"reason": "content_filter"})),
            _ => ("completed", Value::Null),
        };
        let input = usage.input_tokens + usage.cache_read_input_tokens;
        json!({
            "id": format!("resp_fake_{index}"),
            "object": "response",
            "created_at": 1_700_000_000,
            "model": request.get("model").filter(|m| m.is_string()).cloned().unwrap_or(json!("computer-use-preview")),
            "status": status,
            "incomplete_details": incomplete,
            "error": null,
            "instructions": null,
            "metadata": {},
            "output": output,
            "parallel_tool_calls": true,
            "temperature": 1.0,
            "top_p": 1.0,
            "tool_choice": request["tool_choice"],
            "tools": request["tools"],
            "usage": {
                "input_tokens": input,
                "input_tokens_details": {"cached_tokens": usage.cache_read_input_tokens,
                                         "cache_write_tokens": 0},
                "output_tokens": usage.output_tokens,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": input + usage.output_tokens,
            },
        })
    }

    fn error(refusal: &Refusal, _request_id: &str) -> Value {
        super::openai::error_body(refusal)
    }
}

impl FakeOpenAiResponses {
    /// Starts the server on a free port (needs a tokio runtime).
    pub async fn start(script: Vec<ScriptStep>) -> Self {
        Self {
            server: ScriptedServer::start::<ResponsesWire>(script).await,
        }
    }

    /// The base URL to configure a client with (`http://127.0.0.1:<port>/v1`; the client
    /// adds `/responses`).
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.server.origin())
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.server.requests()
    }

    /// Appends a step to the script.
    pub fn push(&self, step: ScriptStep) {
        self.server.push(step);
    }

    /// Steps not yet played.
    pub fn remaining(&self) -> usize {
        self.server.remaining()
    }
}
