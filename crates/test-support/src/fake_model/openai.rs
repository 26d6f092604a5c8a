//! [`FakeOpenAi`]: a scripted OpenAI-compatible chat completions API
//! (`POST /v1/chat/completions`).

use std::collections::BTreeMap;

use retrace_protocol::ContentBlock;
use retrace_protocol::StopReason;
use serde_json::Value;
use serde_json::json;

use super::RecordedRequest;
use super::ScriptStep;
use super::compat;
use super::compat::Refusal;
use super::script::StepAction;
use super::script::effective_stop;
use super::server::Render;
use super::server::ScriptedServer;

/// A fake OpenAI-compatible server on 127.0.0.1 playing a script; stopped when dropped.
/// Tool calls are sent with `arguments` as a JSON string, as the real API does.
pub struct FakeOpenAi {
    server: ScriptedServer,
}

struct OpenAiWire;

/// The chat completions `finish_reason` for a scripted stop reason: one of the values
/// `openai/types/chat/chat_completion.py` (openai 3.57.0) allows, so every reply validates
/// against the SDK. A context window overflow ends the output as a length limit does; an
/// unknown reason is sent as given only if the SDK allows it.
fn finish_reason(stop: &StopReason) -> String {
    match stop {
        StopReason::EndTurn | StopReason::StopSequence | StopReason::PauseTurn => "stop".into(),
        StopReason::MaxTokens | StopReason::ModelContextWindowExceeded => "length".into(),
        StopReason::ToolUse => "tool_calls".into(),
        StopReason::Refusal => "content_filter".into(),
        StopReason::Other(other) if other == "model_context_window_exceeded" => "length".into(),
        StopReason::Other(other) if other == "function_call" => other.clone(),
        StopReason::Other(_) => "stop".into(),
    }
}

impl Render for OpenAiWire {
    const PATH: &'static str = "/v1/chat/completions";
    const REQUEST_ID_HEADER: &'static str = "x-request-id";

    fn admit(_headers: &BTreeMap<String, String>, body: &[u8]) -> Result<Value, Refusal> {
        compat::openai::admit(body)
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
        let text: Vec<&str> = blocks
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let tool_calls: Vec<Value> = blocks
            .iter()
            .filter_map(|block| match block {
                ContentBlock::ToolUse(call) => Some(json!({
                    "id": call.id.replacen("toolu", "call", 1),
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.input.to_string()},
                })),
                _ => None,
            })
            .collect();
        let mut message = json!({
            "role": "assistant",
            "content": if text.is_empty() { Value::Null } else { json!(text.join("\n")) },
        });
        if !tool_calls.is_empty() {
            message["tool_calls"] = Value::Array(tool_calls);
        }
        json!({
            "id": format!("chatcmpl-fake-{index}"),
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": request.get("model").filter(|m| m.is_string()).cloned().unwrap_or(json!("fake-model")),
            "choices": [{
                "index": 0,
                "message": message,
                "finish_reason": finish_reason(&effective_stop(blocks, stop.as_ref())),
            }],
            "usage": {
                "prompt_tokens": usage.input_tokens + usage.cache_read_input_tokens,
                "completion_tokens": usage.output_tokens,
                "total_tokens": usage.input_tokens + usage.cache_read_input_tokens + usage.output_tokens,
                "prompt_tokens_details": {"cached_tokens": usage.cache_read_input_tokens},
            },
        })
    }

    fn error(refusal: &Refusal, _request_id: &str) -> Value {
        error_body(refusal)
    }
}

/// OpenAI's error shape (chat completions and Responses alike).
pub(crate) fn error_body(refusal: &Refusal) -> Value {
    json!({"error": {
        "message": refusal.message,
        "type": refusal.error_type,
        "param": refusal.param,
        "code": refusal.code,
    }})
}

impl FakeOpenAi {
    /// Starts the server on a free port (needs a tokio runtime).
    pub async fn start(script: Vec<ScriptStep>) -> Self {
        Self {
            server: ScriptedServer::start::<OpenAiWire>(script).await,
        }
    }

    /// The base URL to configure a client with (`http://127.0.0.1:<port>/v1`; the client
    /// adds `/chat/completions`).
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

    /// Forgets the requests recorded so far (a benchmark sending thousands of large
    /// requests would otherwise keep them all).
    pub fn clear_requests(&self) {
        self.server.clear_requests();
    }
}
