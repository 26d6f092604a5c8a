//! From the model's command to the executor's: typed, session id injected, `${variable}`
//! references resolved from the session's saved variables, the URL re-checked afterwards.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::Serialize;
use serde_json::Value;

use crate::SchemaError;
use crate::checks::url_scheme_problem;
use crate::selector::check_selector;
use crate::variables::substitute;

/// A web command as the model writes it (`{"action": "CLICK_ELEMENT", "parameters": {…}}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "action",
    content = "parameters",
    rename_all = "SCREAMING_SNAKE_CASE"
)]
pub enum WebCommand {
    /// Navigate to `url`.
    OpenPage {
        /// Absolute http(s) URL.
        url: String,
    },
    /// Click the element `selector` finds.
    ClickElement {
        /// CSS selector.
        selector: String,
    },
    /// Type `text` into the element `selector` finds.
    InputText {
        /// CSS selector.
        selector: String,
        /// Text to type.
        text: String,
    },
    /// Save the text of the element `selector` finds under `variable_name`.
    SaveVariable {
        /// CSS selector.
        selector: String,
        /// Name for later `${name}` references.
        #[serde(rename = "variableName")]
        variable_name: String,
    },
    /// Return the page's DOM.
    GetDom {},
}

impl WebCommand {
    /// The wire name of the action (`OPEN_PAGE`).
    pub fn action(&self) -> &'static str {
        match self {
            WebCommand::OpenPage { .. } => "OPEN_PAGE",
            WebCommand::ClickElement { .. } => "CLICK_ELEMENT",
            WebCommand::InputText { .. } => "INPUT_TEXT",
            WebCommand::SaveVariable { .. } => "SAVE_VARIABLE",
            WebCommand::GetDom {} => "GET_DOM",
        }
    }
}

/// A command ready for the executor: the session it runs in, and no references left.
/// Serializes as `{"sessionId": …, "action": …, "parameters": {…}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecutorCommand {
    /// The session, chosen by the caller (never by the model).
    #[serde(rename = "sessionId")]
    pub session_id: String,
    /// The command with every `${variable}` resolved.
    #[serde(flatten)]
    pub command: WebCommand,
}

/// What the transformation needs from the session.
#[derive(Debug, Clone, Copy)]
pub struct SessionState<'a> {
    /// The session id to inject.
    pub session_id: &'a str,
    /// Variables the session has saved (name → value).
    pub variables: &'a BTreeMap<String, String>,
    /// URL schemes `OPEN_PAGE` may use after substitution (`javascript` is always refused).
    pub allowed_url_schemes: &'a [String],
}

/// Converts the model's `command` object (extra fields such as its `reasoning` are ignored)
/// into an executor command for `session`.
pub fn to_executor_command(
    command: &Value,
    session: SessionState<'_>,
) -> Result<ExecutorCommand, SchemaError> {
    let action = command
        .get("action")
        .ok_or_else(|| SchemaError::BadCommand("`action` is missing".to_owned()))?;
    let parameters = command
        .get("parameters")
        .ok_or_else(|| SchemaError::BadCommand("`parameters` is missing".to_owned()))?;
    let wire = serde_json::json!({ "action": action, "parameters": parameters });
    let parsed: WebCommand =
        serde_json::from_value(wire).map_err(|e| SchemaError::BadCommand(e.to_string()))?;
    let vars = session.variables;
    let resolved = match parsed {
        WebCommand::OpenPage { url } => {
            let url = substitute(&url, "url", vars)?;
            if url.starts_with("${") || url.chars().any(char::is_whitespace) {
                return Err(SchemaError::BadCommand(format!(
                    "url `{}` is not an absolute URL after substitution",
                    url.chars().take(80).collect::<String>()
                )));
            }
            if let Some(problem) = url_scheme_problem(&url, session.allowed_url_schemes) {
                let scheme = url
                    .split_once(':')
                    .map_or("", |(s, _)| s)
                    .to_ascii_lowercase();
                return Err(if scheme.is_empty() {
                    SchemaError::BadCommand(format!("url {problem}"))
                } else {
                    SchemaError::UrlSchemeNotAllowed {
                        scheme,
                        allowed: session.allowed_url_schemes.join(", "),
                    }
                });
            }
            WebCommand::OpenPage { url }
        }
        WebCommand::ClickElement { selector } => WebCommand::ClickElement {
            selector: resolved_selector(&selector, vars)?,
        },
        WebCommand::InputText { selector, text } => WebCommand::InputText {
            selector: resolved_selector(&selector, vars)?,
            text: substitute(&text, "text", vars)?,
        },
        WebCommand::SaveVariable {
            selector,
            variable_name,
        } => WebCommand::SaveVariable {
            selector: resolved_selector(&selector, vars)?,
            variable_name,
        },
        WebCommand::GetDom {} => WebCommand::GetDom {},
    };
    Ok(ExecutorCommand {
        session_id: session.session_id.to_owned(),
        command: resolved,
    })
}

fn resolved_selector(
    selector: &str,
    variables: &BTreeMap<String, String>,
) -> Result<String, SchemaError> {
    let selector = substitute(selector, "selector", variables)?;
    check_selector(&selector).map_err(|e| SchemaError::BadCommand(format!("selector: {e}")))?;
    Ok(selector)
}
