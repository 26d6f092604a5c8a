//! [`ResolvingWebTool`]: the `web_executor` tool of structured runs. Before a page command
//! reaches the executor it goes through retrace-schema's [`to_executor_command`]: typed, the
//! session injected, and every `${variable}` resolved from the variables that session has
//! saved *at that moment*.
//!
//! Trajectories therefore keep `${name}` as the model wrote it, and a replay resolves it
//! against what the replayed `SAVE_VARIABLE` found on the page then — not against a value
//! frozen at recording time. Session commands (`OPEN_SESSION`...) pass through unchanged.

use std::sync::Arc;

use async_trait::async_trait;
use retrace_drive::tool::Tool;
use retrace_drive::web::DEFAULT_SESSION;
use retrace_drive::web::WebExecutor;
use retrace_drive::web::WebExecutorTool;
use retrace_schema::SessionState;
use retrace_schema::to_executor_command;
use serde_json::Value;

use retrace_drive::tool::ToolError;
use retrace_drive::tool::ToolOutput;

/// The `web_executor` tool with `${variable}` resolution; see the module docs.
pub struct ResolvingWebTool {
    executor: Arc<WebExecutor>,
    inner: WebExecutorTool,
}

impl std::fmt::Debug for ResolvingWebTool {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ResolvingWebTool")
            .field("executor", &self.executor)
            .finish()
    }
}

impl ResolvingWebTool {
    /// The tool over `executor`.
    pub fn new(executor: Arc<WebExecutor>) -> Self {
        let inner = WebExecutorTool::new(executor.clone());
        Self { executor, inner }
    }

    /// The executor behind the tool.
    pub fn executor(&self) -> &Arc<WebExecutor> {
        &self.executor
    }
}

/// Whether `action` is one of the page commands the response schema knows (the ones with
/// parameters that may hold `${variable}` references).
fn is_page_command(action: &str) -> bool {
    retrace_schema::COMMAND_ACTIONS.contains(&action)
}

#[async_trait]
impl Tool for ResolvingWebTool {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn description(&self) -> &str {
        self.inner.description()
    }

    fn input_schema(&self) -> Value {
        self.inner.input_schema()
    }

    fn cacheable(&self) -> bool {
        true
    }

    async fn call(&self, input: Value) -> Result<ToolOutput, ToolError> {
        let action = input
            .get("action")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if !is_page_command(&action) {
            return self.inner.call(input).await;
        }
        let explicit = input
            .get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let session = explicit
            .clone()
            .unwrap_or_else(|| DEFAULT_SESSION.to_owned());
        // A session not open yet has saved nothing; the executor reports it if it must.
        let variables = self.executor.variables(&session).unwrap_or_default();
        let state = SessionState {
            session_id: &session,
            variables: &variables,
            allowed_url_schemes: &self.executor.config().allowed_url_schemes,
        };
        let command = match to_executor_command(&input, state) {
            Ok(command) => command,
            Err(error) => return Err(ToolError::for_model(format!("{action}: {error}"))),
        };
        let mut resolved = match serde_json::to_value(&command) {
            Ok(value) => value,
            Err(error) => return Err(ToolError::for_model(format!("{action}: {error}"))),
        };
        // Without an explicit session the default one is meant, which the executor opens
        // on first use; naming it would make the executor insist it is already open.
        if explicit.is_none()
            && let Some(object) = resolved.as_object_mut()
        {
            object.remove("sessionId");
        }
        self.inner.call(resolved).await
    }
}

#[cfg(test)]
mod tests {
    use retrace_drive::BrowserBackend;
    use retrace_drive::backend::PageFactory;
    use retrace_drive::error::DriveError;
    use retrace_drive::web::WebExecutorConfig;
    use serde_json::json;

    use super::*;

    /// A browser that cannot open pages: these calls must be settled before one is needed.
    struct NoBrowser;

    #[async_trait]
    impl PageFactory for NoBrowser {
        async fn new_page(&self) -> Result<Arc<dyn BrowserBackend>, DriveError> {
            Err(DriveError::InvalidInput("no browser in this test".into()))
        }
    }

    fn tool() -> ResolvingWebTool {
        ResolvingWebTool::new(Arc::new(WebExecutor::new(
            Arc::new(NoBrowser),
            WebExecutorConfig::default(),
        )))
    }

    #[tokio::test]
    async fn unknown_references_and_refused_urls_are_errors_the_model_reads() {
        let tool = tool();
        let error = tool
            .call(json!({"action": "INPUT_TEXT", "parameters": {"selector": "#q", "text": "${nobody}"}}))
            .await
            .unwrap_err();
        let ToolError::ForModel(text) = error else {
            panic!("expected an error for the model, got {error:?}");
        };
        assert!(text.starts_with("INPUT_TEXT: "), "{text}");
        assert!(text.contains("nobody"), "{text}");

        let error = tool
            .call(json!({"action": "OPEN_PAGE", "parameters": {"url": "javascript:alert(1)"}}))
            .await
            .unwrap_err();
        let ToolError::ForModel(text) = error else {
            panic!("expected an error for the model, got {error:?}");
        };
        assert!(text.contains("javascript"), "{text}");
    }

    #[tokio::test]
    async fn session_commands_pass_through_and_the_tool_is_the_web_executor() {
        let tool = tool();
        assert_eq!(tool.name(), retrace_protocol::tool_names::WEB_EXECUTOR);
        assert!(tool.cacheable());
        let reply = tool.call(json!({"action": "LIST_SESSIONS"})).await.unwrap();
        assert_eq!(reply.text.as_deref(), Some(r#"{"sessions":[]}"#));
    }
}
