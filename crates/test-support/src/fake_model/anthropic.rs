//! [`FakeAnthropic`]: a scripted Anthropic Messages API (`POST /v1/messages`).
//!
//! Requests are admitted by [`compat::anthropic`] first: a model given a computer tool form
//! it does not take, a beta form without its beta header, a missing `anthropic-version`...
//! gets the API's 400. A request declaring the computer toolset is answered in the
//! toolset's shape (see [`compat::anthropic::toolset_tool_use`]). Every answer carries a
//! `request-id` header ([`super::request_id`]).

use std::collections::BTreeMap;

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

/// A fake Anthropic API on 127.0.0.1 playing a script; stopped when dropped.
pub struct FakeAnthropic {
    server: ScriptedServer,
}

struct AnthropicWire;

impl Render for AnthropicWire {
    const PATH: &'static str = "/v1/messages";
    const REQUEST_ID_HEADER: &'static str = "request-id";

    fn admit(headers: &BTreeMap<String, String>, body: &[u8]) -> Result<Value, Refusal> {
        compat::anthropic::admit(headers, body)
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
        let mut content = json!(blocks);
        // A request that declares the computer toolset is answered in the toolset's shape:
        // tool_use blocks named by the action, with `toolset_name`.
        if request["toolset"] == Value::Bool(true)
            && let Some(blocks) = content.as_array_mut()
        {
            blocks
                .iter_mut()
                .for_each(compat::anthropic::toolset_tool_use);
        }
        json!({
            "id": format!("msg_fake_{index}"),
            "type": "message",
            "role": "assistant",
            "model": request.get("model").filter(|m| m.is_string()).cloned().unwrap_or(json!("fake-model")),
            "content": content,
            "stop_reason": effective_stop(blocks, stop.as_ref()),
            "stop_sequence": null,
            "usage": usage,
        })
    }

    /// The API's error shape, with the request id the API puts in error bodies.
    fn error(refusal: &Refusal, request_id: &str) -> Value {
        json!({
            "type": "error",
            "error": {"type": refusal.error_type, "message": refusal.message},
            "request_id": request_id,
        })
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
