//! [`FakeAnthropic`]: a scripted Anthropic Messages API (`POST /v1/messages`).

use serde_json::Value;
use serde_json::json;

use super::RecordedRequest;
use super::ScriptStep;
use super::script::StepAction;
use super::script::effective_stop;
use super::server::Render;
use super::server::ScriptedServer;

/// A fake Anthropic API on 127.0.0.1 playing a script; stopped when dropped.
pub struct FakeAnthropic {
    server: ScriptedServer,
}

struct AnthropicWire;

impl Render for AnthropicWire {
    const PATH: &'static str = "/v1/messages";

    fn reply(request: &Value, action: &StepAction, index: usize) -> Value {
        let StepAction::Reply {
            blocks,
            stop,
            usage,
        } = action
        else {
            return Value::Null;
        };
        json!({
            "id": format!("msg_fake_{index}"),
            "type": "message",
            "role": "assistant",
            "model": request.get("model").cloned().unwrap_or(json!("fake-model")),
            "content": blocks,
            "stop_reason": effective_stop(blocks, stop.as_ref()),
            "stop_sequence": null,
            "usage": usage,
        })
    }

    fn error(error_type: &str, message: &str) -> Value {
        json!({"type": "error", "error": {"type": error_type, "message": message}})
    }
}

impl FakeAnthropic {
    /// Starts the server on a free port (needs a tokio runtime).
    pub async fn start(script: Vec<ScriptStep>) -> Self {
        Self {
            server: ScriptedServer::start::<AnthropicWire>(script).await,
        }
    }

    /// The base URL to configure a client with (`http://127.0.0.1:<port>`; the client adds
    /// `/v1/messages`).
    pub fn base_url(&self) -> String {
        self.server.origin()
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
