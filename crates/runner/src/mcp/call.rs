//! What every tool call shares: its arguments parsed into the tool's input type (a bad one
//! named), its failures as tool errors the caller reads ([`ToolError`]), progress
//! notifications, cancellation, and the scrubbing of secret values from everything sent
//! back ([`CallContext`]).

use retrace_report::Secrets;
use rmcp::Peer;
use rmcp::RoleServer;
use rmcp::model::CallToolResult;
use rmcp::model::ContentBlock;
use rmcp::model::JsonObject;
use rmcp::model::ProgressNotificationParam;
use rmcp::model::ProgressToken;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio_util::sync::CancellationToken;

/// Why a call failed, as the caller reads it (an MCP tool error, `isError: true`): the
/// server goes on serving.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// An argument is missing, of the wrong type, or unusable; the message names it.
    #[error("bad argument `{name}`: {message}")]
    BadArgument {
        /// The argument's path (`params.password`, `size`).
        name: String,
        /// What is wrong with it.
        message: String,
    },
    /// The work could not be done (a file that cannot be read, a browser that did not
    /// start); the message says what.
    #[error("{0}")]
    Failed(String),
}

impl ToolError {
    /// A bad argument `name`.
    pub fn argument(name: impl Into<String>, message: impl Into<String>) -> Self {
        Self::BadArgument {
            name: name.into(),
            message: message.into(),
        }
    }

    /// A failure of the work.
    pub fn failed(error: impl std::fmt::Display) -> Self {
        Self::Failed(error.to_string())
    }
}

/// The call's arguments as the tool's input type. An unknown, missing or mistyped argument
/// is a [`ToolError::BadArgument`] naming its path.
pub fn parse_arguments<T: DeserializeOwned>(arguments: Option<JsonObject>) -> Result<T, ToolError> {
    let value = serde_json::Value::Object(arguments.unwrap_or_default());
    serde_path_to_error::deserialize(value).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner().to_string();
        // serde names a missing or unknown field in its message, at the path of its object.
        let name = field_in(&inner).unwrap_or(path);
        // serde's message may quote the value given; a parameter value may be a secret.
        let inner = if name.starts_with("params") {
            "expected an object of text values by name, such as {\"username\": \"demo\"} \
             (the value given is not repeated: it may be a secret)"
                .to_owned()
        } else {
            inner
        };
        ToolError::argument(
            if name == "." {
                "arguments".into()
            } else {
                name
            },
            inner,
        )
    })
}

/// The field a serde message names (`missing field `url``, `unknown field `x`, expected ...`).
fn field_in(message: &str) -> Option<String> {
    let rest = message
        .strip_prefix("missing field `")
        .or_else(|| message.strip_prefix("unknown field `"))?;
    rest.split_once('`').map(|(name, _)| name.to_owned())
}

/// Parses `WxH` (both 1..=10000) for the argument `name`.
pub fn parse_size(name: &str, text: &str) -> Result<(u32, u32), ToolError> {
    crate::suite::config::parse_size(text).map_err(|message| ToolError::argument(name, message))
}

/// One call in progress: who asked, whether they still want the answer, and what must not
/// reach them.
#[derive(Clone)]
pub struct CallContext {
    peer: Peer<RoleServer>,
    progress: Option<ProgressToken>,
    /// Cancelled when the caller cancels the call (or goes away).
    pub cancel: CancellationToken,
    secrets: Secrets,
}

impl CallContext {
    /// The context of a call from `peer`, with its progress token, if it asked for progress.
    pub fn new(
        peer: Peer<RoleServer>,
        progress: Option<ProgressToken>,
        cancel: CancellationToken,
    ) -> Self {
        Self {
            peer,
            progress,
            cancel,
            secrets: Secrets::default(),
        }
    }

    /// The same call, scrubbing `secrets` from what it sends back.
    pub fn with_secrets(mut self, secrets: Secrets) -> Self {
        self.secrets = secrets;
        self
    }

    /// The values scrubbed from what this call sends back.
    pub fn secrets(&self) -> &Secrets {
        &self.secrets
    }

    /// Sends a progress notification (when the caller asked for progress), its message
    /// scrubbed of secrets. A caller that went away is not an error of the call.
    pub async fn progress(&self, done: usize, total: usize, message: &str) {
        let Some(token) = &self.progress else { return };
        let message = self.secrets.scrub(message).into_owned();
        let param = ProgressNotificationParam::new(token.clone(), done as f64)
            .with_total(total as f64)
            .with_message(message);
        if let Err(error) = self.peer.notify_progress(param).await {
            tracing::debug!(%error, "could not send a progress notification");
        }
    }

    /// The tool's result: `output` as structured content (and as its JSON text, for
    /// clients that read text), then `extra` blocks (images), scrubbed of secrets.
    pub fn result<T: Serialize>(
        &self,
        output: &T,
        extra: Vec<ContentBlock>,
    ) -> Result<CallToolResult, ToolError> {
        let mut value = serde_json::to_value(output).map_err(ToolError::failed)?;
        self.secrets.scrub_json(&mut value);
        let mut result = CallToolResult::structured(value);
        result.content.extend(extra);
        Ok(result)
    }

    /// A tool error the caller reads, scrubbed of secrets.
    pub fn error(&self, error: &ToolError) -> CallToolResult {
        let text = self.secrets.scrub(&error.to_string()).into_owned();
        CallToolResult::error(vec![ContentBlock::text(text)])
    }
}

/// Runs the future `make` builds on a blocking thread of the current runtime, to its end.
/// A replay's conversation is not `Send` (the CLI runs it with `block_on`); a server's
/// handler must be, so the replay runs where the CLI's does, beside the runtime's workers,
/// while timers, sockets and spawned tasks stay on the runtime.
pub async fn on_own_thread<F, Fut, T>(make: F) -> Result<T, ToolError>
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = T>,
    T: Send + 'static,
{
    let handle = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || handle.block_on(make()))
        .await
        .map_err(ToolError::failed)
}

/// The wire name of a serde enum value (`"passed"`, `"FAIL"`), for outputs that carry it as
/// text.
pub fn wire_name<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|value| value.as_str().map(str::to_owned))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Input {
        url: String,
        #[serde(default)]
        jobs: Option<u32>,
        #[serde(default)]
        params: std::collections::BTreeMap<String, String>,
    }

    fn parse(value: serde_json::Value) -> Result<Input, ToolError> {
        parse_arguments(value.as_object().cloned())
    }

    #[test]
    fn a_bad_argument_is_named() {
        let missing = parse(serde_json::json!({})).unwrap_err().to_string();
        assert!(missing.starts_with("bad argument `url`"), "{missing}");
        let wrong = parse(serde_json::json!({"url": "x", "jobs": "four"}))
            .unwrap_err()
            .to_string();
        assert!(wrong.starts_with("bad argument `jobs`"), "{wrong}");
        let unknown = parse(serde_json::json!({"url": "x", "job": 4}))
            .unwrap_err()
            .to_string();
        assert!(unknown.starts_with("bad argument `job`"), "{unknown}");
        assert!(parse(serde_json::json!({"url": "x", "jobs": 4})).is_ok());
        let secret = parse(serde_json::json!({"url": "x", "params": {"password": 12345678}}))
            .unwrap_err()
            .to_string();
        assert!(
            secret.starts_with("bad argument `params.password`"),
            "{secret}"
        );
        assert!(!secret.contains("12345678"), "{secret}");
    }
}
