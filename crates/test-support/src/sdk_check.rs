//! Request and response bodies checked against the official Anthropic and OpenAI Python SDKs.
//!
//! No model can be reached from CI, so the proof that retrace speaks the current APIs is that
//! every body it sends validates against the SDKs' own request types, and every body the fake
//! servers answer with validates against their response types. [`validate`] runs
//! `python/sdk_check.py` (committed beside this crate, embedded here) in a venv of the pinned
//! SDKs ([`SDK_REQUIREMENTS`], made by [`crate::python::venv`]), one Python process for all the
//! bodies given. The script's module doc says what "strictly" means: every key a field of the
//! TypedDict it sits in, every required key present, every value of its type, lists walked
//! element by element.
//!
//! Like [`crate::python::venv`], when the venv cannot be made the check is skipped (a printed
//! message and `None`) outside CI and fails on CI. Python is the end-to-end tier's: without
//! this crate's `e2e` feature (each crate's `e2e` turns it on) the check is not run and
//! [`validate`] answers `None`; tests that only check bodies are built with `e2e` alone.
//!
//! ```no_run
//! use retrace_test_support::sdk_check::SdkApi;
//! let body = serde_json::json!({"model": "claude-opus-5-5", "max_tokens": 10, "messages": []});
//! let Some(verdicts) = retrace_test_support::sdk_check::validate(SdkApi::AnthropicMessages, &[body]) else {
//!     return;
//! };
//! assert_eq!(verdicts, vec![Ok(())]);
//! ```

use std::io::Write;
use std::process::Command;
use std::process::Stdio;

use serde_json::Value;
use serde_json::json;

use crate::fake_model::RecordedRequest;

/// The SDK releases the bodies are checked against (PyPI pins).
pub const SDK_REQUIREMENTS: [&str; 2] = ["anthropic==2.14.0", "openai==3.57.0"];

/// The checker script, embedded so a test in any crate can run it.
const SCRIPT: &str = include_str!("../python/sdk_check.py");

/// Which SDK type a body is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SdkApi {
    /// A Messages request: `anthropic.types.message_create_params.MessageCreateParamsNonStreaming`.
    AnthropicMessages,
    /// A beta Messages request (sent with an `anthropic-beta` header):
    /// `anthropic.types.beta.message_create_params.MessageCreateParamsNonStreaming`.
    AnthropicBetaMessages,
    /// A chat completions request:
    /// `openai.types.chat.completion_create_params.CompletionCreateParamsNonStreaming`.
    OpenAiChat,
    /// A Responses API request:
    /// `openai.types.responses.response_create_params.ResponseCreateParamsNonStreaming`.
    OpenAiResponses,
    /// A Messages reply: `anthropic.types.Message`, plus `ComputerToolUseBlock` for every
    /// computer toolset `tool_use` block.
    AnthropicResponse,
    /// A beta Messages reply: `anthropic.types.beta.BetaMessage`, plus
    /// `BetaComputerToolUseBlock` for every computer toolset `tool_use` block.
    AnthropicBetaResponse,
    /// A chat completions reply: `openai.types.chat.ChatCompletion`.
    OpenAiChatResponse,
    /// A Responses API reply: `openai.types.responses.Response`.
    OpenAiResponsesResponse,
}

impl SdkApi {
    /// The name `sdk_check.py` knows the check by (`anthropic.beta.messages`).
    pub fn name(self) -> &'static str {
        match self {
            Self::AnthropicMessages => "anthropic.messages",
            Self::AnthropicBetaMessages => "anthropic.beta.messages",
            Self::OpenAiChat => "openai.chat",
            Self::OpenAiResponses => "openai.responses",
            Self::AnthropicResponse => "anthropic.response",
            Self::AnthropicBetaResponse => "anthropic.beta.response",
            Self::OpenAiChatResponse => "openai.chat.response",
            Self::OpenAiResponsesResponse => "openai.responses.response",
        }
    }

    /// The request type a request recorded by a fake server is checked against, from its path
    /// and headers: `/v1/messages` with an `anthropic-beta` header is a beta request (the
    /// SDK's `client.beta.messages.create` sends one), without it a GA request;
    /// `/v1/chat/completions` and `/v1/responses` are OpenAI's. `None` for any other path.
    pub fn of_request(request: &RecordedRequest) -> Option<Self> {
        match request.path.as_str() {
            "/v1/messages" if request.header("anthropic-beta").is_some() => {
                Some(Self::AnthropicBetaMessages)
            }
            "/v1/messages" => Some(Self::AnthropicMessages),
            "/v1/chat/completions" => Some(Self::OpenAiChat),
            "/v1/responses" => Some(Self::OpenAiResponses),
            _ => None,
        }
    }
}

/// One verdict per body: `Ok` or the errors, each `<location>: <what>` with a JSON-path-like
/// location (`messages[2].content[0].toolset_name: unknown field (not a field of ...)`).
pub type Verdict = Result<(), Vec<String>>;

/// Checks every body against `api`'s SDK type, in one Python process.
///
/// `None` (after a printed skip message) when the SDK venv cannot be made outside CI.
///
/// # Panics
/// On CI when the venv cannot be made; when the script cannot run or answers other than one
/// verdict per body (a bug in the checker, not in the bodies).
pub fn validate(api: SdkApi, bodies: &[Value]) -> Option<Vec<Verdict>> {
    let items: Vec<(SdkApi, &Value)> = bodies.iter().map(|body| (api, body)).collect();
    validate_each(&items)
}

/// [`validate`] for bodies of different kinds: each with its own [`SdkApi`].
///
/// # Panics
/// As [`validate`].
pub fn validate_each(items: &[(SdkApi, &Value)]) -> Option<Vec<Verdict>> {
    // Python belongs to the end-to-end tier: the fast tier runs no venv (CONTRIBUTING.md).
    if !cfg!(feature = "e2e") {
        return None;
    }
    let python = crate::python::venv(&SDK_REQUIREMENTS)?;
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("sdk_check: no temp dir: {e}"));
    let script = dir.path().join("sdk_check.py");
    std::fs::write(&script, SCRIPT)
        .unwrap_or_else(|e| panic!("sdk_check: cannot write {}: {e}", script.display()));
    let mut input = String::new();
    for (api, body) in items {
        input.push_str(&json!({"api": api.name(), "body": body}).to_string());
        input.push('\n');
    }
    let mut child = Command::new(&python)
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("sdk_check: cannot start {}: {e}", python.display()));
    let mut stdin = child
        .stdin
        .take()
        .unwrap_or_else(|| panic!("sdk_check: no stdin"));
    // Written from a thread: the script answers line by line, so writing everything before
    // reading could fill both pipes and wait forever.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("sdk_check: {e}"));
    let written = writer
        .join()
        .unwrap_or_else(|_| panic!("sdk_check: the writer thread panicked"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "sdk_check.py failed ({}): {stderr}",
        output.status
    );
    written.unwrap_or_else(|e| panic!("sdk_check: cannot write the bodies: {e}; {stderr}"));
    let verdicts: Vec<Verdict> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(parse_verdict)
        .collect();
    assert_eq!(
        verdicts.len(),
        items.len(),
        "sdk_check.py answered {} verdicts for {} bodies; stderr: {stderr}",
        verdicts.len(),
        items.len()
    );
    Some(verdicts)
}

/// Checks every request a fake server recorded against the SDK request type its path and
/// headers call for ([`SdkApi::of_request`]), panicking with every error of every request
/// that fails. Returns `false` when the check was skipped (outside CI, no venv).
///
/// # Panics
/// When a request fails its check, has a path no SDK type covers, or as [`validate`].
pub fn assert_requests_valid(requests: &[RecordedRequest]) -> bool {
    let items: Vec<(SdkApi, &Value)> = requests
        .iter()
        .map(|request| {
            let api = SdkApi::of_request(request)
                .unwrap_or_else(|| panic!("no SDK request type for path {}", request.path));
            (api, request.body())
        })
        .collect();
    let Some(verdicts) = validate_each(&items) else {
        return false;
    };
    let failures: Vec<String> = verdicts
        .iter()
        .zip(&items)
        .enumerate()
        .filter_map(|(index, (verdict, (api, _)))| {
            verdict.as_ref().err().map(|errors| {
                format!(
                    "request {} ({}):\n  {}",
                    index + 1,
                    api.name(),
                    errors.join("\n  ")
                )
            })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "requests the SDK types refuse:\n{}",
        failures.join("\n")
    );
    true
}

fn parse_verdict(line: &str) -> Verdict {
    let value: Value = serde_json::from_str(line)
        .unwrap_or_else(|e| panic!("sdk_check.py printed a line that is not JSON ({e}): {line}"));
    if value["ok"] == Value::Bool(true) {
        return Ok(());
    }
    let errors = value["errors"]
        .as_array()
        .unwrap_or_else(|| panic!("sdk_check.py verdict without errors: {line}"))
        .iter()
        .map(|error| error.as_str().unwrap_or_default().to_owned())
        .collect();
    Err(errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_lines_parse() {
        assert_eq!(parse_verdict(r#"{"ok": true, "errors": []}"#), Ok(()));
        assert_eq!(
            parse_verdict(r#"{"ok": false, "errors": ["max_token: unknown field"]}"#),
            Err(vec!["max_token: unknown field".to_owned()])
        );
    }
}
