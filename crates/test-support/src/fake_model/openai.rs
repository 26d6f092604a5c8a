//! [`FakeOpenAi`]: a scripted OpenAI-compatible chat completions API
//! (`POST /v1/chat/completions`).

use retrace_protocol::ContentBlock;
use retrace_protocol::StopReason;
use serde_json::Value;
use serde_json::json;

use super::RecordedRequest;
use super::ScriptStep;
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

fn finish_reason(stop: &StopReason) -> String {
    match stop {
        StopReason::EndTurn | StopReason::StopSequence | StopReason::PauseTurn => "stop".into(),
        StopReason::MaxTokens | StopReason::ModelContextWindowExceeded => "length".into(),
        StopReason::ToolUse => "tool_calls".into(),
        StopReason::Refusal => "content_filter".into(),
        StopReason::Other(other) => other.clone(),
    }
}

impl Render for OpenAiWire {
    const PATH: &'static str = "/v1/chat/completions";

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
            "model": request.get("model").cloned().unwrap_or(json!("fake-model")),
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

    fn error(error_type: &str, message: &str) -> Value {
        json!({"error": {"message": message, "type": error_type, "param": null, "code": null}})
    }
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
