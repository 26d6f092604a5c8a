//! The web executor as a model-facing [`Tool`] named `web_executor`.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;
use serde_json::json;

use crate::error::DriveError;
use crate::tool::Tool;
use crate::tool::ToolError;
use crate::tool::ToolOutput;
use crate::web::command::ACTIONS;
use crate::web::command::Request;
use crate::web::error::WebError;
use crate::web::executor::WebExecutor;

const DESCRIPTION: &str = "Drive a web browser by CSS selector. Input: {\"action\", \
\"parameters\", \"sessionId\"?}. Actions: OPEN_PAGE {url} opens an http(s) URL and waits for \
it to load; CLICK_ELEMENT {selector} clicks an element once it is visible and enabled; \
INPUT_TEXT {selector, text} replaces a text field's content by typing; SAVE_VARIABLE \
{selector, variableName} stores the element's text under a name; GET_DOM {} lists the \
page's interactive elements with a selector, role, text and box for each. OPEN_SESSION, \
CLOSE_SESSION and LIST_SESSIONS manage sessions (each a separate page with its own \
variables); without sessionId, commands run in the session \"default\".";

/// The `web_executor` tool over a shared [`WebExecutor`].
#[derive(Debug, Clone)]
pub struct WebExecutorTool {
    executor: Arc<WebExecutor>,
}

impl WebExecutorTool {
    /// A tool running its commands on `executor` (shared, so callers can inspect sessions).
    pub fn new(executor: Arc<WebExecutor>) -> Self {
        Self { executor }
    }

    /// The executor behind the tool.
    pub fn executor(&self) -> &Arc<WebExecutor> {
        &self.executor
    }
}

#[async_trait]
impl Tool for WebExecutorTool {
    fn name(&self) -> &str {
        retrace_protocol::tool_names::WEB_EXECUTOR
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "action": {
                    "type": "string",
                    "enum": ACTIONS,
                    "description": "The command to run."
                },
                "parameters": {
                    "type": "object",
                    "properties": {
                        "url": {"type": "string", "description": "OPEN_PAGE: absolute http(s) URL."},
                        "selector": {"type": "string", "minLength": 1, "description": "CSS selector of the target element."},
                        "text": {"type": "string", "description": "INPUT_TEXT: the text to type."},
                        "variableName": {
                            "type": "string",
                            "pattern": "^[a-zA-Z_][a-zA-Z0-9_]*$",
                            "description": "SAVE_VARIABLE: the name to store the text under."
                        }
                    },
                    "additionalProperties": false
                },
                "sessionId": {"type": "string", "minLength": 1, "description": "The session to run in; default \"default\"."}
            },
            "required": ["action"],
            "additionalProperties": false
        })
    }

    fn cacheable(&self) -> bool {
        true
    }

    async fn call(&self, input: Value) -> Result<ToolOutput, ToolError> {
        let request = Request::from_json(&input).map_err(|e| ToolError::ForModel(e.to_string()))?;
        match self.executor.execute_request(request).await {
            // GET_DOM's message is its JSON view; LIST_SESSIONS answers with the session list.
            Ok(outcome) => Ok(ToolOutput::text(match outcome.data {
                Some(data) if outcome.action == crate::web::command::LIST_SESSIONS => {
                    data.to_string()
                }
                _ => outcome.message,
            })),
            Err(error) if error.is_fatal() => Err(ToolError::Fatal(fatal(error))),
            Err(error) => Err(ToolError::ForModel(error.to_string())),
        }
    }
}

/// A fatal web error as the drive error the run ends with, keeping the command context.
fn fatal(error: WebError) -> DriveError {
    let WebError::Backend {
        action,
        session,
        selector,
        source,
    } = error
    else {
        return DriveError::InvalidInput(error.to_string());
    };
    match *source {
        DriveError::BackendGone {
            backend,
            doing,
            detail,
        } => {
            let target = selector.map_or_else(String::new, |s| format!(" on `{s}`"));
            DriveError::BackendGone {
                backend,
                doing: format!("{doing} ({action}{target} in session `{session}`)"),
                detail,
            }
        }
        DriveError::Launch { backend, detail } => DriveError::Launch {
            backend,
            detail: format!("{detail} ({action} in session `{session}`)"),
        },
        other => other,
    }
}
