//! Reading one structured answer: the JSON object out of the model's text, validated
//! against the response schema, turned into a [`Decision`] — or a [`Rejection`] with the
//! errors to send back.
//!
//! Pure and synchronous: no model, no browser. The speaker decides what to do with either
//! outcome.

use retrace_schema::ResponseOptions;
use retrace_schema::SchemaManager;
use retrace_schema::SchemaValidationError;
use retrace_schema::ValidationContext;
use serde_json::Value;
use serde_json::json;

/// What the model decided for this step.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Go on: run `command`, or — without one — the goal is reached.
    Proceed {
        /// The next command (`{"action", "parameters"}`), if any.
        command: Option<Value>,
        /// The decision's message.
        message: String,
    },
    /// The previous step did not have the expected effect: run the corrective `command`.
    Retry {
        /// The corrective command (`{"action", "parameters"}`).
        command: Value,
        /// The decision's message.
        message: String,
    },
    /// Stop: the goal cannot be reached; `message` says why.
    Abort {
        /// Why, in the model's words: the run's failure reason.
        message: String,
    },
}

impl Decision {
    /// The wire name: `PROCEED`, `RETRY`, `ABORT`.
    pub fn label(&self) -> &'static str {
        match self {
            Decision::Proceed { .. } => "PROCEED",
            Decision::Retry { .. } => "RETRY",
            Decision::Abort { .. } => "ABORT",
        }
    }

    /// The command to run, if the decision has one.
    pub fn command(&self) -> Option<&Value> {
        match self {
            Decision::Proceed { command, .. } => command.as_ref(),
            Decision::Retry { command, .. } => Some(command),
            Decision::Abort { .. } => None,
        }
    }

    /// The decision's message.
    pub fn message(&self) -> &str {
        match self {
            Decision::Proceed { message, .. }
            | Decision::Retry { message, .. }
            | Decision::Abort { message } => message,
        }
    }
}

/// Why an answer cannot be used, in the form the model is sent back.
#[derive(Debug, Clone, PartialEq)]
pub enum Rejection {
    /// The text holds no single JSON object (none, several different ones, too large).
    Unparseable(String),
    /// The object breaks the schema or a semantic check; the field-level errors.
    Invalid(Vec<SchemaValidationError>),
}

impl Rejection {
    /// One line per error: `field: message`, or the parse problem.
    pub fn error_lines(&self) -> Vec<String> {
        match self {
            Rejection::Unparseable(problem) => vec![problem.clone()],
            Rejection::Invalid(errors) => errors.iter().map(ToString::to_string).collect(),
        }
    }

    /// The user message asking for a corrected answer: every error, with the expected type
    /// where the schema says one.
    pub fn correction_request(&self) -> String {
        let mut text = String::from("Your answer could not be used:\n");
        match self {
            Rejection::Unparseable(problem) => {
                text.push_str(&format!("- {problem}\n"));
            }
            Rejection::Invalid(errors) => {
                for error in errors {
                    let field = if error.field.is_empty() {
                        "(answer)"
                    } else {
                        &error.field
                    };
                    text.push_str(&format!("- {field}: {}", error.message));
                    if !error.expected_type.is_empty() {
                        text.push_str(&format!(" (expected: {})", error.expected_type));
                    }
                    text.push('\n');
                }
            }
        }
        text.push_str(
            "Answer again with exactly one JSON object that follows the response schema, \
             fixing every error above.",
        );
        text
    }
}

/// An accepted answer: the object as the model wrote it and its decision.
#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    /// The whole answer object.
    pub answer: Value,
    /// Its decision.
    pub decision: Decision,
}

/// Reads the model's `text`: extracts the one JSON object (code fences and prose around it
/// are tolerated), validates it with `manager` under `options` and `context`, and returns
/// its decision.
pub fn read_answer(
    text: &str,
    manager: &SchemaManager,
    options: ResponseOptions,
    context: &ValidationContext,
) -> Result<Accepted, Rejection> {
    let answer = retrace_schema::parse_model_answer(text)
        .map_err(|error| Rejection::Unparseable(error.to_string()))?;
    let result = manager
        .validate_ai_response(&answer, options, context)
        .map_err(|error| {
            Rejection::Unparseable(format!("the answer cannot be checked: {error}"))
        })?;
    if !result.valid {
        return Err(Rejection::Invalid(result.errors));
    }
    let decision = decision_of(&answer)?;
    Ok(Accepted { answer, decision })
}

/// The decision of an answer that passed validation. The schema already guarantees the
/// shape; this still refuses, rather than panics on, anything it does not expect.
fn decision_of(answer: &Value) -> Result<Decision, Rejection> {
    let missing = |field: &str, expected: &str| {
        Rejection::Invalid(vec![SchemaValidationError::at(
            field.split('.').map(str::to_owned).collect(),
            "is missing",
            Value::Null,
            expected,
        )])
    };
    let action = answer
        .pointer("/decision/action")
        .and_then(Value::as_str)
        .ok_or_else(|| missing("decision.action", "one of PROCEED, RETRY, ABORT"))?;
    let message = answer
        .pointer("/decision/message")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let command = answer.get("command").map(executor_input);
    match (action, command) {
        ("PROCEED", command) => Ok(Decision::Proceed { command, message }),
        ("RETRY", Some(command)) => Ok(Decision::Retry { command, message }),
        ("RETRY", None) => Err(missing("command", "object")),
        ("ABORT", None) => Ok(Decision::Abort { message }),
        ("ABORT", Some(_)) => Err(Rejection::Invalid(vec![SchemaValidationError::at(
            vec!["command".to_owned()],
            "decision ABORT forbids a command",
            answer.get("command").cloned().unwrap_or(Value::Null),
            "absent",
        )])),
        (other, _) => Err(Rejection::Invalid(vec![SchemaValidationError::at(
            vec!["decision".to_owned(), "action".to_owned()],
            "must be one of PROCEED, RETRY, ABORT",
            json!(other),
            "one of PROCEED, RETRY, ABORT",
        )])),
    }
}

/// The command as the web executor takes it: `action` and `parameters` only (the model's
/// per-command `reasoning` stays in the answer, not in the trajectory).
fn executor_input(command: &Value) -> Value {
    json!({
        "action": command.get("action").cloned().unwrap_or(Value::Null),
        "parameters": command.get("parameters").cloned().unwrap_or_else(|| json!({})),
    })
}

#[cfg(test)]
#[path = "decision_tests.rs"]
mod tests;
