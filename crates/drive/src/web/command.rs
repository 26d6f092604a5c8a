//! The web executor's commands, parsed from their wire form
//! `{"sessionId"?: …, "action": "CLICK_ELEMENT", "parameters": {…}}` (the shape
//! retrace-schema's `ExecutorCommand` serializes to), and the checks that need no page:
//! selectors not empty, variable names well formed, URL schemes allowed.

use serde_json::Value;

use crate::web::error::WebError;

/// `OPEN_PAGE`: navigate, then wait for load and network idle.
pub const OPEN_PAGE: &str = "OPEN_PAGE";
/// `CLICK_ELEMENT`: click an element once it is visible, enabled and uncovered.
pub const CLICK_ELEMENT: &str = "CLICK_ELEMENT";
/// `INPUT_TEXT`: replace an editable element's content by typing.
pub const INPUT_TEXT: &str = "INPUT_TEXT";
/// `SAVE_VARIABLE`: store an element's text in the session's variables.
pub const SAVE_VARIABLE: &str = "SAVE_VARIABLE";
/// `GET_DOM`: a compact, size-bounded view of the page's interactive elements.
pub const GET_DOM: &str = "GET_DOM";
/// `OPEN_SESSION`: open a new session (a page with its own variables).
pub const OPEN_SESSION: &str = "OPEN_SESSION";
/// `CLOSE_SESSION`: close a session and its page.
pub const CLOSE_SESSION: &str = "CLOSE_SESSION";
/// `LIST_SESSIONS`: the open sessions.
pub const LIST_SESSIONS: &str = "LIST_SESSIONS";

/// Every action the executor accepts, page commands first.
pub const ACTIONS: [&str; 8] = [
    OPEN_PAGE,
    CLICK_ELEMENT,
    INPUT_TEXT,
    SAVE_VARIABLE,
    GET_DOM,
    OPEN_SESSION,
    CLOSE_SESSION,
    LIST_SESSIONS,
];

/// A command that acts on one session's page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WebCommand {
    /// Navigate to `url` (http/https unless configured otherwise).
    OpenPage {
        /// Absolute URL.
        url: String,
    },
    /// Click the first element `selector` matches.
    ClickElement {
        /// CSS selector.
        selector: String,
    },
    /// Replace the content of the element `selector` matches by typing `text`.
    InputText {
        /// CSS selector.
        selector: String,
        /// What to type. Never echoed in outputs or errors: it may be a password.
        text: String,
    },
    /// Save the text of the element `selector` matches as `variable_name`.
    SaveVariable {
        /// CSS selector.
        selector: String,
        /// Matches `[a-zA-Z_][a-zA-Z0-9_]*`.
        variable_name: String,
    },
    /// Describe the page's interactive elements.
    GetDom,
}

impl WebCommand {
    /// The wire name of the action (`OPEN_PAGE`).
    pub fn action(&self) -> &'static str {
        match self {
            WebCommand::OpenPage { .. } => OPEN_PAGE,
            WebCommand::ClickElement { .. } => CLICK_ELEMENT,
            WebCommand::InputText { .. } => INPUT_TEXT,
            WebCommand::SaveVariable { .. } => SAVE_VARIABLE,
            WebCommand::GetDom => GET_DOM,
        }
    }

    /// The selector the command targets, if it has one.
    pub fn selector(&self) -> Option<&str> {
        match self {
            WebCommand::ClickElement { selector }
            | WebCommand::InputText { selector, .. }
            | WebCommand::SaveVariable { selector, .. } => Some(selector),
            WebCommand::OpenPage { .. } | WebCommand::GetDom => None,
        }
    }
}

/// Any request the executor understands: a page command or session management.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// Run `command` in the session `session` (`None`: the caller's default session).
    Page {
        /// The session id, when the request named one.
        session: Option<String>,
        /// The command.
        command: WebCommand,
    },
    /// Open a session, named `session` or given a fresh id.
    OpenSession {
        /// The id asked for.
        session: Option<String>,
    },
    /// Close a session (`None`: the default session).
    CloseSession {
        /// The id.
        session: Option<String>,
    },
    /// List the open sessions.
    ListSessions,
}

impl Request {
    /// Parses the wire form. Unknown actions, missing or extra parameters and malformed
    /// values are errors that name the action and the field, and list what is valid.
    pub fn from_json(value: &Value) -> Result<Request, WebError> {
        let object = value.as_object().ok_or_else(|| {
            invalid(
                "",
                "the command must be a JSON object with `action` and `parameters`",
            )
        })?;
        let action = object
            .get("action")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid("", "`action` is missing or not a string"))?;
        if let Some(key) = object
            .keys()
            .find(|key| !["action", "parameters", "sessionId", "reasoning"].contains(&key.as_str()))
        {
            return Err(invalid(
                action,
                &format!("unknown field `{key}`; the fields are action, parameters, sessionId"),
            ));
        }
        let session = match object.get("sessionId") {
            None | Some(Value::Null) => None,
            Some(Value::String(id)) if !id.trim().is_empty() => Some(id.clone()),
            Some(_) => return Err(invalid(action, "`sessionId` must be a non-empty string")),
        };
        let empty = serde_json::Map::new();
        let parameters = match object.get("parameters") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(parameters)) => parameters,
            Some(_) => return Err(invalid(action, "`parameters` must be an object")),
        };
        let params = Params { action, parameters };
        let command = match action {
            OPEN_PAGE => {
                params.only(&["url"])?;
                WebCommand::OpenPage {
                    url: params.string("url")?,
                }
            }
            CLICK_ELEMENT => {
                params.only(&["selector"])?;
                WebCommand::ClickElement {
                    selector: params.selector()?,
                }
            }
            INPUT_TEXT => {
                params.only(&["selector", "text"])?;
                WebCommand::InputText {
                    selector: params.selector()?,
                    text: params.string("text")?,
                }
            }
            SAVE_VARIABLE => {
                params.only(&["selector", "variableName"])?;
                let variable_name = params.string("variableName")?;
                check_variable_name(action, &variable_name)?;
                WebCommand::SaveVariable {
                    selector: params.selector()?,
                    variable_name,
                }
            }
            GET_DOM => {
                params.only(&[])?;
                WebCommand::GetDom
            }
            OPEN_SESSION => {
                params.only(&[])?;
                return Ok(Request::OpenSession { session });
            }
            CLOSE_SESSION => {
                params.only(&[])?;
                return Ok(Request::CloseSession { session });
            }
            LIST_SESSIONS => {
                params.only(&[])?;
                return Ok(Request::ListSessions);
            }
            other => {
                return Err(invalid(
                    other,
                    &format!("unknown action; the actions are {}", ACTIONS.join(", ")),
                ));
            }
        };
        Ok(Request::Page { session, command })
    }
}

/// The `parameters` object of one command, with the action for error messages.
struct Params<'a> {
    action: &'a str,
    parameters: &'a serde_json::Map<String, Value>,
}

impl Params<'_> {
    fn only(&self, allowed: &[&str]) -> Result<(), WebError> {
        match self
            .parameters
            .keys()
            .find(|key| !allowed.contains(&key.as_str()))
        {
            None => Ok(()),
            Some(key) if allowed.is_empty() => Err(invalid(
                self.action,
                &format!("unknown parameter `{key}`; this action takes no parameters"),
            )),
            Some(key) => Err(invalid(
                self.action,
                &format!(
                    "unknown parameter `{key}`; the parameters are {}",
                    allowed.join(", ")
                ),
            )),
        }
    }

    fn string(&self, name: &str) -> Result<String, WebError> {
        match self.parameters.get(name) {
            Some(Value::String(text)) => Ok(text.clone()),
            Some(_) => Err(invalid(
                self.action,
                &format!("parameter `{name}` must be a string"),
            )),
            None => Err(invalid(
                self.action,
                &format!("parameter `{name}` is required"),
            )),
        }
    }

    fn selector(&self) -> Result<String, WebError> {
        let selector = self.string("selector")?;
        if selector.trim().is_empty() {
            return Err(invalid(
                self.action,
                "parameter `selector` must not be empty",
            ));
        }
        Ok(selector)
    }
}

fn invalid(action: &str, detail: &str) -> WebError {
    WebError::InvalidCommand {
        action: if action.is_empty() {
            "(no action)".to_owned()
        } else {
            action.to_owned()
        },
        detail: detail.to_owned(),
    }
}

/// Checks a variable name against `[a-zA-Z_][a-zA-Z0-9_]*`.
pub fn check_variable_name(action: &str, name: &str) -> Result<(), WebError> {
    let mut chars = name.chars();
    let valid = chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if valid {
        Ok(())
    } else {
        Err(invalid(
            action,
            &format!("variableName {name:?} must match [a-zA-Z_][a-zA-Z0-9_]*"),
        ))
    }
}

/// Why `url` may not be opened, or `None` when its scheme is in `allowed` (compared without
/// case). `javascript:` is refused whatever `allowed` says: it would run code, not open a page.
pub fn url_refusal(url: &str, allowed: &[String]) -> Option<String> {
    let Some((scheme, _)) = url.split_once(':') else {
        return Some("it has no scheme; give an absolute URL such as http://host/path".to_owned());
    };
    let scheme = scheme.trim().to_ascii_lowercase();
    let well_formed = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !well_formed {
        return Some("it has no scheme; give an absolute URL such as http://host/path".to_owned());
    }
    if scheme == "javascript" {
        return Some("javascript: URLs run code and are never opened".to_owned());
    }
    if allowed.iter().any(|a| a.eq_ignore_ascii_case(&scheme)) {
        None
    } else {
        Some(format!(
            "scheme `{scheme}` is not allowed; allowed schemes: {}",
            allowed.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parse(value: Value) -> Result<Request, WebError> {
        Request::from_json(&value)
    }

    #[test]
    fn parses_every_page_command_with_and_without_a_session() {
        assert_eq!(
            parse(json!({"sessionId": "s1", "action": "OPEN_PAGE", "parameters": {"url": "http://x/"}}))
                .unwrap(),
            Request::Page {
                session: Some("s1".into()),
                command: WebCommand::OpenPage { url: "http://x/".into() }
            }
        );
        assert_eq!(
            parse(json!({"action": "INPUT_TEXT", "parameters": {"selector": "#u", "text": "a b"}}))
                .unwrap(),
            Request::Page {
                session: None,
                command: WebCommand::InputText {
                    selector: "#u".into(),
                    text: "a b".into()
                }
            }
        );
        let save = parse(json!({"action": "SAVE_VARIABLE",
            "parameters": {"selector": "#welcome", "variableName": "welcome_text"}}))
        .unwrap();
        assert!(matches!(
            save,
            Request::Page { command: WebCommand::SaveVariable { ref variable_name, .. }, .. }
                if variable_name == "welcome_text"
        ));
        assert_eq!(
            parse(json!({"action": "GET_DOM", "parameters": {}})).unwrap(),
            Request::Page {
                session: None,
                command: WebCommand::GetDom
            }
        );
        assert_eq!(
            parse(json!({"action": "GET_DOM"})).unwrap(),
            Request::Page {
                session: None,
                command: WebCommand::GetDom
            }
        );
        assert_eq!(
            parse(
                json!({"action": "CLICK_ELEMENT", "parameters": {"selector": "#go"},
                "reasoning": "the model's note is ignored"})
            )
            .unwrap(),
            Request::Page {
                session: None,
                command: WebCommand::ClickElement {
                    selector: "#go".into()
                }
            }
        );
    }

    #[test]
    fn parses_session_management() {
        assert_eq!(
            parse(json!({"action": "OPEN_SESSION", "sessionId": "a"})).unwrap(),
            Request::OpenSession {
                session: Some("a".into())
            }
        );
        assert_eq!(
            parse(json!({"action": "CLOSE_SESSION"})).unwrap(),
            Request::CloseSession { session: None }
        );
        assert_eq!(
            parse(json!({"action": "LIST_SESSIONS"})).unwrap(),
            Request::ListSessions
        );
    }

    #[test]
    fn bad_commands_name_the_action_and_the_field() {
        let cases = [
            (
                json!({"action": "HOVER"}),
                "HOVER",
                "the actions are OPEN_PAGE",
            ),
            (
                json!({"action": "CLICK_ELEMENT", "parameters": {}}),
                "CLICK_ELEMENT",
                "`selector` is required",
            ),
            (
                json!({"action": "CLICK_ELEMENT", "parameters": {"selector": "  "}}),
                "CLICK_ELEMENT",
                "must not be empty",
            ),
            (
                json!({"action": "CLICK_ELEMENT", "parameters": {"selector": "#a", "x": 1}}),
                "CLICK_ELEMENT",
                "unknown parameter `x`",
            ),
            (
                json!({"action": "INPUT_TEXT", "parameters": {"selector": "#a", "text": 5}}),
                "INPUT_TEXT",
                "`text` must be a string",
            ),
            (
                json!({"action": "SAVE_VARIABLE", "parameters": {"selector": "#a", "variableName": "9lives"}}),
                "SAVE_VARIABLE",
                "\"9lives\"",
            ),
            (
                json!({"action": "GET_DOM", "parameters": {"depth": 2}}),
                "GET_DOM",
                "takes no parameters",
            ),
            (
                json!({"action": "OPEN_PAGE", "parameters": {"url": "http://x"}, "extra": 1}),
                "OPEN_PAGE",
                "unknown field `extra`",
            ),
            (
                json!({"action": "OPEN_PAGE", "sessionId": 3, "parameters": {"url": "http://x"}}),
                "OPEN_PAGE",
                "`sessionId`",
            ),
            (json!("OPEN_PAGE"), "(no action)", "JSON object"),
        ];
        for (value, action, needle) in cases {
            let error = parse(value.clone()).unwrap_err();
            let message = error.to_string();
            assert!(message.contains(action), "{value}: {message}");
            assert!(message.contains(needle), "{value}: {message}");
        }
    }

    #[test]
    fn variable_names_follow_the_identifier_pattern() {
        for good in ["a", "_x", "welcome_text", "A9"] {
            assert!(check_variable_name(SAVE_VARIABLE, good).is_ok(), "{good}");
        }
        for bad in ["", "9a", "a-b", "a b", "ä"] {
            assert!(check_variable_name(SAVE_VARIABLE, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn url_schemes_are_checked() {
        let web = vec!["http".to_owned(), "https".to_owned()];
        assert_eq!(url_refusal("http://127.0.0.1:8080/", &web), None);
        assert_eq!(url_refusal("HTTPS://example.invalid/", &web), None);
        let refusal = url_refusal("file:///etc/passwd", &web).unwrap();
        assert!(
            refusal.contains("`file`") && refusal.contains("http, https"),
            "{refusal}"
        );
        assert!(
            url_refusal("javascript:alert(1)", &web)
                .unwrap()
                .contains("javascript")
        );
        let everything = vec!["javascript".to_owned(), "file".to_owned()];
        assert!(url_refusal("JavaScript:alert(1)", &everything).is_some());
        assert_eq!(url_refusal("file:///tmp/x.html", &everything), None);
        assert!(
            url_refusal("/relative/path", &web)
                .unwrap()
                .contains("no scheme")
        );
        assert!(
            url_refusal("127.0.0.1:80", &web)
                .unwrap()
                .contains("no scheme")
        );
    }
}
