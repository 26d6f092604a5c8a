//! [`ScriptStep`]: one scripted answer of a fake model server, protocol-neutral.

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;
use std::time::Duration;

use retrace_protocol::ContentBlock;
use retrace_protocol::StopReason;
use retrace_protocol::ToolUseBlock;
use retrace_protocol::Usage;
use serde_json::Value;

/// The field of a scripted tool call's `extra` holding its pending safety checks.
pub(crate) const SAFETY_CHECKS_FIELD: &str = "pending_safety_checks";

/// Numbers tool-call ids uniquely across every fake server in the process.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A fresh id with this prefix (`toolu_fake_7`).
pub(crate) fn fresh_id(prefix: &str) -> String {
    format!("{prefix}_fake_{}", NEXT_ID.fetch_add(1, Ordering::Relaxed))
}

/// One answer the fake server gives, in script order: an assistant turn, an API error, or a
/// raw body; optionally after a delay (a slow response).
///
/// ```ignore
/// let script = vec![
///     ScriptStep::rate_limited(1),
///     ScriptStep::text("Clicking").and_tool_use("computer", json!({"action": "left_click", "coordinate": [10, 20]})),
///     ScriptStep::text("cut off").stop(StopReason::MaxTokens),
///     ScriptStep::overloaded().delayed(Duration::from_millis(200)),
/// ];
/// ```
#[derive(Debug, Clone)]
pub struct ScriptStep {
    pub(crate) delay: Duration,
    pub(crate) action: StepAction,
    /// Send the status, the headers and half the body, then close the connection.
    pub(crate) cut: bool,
}

/// What a step does.
#[derive(Debug, Clone)]
pub(crate) enum StepAction {
    /// An assistant turn.
    Reply {
        blocks: Vec<ContentBlock>,
        stop: Option<StopReason>,
        usage: Usage,
    },
    /// An API error in the protocol's error shape.
    Error {
        status: u16,
        retry_after: Option<String>,
        should_retry: Option<bool>,
        error_type: String,
        message: String,
    },
    /// This status and body, sent as `application/json` whatever they hold.
    Raw { status: u16, body: String },
}

impl ScriptStep {
    fn reply(blocks: Vec<ContentBlock>) -> Self {
        Self {
            delay: Duration::ZERO,
            cut: false,
            action: StepAction::Reply {
                blocks,
                stop: None,
                usage: Usage {
                    input_tokens: 100,
                    output_tokens: 20,
                    ..Usage::default()
                },
            },
        }
    }

    fn error(status: u16, error_type: &str, message: &str) -> Self {
        Self {
            delay: Duration::ZERO,
            cut: false,
            action: StepAction::Error {
                status,
                retry_after: None,
                should_retry: None,
                error_type: error_type.into(),
                message: message.into(),
            },
        }
    }

    /// An assistant turn with one text block (stop reason `end_turn` unless set).
    pub fn text(text: impl Into<String>) -> Self {
        Self::reply(vec![ContentBlock::text(text)])
    }

    /// A `computer` tool call clicking at (`x`, `y`).
    pub fn left_click(x: i64, y: i64) -> Self {
        Self::tool_use(
            "computer",
            serde_json::json!({"action": "left_click", "coordinate": [x, y]}),
        )
    }

    /// A `computer` tool call with `input`.
    pub fn computer(input: Value) -> Self {
        Self::tool_use("computer", input)
    }

    /// An assistant turn with one tool call (stop reason `tool_use` unless set); the call id
    /// is fresh (`toolu_fake_<n>`).
    pub fn tool_use(name: impl Into<String>, input: Value) -> Self {
        Self::reply(Vec::new()).and_tool_use(name, input)
    }

    /// An assistant turn with exactly these blocks.
    pub fn blocks(blocks: Vec<ContentBlock>) -> Self {
        Self::reply(blocks)
    }

    /// The same turn with a text block appended.
    pub fn and_text(self, text: impl Into<String>) -> Self {
        self.push_block(ContentBlock::text(text))
    }

    /// The same turn with a tool call appended.
    pub fn and_tool_use(self, name: impl Into<String>, input: Value) -> Self {
        let block = ToolUseBlock::new(fresh_id("toolu"), name, input);
        self.push_block(ContentBlock::ToolUse(block))
    }

    /// The same turn with its last tool call waiting on a safety check (OpenAI's Responses
    /// API `pending_safety_checks`, id `cu_sc_fake_<n>`): only [`super::FakeOpenAiResponses`]
    /// sends it, and it then refuses a next request whose `computer_call_output` does not
    /// acknowledge it.
    pub fn with_pending_safety_check(mut self, code: &str, message: &str) -> Self {
        if let StepAction::Reply { blocks, .. } = &mut self.action
            && let Some(ContentBlock::ToolUse(call)) = blocks
                .iter_mut()
                .rev()
                .find(|block| matches!(block, ContentBlock::ToolUse(_)))
        {
            let check =
                serde_json::json!({"id": fresh_id("cu_sc"), "code": code, "message": message});
            let checks = call
                .extra
                .entry(SAFETY_CHECKS_FIELD)
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(checks) = checks {
                checks.push(check);
            }
        }
        self
    }

    fn push_block(mut self, block: ContentBlock) -> Self {
        if let StepAction::Reply { blocks, .. } = &mut self.action {
            blocks.push(block);
        }
        self
    }

    /// The same turn with this stop reason (`max_tokens`, `refusal`...).
    pub fn stop(mut self, reason: StopReason) -> Self {
        if let StepAction::Reply { stop, .. } = &mut self.action {
            *stop = Some(reason);
        }
        self
    }

    /// The same turn reporting this usage (default: 100 input, 20 output tokens).
    pub fn usage(mut self, value: Usage) -> Self {
        if let StepAction::Reply { usage, .. } = &mut self.action {
            *usage = value;
        }
        self
    }

    /// HTTP 429 `rate_limit_error` with `retry-after: <seconds>`.
    pub fn rate_limited(retry_after_secs: u64) -> Self {
        Self::error(
            429,
            "rate_limit_error",
            "Number of requests has exceeded your rate limit",
        )
        .with_retry_after(retry_after_secs.to_string())
    }

    /// HTTP 529 `overloaded_error`.
    pub fn overloaded() -> Self {
        Self::error(529, "overloaded_error", "Overloaded")
    }

    /// HTTP 529 `overloaded_error` with `retry-after` as an HTTP-date (RFC 9110
    /// IMF-fixdate, `Sat, 28 Nov 2026 03:00:00 GMT`): retry no earlier than `at`. The SDKs
    /// read this form besides seconds.
    pub fn overloaded_retry_at(at: std::time::SystemTime) -> Self {
        Self::overloaded().with_retry_after(http_date(at))
    }

    /// This 5xx status with an `api_error` and `x-should-retry: false`: the server says not
    /// to retry a status a client would otherwise retry.
    pub fn server_error_not_retryable(status: u16) -> Self {
        Self::server_error(status).with_should_retry(false)
    }

    /// The same error step with a `retry-after` header of exactly this value (seconds, an
    /// HTTP-date, or anything a test needs a client to cope with).
    pub fn with_retry_after(mut self, value: impl Into<String>) -> Self {
        if let StepAction::Error { retry_after, .. } = &mut self.action {
            *retry_after = Some(value.into());
        }
        self
    }

    /// The same error step with an `x-should-retry` header (`true` or `false`), which the
    /// SDKs obey over their own status rules.
    pub fn with_should_retry(mut self, retry: bool) -> Self {
        if let StepAction::Error { should_retry, .. } = &mut self.action {
            *should_retry = Some(retry);
        }
        self
    }

    /// This 5xx status with an `api_error`.
    pub fn server_error(status: u16) -> Self {
        Self::error(status, "api_error", "Internal server error")
    }

    /// HTTP 401 `authentication_error`.
    pub fn auth_error() -> Self {
        Self::error(401, "authentication_error", "invalid x-api-key")
    }

    /// Any API error: status, the API's error type and message.
    pub fn api_error(status: u16, error_type: &str, message: &str) -> Self {
        Self::error(status, error_type, message)
    }

    /// HTTP 200 with this body as `application/json`, whatever it holds.
    pub fn malformed(body: impl Into<String>) -> Self {
        Self::raw(200, body)
    }

    /// This status and body, sent as `application/json` (for protocol-specific shapes).
    pub fn raw(status: u16, body: impl Into<String>) -> Self {
        Self {
            delay: Duration::ZERO,
            cut: false,
            action: StepAction::Raw {
                status,
                body: body.into(),
            },
        }
    }

    /// The same step, its answer cut off: the status, the headers (with the whole body's
    /// length) and the first half of the body are sent, then the connection is closed, as a
    /// server or a proxy that dies mid-answer does.
    pub fn cut_mid_answer(mut self) -> Self {
        self.cut = true;
        self
    }

    /// The same step, answered only after `delay` (a slow response).
    pub fn delayed(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

/// `at` as an HTTP-date (RFC 9110 IMF-fixdate), whole seconds, rounded up so a client
/// waiting until that date never retries before `at`.
pub fn http_date(at: std::time::SystemTime) -> String {
    let timestamp = jiff::Timestamp::try_from(at)
        .unwrap_or_else(|e| panic!("http_date: {at:?} is out of range: {e}"));
    let whole = if timestamp.subsec_nanosecond() > 0 {
        jiff::Timestamp::from_second(timestamp.as_second() + 1)
            .unwrap_or_else(|e| panic!("http_date: {e}"))
    } else {
        timestamp
    };
    jiff::fmt::rfc2822::DateTimePrinter::new()
        .timestamp_to_rfc9110_string(&whole)
        .unwrap_or_else(|e| panic!("http_date: {e}"))
}

/// The stop reason a reply carries: the one set, else `tool_use` when it calls a tool.
pub(crate) fn effective_stop(blocks: &[ContentBlock], stop: Option<&StopReason>) -> StopReason {
    match stop {
        Some(stop) => stop.clone(),
        None if blocks
            .iter()
            .any(|block| matches!(block, ContentBlock::ToolUse(_))) =>
        {
            StopReason::ToolUse
        }
        None => StopReason::EndTurn,
    }
}
