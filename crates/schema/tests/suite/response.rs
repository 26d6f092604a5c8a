//! The agent response schema against the seed's three examples, each broken in one field;
//! the decision rules; the five command shapes; reasoning requirements; semantic checks.

use std::collections::BTreeSet;

use pretty_assertions::assert_eq;
use retrace_schema::COMMAND_ACTIONS;
use retrace_schema::ResponseOptions;
use retrace_schema::SchemaKind;
use retrace_schema::ValidationContext;
use retrace_schema::ValidationMode;
use retrace_schema::executor_command_schemas;
use serde_json::Value;
use serde_json::json;

use super::support::assert_clean;
use super::support::err;
use super::support::fixture;
use super::support::response;
use super::support::validate;

fn retry() -> Value {
    fixture("seed_response_retry")
}

fn proceed() -> Value {
    fixture("seed_response_proceed")
}

fn abort() -> Value {
    fixture("seed_response_abort")
}

#[test]
fn the_seeds_three_examples_are_accepted() {
    for answer in [retry(), proceed(), abort()] {
        assert_clean(&response(&answer));
    }
}

#[test]
fn retry_example_with_an_unknown_decision_is_rejected() {
    let mut answer = retry();
    answer["decision"]["action"] = json!("CONTINUE");
    let result = response(&answer);
    assert_eq!(
        result.errors,
        vec![err(
            &["decision", "action"],
            "must be one of PROCEED, RETRY, ABORT",
            json!("CONTINUE"),
            "string"
        )]
    );
    assert!(!result.valid);
    assert!(result.executor_compatible, "the command itself is fine");
}

#[test]
fn retry_example_without_its_command_breaks_the_retry_rule() {
    let mut answer = retry();
    answer.as_object_mut().unwrap().remove("command");
    assert_eq!(
        response(&answer).errors,
        vec![err(
            &["command"],
            "decision RETRY requires a corrective command",
            Value::Null,
            "object"
        )]
    );
}

#[test]
fn retry_example_with_an_empty_selector_is_rejected() {
    let mut answer = retry();
    answer["command"]["parameters"]["selector"] = json!("");
    let result = response(&answer);
    assert_eq!(
        result.errors,
        vec![err(
            &["command", "parameters", "selector"],
            "must not be empty",
            json!(""),
            "string"
        )]
    );
    assert!(!result.executor_compatible);
}

#[test]
fn proceed_example_with_numeric_text_is_rejected() {
    let mut answer = proceed();
    answer["command"]["parameters"]["text"] = json!(42);
    assert_eq!(
        response(&answer).errors,
        vec![err(
            &["command", "parameters", "text"],
            "must be of type string, got integer",
            json!(42),
            "string"
        )]
    );
}

#[test]
fn proceed_example_with_empty_analysis_is_rejected() {
    let mut answer = proceed();
    answer["reasoning"]["analysis"] = json!("");
    assert_eq!(
        response(&answer).errors,
        vec![err(
            &["reasoning", "analysis"],
            "must not be empty",
            json!(""),
            "string"
        )]
    );
}

#[test]
fn abort_example_with_a_command_breaks_the_abort_rule() {
    let mut answer = abort();
    let command = json!({ "action": "GET_DOM", "parameters": {} });
    answer["command"] = command.clone();
    let result = response(&answer);
    assert_eq!(
        result.errors,
        vec![err(
            &["command"],
            "decision ABORT forbids a command",
            command,
            "nothing"
        )]
    );
    assert!(!result.executor_compatible);
}

#[test]
fn abort_example_with_a_string_success_is_rejected() {
    let mut answer = abort();
    answer["decision"]["resultValidation"]["success"] = json!("no");
    assert_eq!(
        response(&answer).errors,
        vec![err(
            &["decision", "resultValidation", "success"],
            "must be of type boolean, got string",
            json!("no"),
            "boolean"
        )]
    );
}

#[test]
fn abort_example_without_rationale_is_rejected() {
    let mut answer = abort();
    answer["reasoning"]
        .as_object_mut()
        .unwrap()
        .remove("rationale");
    assert_eq!(
        response(&answer).errors,
        vec![err(
            &["reasoning", "rationale"],
            "is required",
            Value::Null,
            "string"
        )]
    );
}

#[test]
fn reasoning_is_required_unless_the_option_says_otherwise() {
    let mut answer = abort();
    answer.as_object_mut().unwrap().remove("reasoning");
    assert_eq!(
        response(&answer).errors,
        vec![err(&["reasoning"], "is required", Value::Null, "object")]
    );
    let relaxed = ResponseOptions {
        require_reasoning: false,
        ..ResponseOptions::default()
    };
    let result = validate(
        SchemaKind::Response(relaxed),
        &answer,
        &ValidationContext::default(),
    );
    assert_clean(&result);
}

#[test]
fn strict_mode_rejects_unknown_fields_and_lenient_mode_tolerates_them() {
    let mut answer = proceed();
    answer["mood"] = json!("optimistic");
    assert_eq!(
        response(&answer).errors,
        vec![err(
            &["mood"],
            "is not allowed here; allowed fields: decision, reasoning, command, context",
            json!("optimistic"),
            "nothing"
        )]
    );
    let lenient = ResponseOptions {
        validation_mode: ValidationMode::Lenient,
        ..ResponseOptions::default()
    };
    assert_clean(&validate(
        SchemaKind::Response(lenient),
        &answer,
        &ValidationContext::default(),
    ));
}

#[test]
fn without_optional_fields_a_strict_schema_rejects_them() {
    let minimal = ResponseOptions {
        include_optional_fields: false,
        ..ResponseOptions::default()
    };
    let answer = abort();
    let result = validate(
        SchemaKind::Response(minimal),
        &answer,
        &ValidationContext::default(),
    );
    assert_eq!(
        result.errors,
        vec![
            err(
                &["decision", "resultValidation"],
                "is not allowed here; allowed fields: action, message",
                answer["decision"]["resultValidation"].clone(),
                "nothing"
            ),
            err(
                &["reasoning", "confidence"],
                "is not allowed here; allowed fields: analysis, rationale, expectedOutcome",
                json!(0.95),
                "nothing"
            ),
            err(
                &["reasoning", "alternatives"],
                "is not allowed here; allowed fields: analysis, rationale, expectedOutcome",
                answer["reasoning"]["alternatives"].clone(),
                "nothing"
            ),
        ]
    );
}

fn with_command(command: Value) -> Value {
    let mut answer = proceed();
    answer["command"] = command;
    answer
}

#[test]
fn every_command_shape_is_accepted() {
    let commands = [
        json!({ "action": "OPEN_PAGE", "parameters": { "url": "https://example.com/login?next=%2F" } }),
        json!({ "action": "CLICK_ELEMENT", "parameters": { "selector": "button[type=submit]" } }),
        json!({ "action": "INPUT_TEXT", "parameters": { "selector": "#user", "text": "" } }),
        json!({ "action": "SAVE_VARIABLE", "parameters": { "selector": ".total", "variableName": "_total2" } }),
        json!({ "action": "GET_DOM", "parameters": {} }),
    ];
    let schemas = executor_command_schemas();
    assert_eq!(
        schemas.keys().map(String::as_str).collect::<Vec<_>>(),
        COMMAND_ACTIONS.to_vec()
    );
    for command in commands {
        let action = command["action"].as_str().unwrap();
        let declared = schemas[action]["properties"]["parameters"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<BTreeSet<_>>();
        let given = command["parameters"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<BTreeSet<_>>();
        assert!(
            given.is_subset(&declared),
            "{action}: {given:?} not in {declared:?}"
        );
        assert_clean(&response(&with_command(command)));
    }
}

#[test]
fn command_parameter_edge_cases_are_reported_at_their_field() {
    let cases = [
        (
            json!({ "action": "GET_DOM", "parameters": { "selector": "body" } }),
            err(
                &["command", "parameters", "selector"],
                "is not allowed here: this object takes no fields",
                json!("body"),
                "nothing",
            ),
        ),
        (
            json!({ "action": "INPUT_TEXT", "parameters": { "selector": "#q" } }),
            err(
                &["command", "parameters", "text"],
                "is required",
                Value::Null,
                "string",
            ),
        ),
        (
            json!({ "action": "SAVE_VARIABLE", "parameters": { "selector": "#q", "variableName": "2fa" } }),
            err(
                &["command", "parameters", "variableName"],
                "must match ^[a-zA-Z_][a-zA-Z0-9_]*$",
                json!("2fa"),
                "string",
            ),
        ),
        (
            json!({ "action": "SCROLL", "parameters": {} }),
            err(
                &["command", "action"],
                "must be one of OPEN_PAGE, CLICK_ELEMENT, INPUT_TEXT, SAVE_VARIABLE, GET_DOM",
                json!("SCROLL"),
                "string",
            ),
        ),
        (
            json!({ "action": "CLICK_ELEMENT" }),
            err(
                &["command", "parameters"],
                "is required",
                Value::Null,
                "object",
            ),
        ),
        (
            json!([{ "action": "GET_DOM", "parameters": {} }]),
            err(
                &["command"],
                "must be of type object, got array",
                json!([{ "action": "GET_DOM", "parameters": {} }]),
                "object",
            ),
        ),
        (
            json!({ "action": "OPEN_PAGE", "parameters": { "url": "javascript:alert(1)" } }),
            err(
                &["command", "parameters", "url"],
                "scheme `javascript:` is never allowed",
                json!("javascript:alert(1)"),
                "string (URL: http, https)",
            ),
        ),
        (
            json!({ "action": "OPEN_PAGE", "parameters": { "url": "ftp://files.example.com/a" } }),
            err(
                &["command", "parameters", "url"],
                "scheme `ftp:` is not allowed; allowed: http, https",
                json!("ftp://files.example.com/a"),
                "string (URL: http, https)",
            ),
        ),
        (
            json!({ "action": "CLICK_ELEMENT", "parameters": { "selector": "div >" } }),
            err(
                &["command", "parameters", "selector"],
                "invalid CSS selector at byte 5: expected a selector",
                json!("div >"),
                "string (CSS selector)",
            ),
        ),
    ];
    for (command, expected) in cases {
        let result = response(&with_command(command.clone()));
        assert_eq!(result.errors, vec![expected], "command {command}");
        assert!(!result.executor_compatible, "command {command}");
    }
}

#[test]
fn a_url_that_is_not_a_uri_is_rejected_by_the_schema() {
    let answer =
        with_command(json!({ "action": "OPEN_PAGE", "parameters": { "url": "settings login" } }));
    let errors = response(&answer).errors;
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].field, "command.parameters.url");
    assert_eq!(errors[0].value, json!("settings login"));
    assert!(
        errors[0]
            .message
            .starts_with("matches none of the allowed forms"),
        "{}",
        errors[0].message
    );
}

#[test]
fn variable_references_are_checked_against_the_sessions_variables() {
    let answer = proceed();
    let none = ValidationContext {
        known_variables: Some(BTreeSet::new()),
        ..ValidationContext::default()
    };
    let kind = SchemaKind::Response(ResponseOptions::default());
    assert_eq!(
        validate(kind, &answer, &none).errors,
        vec![err(
            &["command", "parameters", "text"],
            "refers to ${saved_username}, which this session has not saved; saved variables: none",
            json!("${saved_username}"),
            "string with ${name} references to saved variables"
        )]
    );
    let known = ValidationContext {
        known_variables: Some(BTreeSet::from(["saved_username".to_owned()])),
        ..ValidationContext::default()
    };
    assert_clean(&validate(kind, &answer, &known));

    let url = with_command(
        json!({ "action": "OPEN_PAGE", "parameters": { "url": "https://${host}/a" } }),
    );
    assert_clean(&validate(kind, &url, &ValidationContext::default()));

    let mut broken = proceed();
    broken["command"]["parameters"]["text"] = json!("hello ${name");
    assert_eq!(
        response(&broken).errors,
        vec![err(
            &["command", "parameters", "text"],
            "command field `text` has a malformed variable reference at byte 6: `${` is not closed by `}`",
            json!("hello ${name"),
            "string with ${name} references"
        )]
    );
}

#[test]
fn an_inconsistent_decision_is_a_warning() {
    let mut answer = proceed();
    answer["decision"]["resultValidation"]["success"] = json!(false);
    let result = response(&answer);
    assert!(result.valid);
    assert_eq!(
        result.warnings,
        vec!["decision.resultValidation.success: is false, yet the decision is PROCEED".to_owned()]
    );
}

#[test]
fn oversized_strings_are_rejected() {
    let mut answer = proceed();
    answer["command"]["parameters"]["text"] = json!("x".repeat(16 * 1024 + 1));
    assert_eq!(
        response(&answer).errors,
        vec![err(
            &["command", "parameters", "text"],
            "is 16385 bytes long; at most 16384 are allowed",
            json!("x".repeat(80)),
            "shorter string"
        )]
    );
}
