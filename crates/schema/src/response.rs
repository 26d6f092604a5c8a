//! The agent response schema: a decision (PROCEED/RETRY/ABORT) with result validation,
//! reasoning, and at most one web command in one of five shapes.
//!
//! The decision rules live in the schema itself (`allOf` of `if`/`then`): RETRY requires a
//! command, ABORT forbids one. The command is discriminated by `action` with `if`/`then`
//! rather than `oneOf`, so a bad parameter is reported at its own field
//! (`command.parameters.url`) instead of as "matches none of five shapes". No `$ref`s are
//! used, so every error's schema location points straight into the generated document.

use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use crate::ResponseOptions;
use crate::ValidationMode;
use crate::fragments::DRAFT_07;
use crate::fragments::confidence;
use crate::fragments::obj;
use crate::fragments::object;
use crate::fragments::props;
use crate::fragments::schema_id;
use crate::fragments::string;
use crate::fragments::string_list;

/// The five web commands, in the seed's order.
pub const COMMAND_ACTIONS: [&str; 5] = [
    "OPEN_PAGE",
    "CLICK_ELEMENT",
    "INPUT_TEXT",
    "SAVE_VARIABLE",
    "GET_DOM",
];

/// The three decisions.
pub const DECISION_ACTIONS: [&str; 3] = ["PROCEED", "RETRY", "ABORT"];

/// The variable-name pattern for `SAVE_VARIABLE` and `${name}` references.
pub const VARIABLE_NAME_PATTERN: &str = "^[a-zA-Z_][a-zA-Z0-9_]*$";

/// Pattern a URL holding a `${variable}` reference matches (checked again after substitution).
const URL_WITH_VARIABLE_PATTERN: &str = r"\$\{[a-zA-Z_][a-zA-Z0-9_]*\}";

fn selector() -> Value {
    string(
        "CSS selector of the target element; may hold ${variable} references.",
        1,
    )
}

/// The `parameters` schema of one command action; `None` for an unknown action.
/// Parameters never allow extra fields, whatever the validation mode: the executor takes
/// exactly these.
pub fn command_parameters_schema(action: &str) -> Option<Value> {
    let strict = ValidationMode::Strict;
    let schema = match action {
        "OPEN_PAGE" => object(
            "Parameters of OPEN_PAGE.",
            props([(
                "url",
                json!({
                    "type": "string",
                    "description": "Absolute URL to open (http or https); may hold ${variable} references.",
                    "anyOf": [
                        { "format": "uri" },
                        { "pattern": URL_WITH_VARIABLE_PATTERN },
                    ],
                }),
            )]),
            &["url"],
            strict,
        ),
        "CLICK_ELEMENT" => object(
            "Parameters of CLICK_ELEMENT.",
            props([("selector", selector())]),
            &["selector"],
            strict,
        ),
        "INPUT_TEXT" => object(
            "Parameters of INPUT_TEXT.",
            props([
                ("selector", selector()),
                (
                    "text",
                    string("Text to type; may hold ${variable} references.", 0),
                ),
            ]),
            &["selector", "text"],
            strict,
        ),
        "SAVE_VARIABLE" => object(
            "Parameters of SAVE_VARIABLE.",
            props([
                ("selector", selector()),
                (
                    "variableName",
                    json!({
                        "type": "string",
                        "description": "Name to save the element's text under; later commands use it as ${name}.",
                        "pattern": VARIABLE_NAME_PATTERN,
                    }),
                ),
            ]),
            &["selector", "variableName"],
            strict,
        ),
        "GET_DOM" => object("GET_DOM takes no parameters.", Map::new(), &[], strict),
        _ => return None,
    };
    Some(schema)
}

/// The seed's per-command schemas (`getExecutorMethodSchemas`): for each action,
/// `{action: const, parameters}` with both required.
pub fn executor_command_schemas() -> Map<String, Value> {
    COMMAND_ACTIONS
        .iter()
        .filter_map(|action| {
            let parameters = command_parameters_schema(action)?;
            let schema = json!({
                "type": "object",
                "properties": {
                    "action": { "const": action },
                    "parameters": parameters,
                },
                "required": ["action", "parameters"],
            });
            Some(((*action).to_owned(), schema))
        })
        .collect()
}

fn command_schema(options: ResponseOptions) -> Value {
    let mut properties = props([
        (
            "action",
            json!({
                "type": "string",
                "description": "Type of automation command to execute.",
                "enum": COMMAND_ACTIONS,
            }),
        ),
        (
            "parameters",
            json!({ "type": "object", "description": "Parameters of the action; their shape depends on it." }),
        ),
    ]);
    if options.include_optional_fields {
        properties.insert(
            "reasoning".into(),
            string("Explanation for this specific command.", 0),
        );
    }
    let mut schema = object(
        "The one command to run next. The session is chosen by the caller, never here.",
        properties,
        &["action", "parameters"],
        ValidationMode::Strict,
    );
    let branches: Vec<Value> = COMMAND_ACTIONS
        .iter()
        .filter_map(|action| {
            let parameters = command_parameters_schema(action)?;
            Some(obj([
                (
                    "if",
                    json!({ "properties": { "action": { "const": action } }, "required": ["action"] }),
                ),
                (
                    "then",
                    obj([("properties", obj([("parameters", parameters)]))]),
                ),
            ]))
        })
        .collect();
    schema["allOf"] = Value::Array(branches);
    schema
}

fn decision_schema(options: ResponseOptions) -> Value {
    let mode = options.validation_mode;
    let mut properties = props([
        (
            "action",
            json!({
                "type": "string",
                "description": "PROCEED: the previous step did what was expected; continue (a command is optional). \
                    RETRY: it did not; a corrective command is required. \
                    ABORT: the state is unrecoverable; stop, with no command.",
                "enum": DECISION_ACTIONS,
            }),
        ),
        ("message", string("Short statement of the decision.", 1)),
    ]);
    if options.include_optional_fields {
        let mut validation = props([
            (
                "success",
                json!({ "type": "boolean", "description": "Did the previous step succeed?" }),
            ),
            (
                "expectedElements",
                string_list("Elements that should be present."),
            ),
            (
                "actualState",
                string("Description of the current page state.", 0),
            ),
        ]);
        validation.insert(
            "issues".into(),
            string_list("Specific problems identified."),
        );
        properties.insert(
            "resultValidation".into(),
            object(
                "Assessment of the previous step's result.",
                validation,
                &["success", "expectedElements", "actualState"],
                mode,
            ),
        );
    }
    object(
        "What to do next, judged from the previous step's result.",
        properties,
        &["action", "message"],
        mode,
    )
}

fn reasoning_schema(options: ResponseOptions) -> Value {
    let mut properties = props([
        (
            "analysis",
            string(
                "Current page state and evaluation of the previous result.",
                1,
            ),
        ),
        ("rationale", string("Why this decision was chosen.", 1)),
        (
            "expectedOutcome",
            string("Predicted result of the decision.", 1),
        ),
    ]);
    if options.include_optional_fields {
        properties.insert(
            "alternatives".into(),
            string("Other approaches considered.", 0),
        );
        properties.insert(
            "confidence".into(),
            confidence("Confidence in the decision, 0 to 1."),
        );
    }
    object(
        "Why the decision was made.",
        properties,
        &["analysis", "rationale", "expectedOutcome"],
        options.validation_mode,
    )
}

fn decision_rule(action: &str, then: Value) -> Value {
    obj([
        (
            "if",
            json!({
                "properties": {
                    "decision": {
                        "properties": { "action": { "const": action } },
                        "required": ["action"],
                    },
                },
                "required": ["decision"],
            }),
        ),
        ("then", then),
    ])
}

/// Generates the agent response schema for `options`, stamped with `version`.
pub fn response_schema(options: ResponseOptions, version: &str) -> Value {
    let mut properties = props([
        ("decision", decision_schema(options)),
        ("reasoning", reasoning_schema(options)),
        ("command", command_schema(options)),
    ]);
    if options.include_optional_fields {
        properties.insert(
            "context".into(),
            json!({ "type": "object", "description": "Free-form notes carried to the next step." }),
        );
    }
    let required: &[&str] = if options.require_reasoning {
        &["decision", "reasoning"]
    } else {
        &["decision"]
    };
    let mut schema = object(
        "One step of an agent working a web page: a decision, its reasoning and at most one command.",
        properties,
        required,
        options.validation_mode,
    );
    let rules = Value::Array(vec![
        decision_rule(
            "RETRY",
            json!({
                "description": "decision RETRY requires a corrective command",
                "required": ["command"],
            }),
        ),
        decision_rule(
            "ABORT",
            json!({
                "description": "decision ABORT forbids a command",
                "not": { "required": ["command"] },
            }),
        ),
    ]);
    let mut head = Map::with_capacity(9);
    head.insert("$schema".into(), DRAFT_07.into());
    head.insert("$id".into(), schema_id("response", version).into());
    head.insert("title".into(), "AgentResponse".into());
    if let Value::Object(body) = &mut schema {
        head.append(body);
    }
    head.insert("allOf".into(), rules);
    Value::Object(head)
}
