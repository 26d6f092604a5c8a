use std::collections::BTreeSet;

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

const REASONING: &str =
    r#""reasoning": {"analysis": "the form", "rationale": "the goal", "expectedOutcome": "typed"}"#;

fn read(text: &str) -> Result<Accepted, Rejection> {
    read_with(text, &ValidationContext::default())
}

fn read_with(text: &str, context: &ValidationContext) -> Result<Accepted, Rejection> {
    read_answer(
        text,
        &SchemaManager::new(),
        ResponseOptions::default(),
        context,
    )
}

fn answer(decision: &str, command: Option<&str>) -> String {
    let command = command.map_or_else(String::new, |c| format!(r#", "command": {c}"#));
    format!(r#"{{"decision": {decision}, {REASONING}{command}}}"#)
}

#[test]
fn proceed_with_a_command_keeps_only_action_and_parameters() {
    let text = answer(
        r#"{"action": "PROCEED", "message": "typing the user"}"#,
        Some(
            r##"{"action": "INPUT_TEXT", "parameters": {"selector": "#username", "text": "demo"}, "reasoning": "first field"}"##,
        ),
    );
    let accepted = read(&text).unwrap();
    assert_eq!(
        accepted.decision,
        Decision::Proceed {
            command: Some(
                json!({"action": "INPUT_TEXT", "parameters": {"selector": "#username", "text": "demo"}})
            ),
            message: "typing the user".into(),
        }
    );
    assert_eq!(accepted.answer["command"]["reasoning"], "first field");
    assert_eq!(accepted.decision.label(), "PROCEED");
}

#[test]
fn proceed_without_a_command_means_done() {
    let accepted = read(&answer(
        r#"{"action": "PROCEED", "message": "signed in"}"#,
        None,
    ))
    .unwrap();
    assert_eq!(
        accepted.decision,
        Decision::Proceed {
            command: None,
            message: "signed in".into()
        }
    );
    assert_eq!(accepted.decision.command(), None);
}

#[test]
fn retry_carries_its_corrective_command_and_abort_its_message() {
    let retry = read(&answer(
        r#"{"action": "RETRY", "message": "the click missed"}"#,
        Some(r##"{"action": "CLICK_ELEMENT", "parameters": {"selector": "#sign-in"}}"##),
    ))
    .unwrap();
    assert_eq!(
        retry.decision,
        Decision::Retry {
            command: json!({"action": "CLICK_ELEMENT", "parameters": {"selector": "#sign-in"}}),
            message: "the click missed".into(),
        }
    );
    let abort = read(&answer(
        r#"{"action": "ABORT", "message": "Login page not found"}"#,
        None,
    ))
    .unwrap();
    assert_eq!(
        abort.decision,
        Decision::Abort {
            message: "Login page not found".into()
        }
    );
    assert_eq!(abort.decision.message(), "Login page not found");
}

#[test]
fn code_fences_and_prose_around_the_object_are_tolerated() {
    let object = answer(r#"{"action": "PROCEED", "message": "done"}"#, None);
    for text in [
        format!("```json\n{object}\n```"),
        format!("Here is my decision:\n```\n{object}\n```\nLet me know."),
        format!("I checked the page. {object}"),
    ] {
        assert_eq!(read(&text).unwrap().decision.label(), "PROCEED", "{text}");
    }
}

#[test]
fn text_without_one_object_is_unparseable() {
    assert_eq!(
        read("I will click the sign-in button.").unwrap_err(),
        Rejection::Unparseable("the answer holds no JSON object (32 characters of text)".into())
    );
    let done = answer(r#"{"action": "PROCEED", "message": "done"}"#, None);
    let other = answer(r#"{"action": "PROCEED", "message": "other"}"#, None);
    let Rejection::Unparseable(problem) = read(&format!("{done}\n{other}")).unwrap_err() else {
        panic!("two different objects must not be accepted");
    };
    assert!(problem.contains('2'), "{problem}");
}

#[test]
fn schema_errors_come_back_at_their_fields() {
    let missing_text = answer(
        r#"{"action": "PROCEED", "message": "typing"}"#,
        Some(r##"{"action": "INPUT_TEXT", "parameters": {"selector": "#password"}}"##),
    );
    let Rejection::Invalid(errors) = read(&missing_text).unwrap_err() else {
        panic!("expected field errors");
    };
    assert_eq!(
        errors,
        vec![SchemaValidationError::at(
            vec!["command".into(), "parameters".into(), "text".into()],
            "is required",
            Value::Null,
            "string",
        )]
    );

    let retry_without_command = answer(r#"{"action": "RETRY", "message": "again"}"#, None);
    let Rejection::Invalid(errors) = read(&retry_without_command).unwrap_err() else {
        panic!("expected field errors");
    };
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].field, "command");
    assert_eq!(
        errors[0].message,
        "decision RETRY requires a corrective command"
    );
}

#[test]
fn references_to_unsaved_variables_are_errors() {
    let context = ValidationContext {
        known_variables: Some(BTreeSet::from(["user".to_owned()])),
        ..ValidationContext::default()
    };
    let known = answer(
        r#"{"action": "PROCEED", "message": "typing"}"#,
        Some(
            r##"{"action": "INPUT_TEXT", "parameters": {"selector": "#search", "text": "${user}"}}"##,
        ),
    );
    assert!(read_with(&known, &context).is_ok());
    let unknown = known.replace("${user}", "${nope}");
    let Rejection::Invalid(errors) = read_with(&unknown, &context).unwrap_err() else {
        panic!("expected field errors");
    };
    assert_eq!(errors[0].field, "command.parameters.text");
    assert!(
        errors[0].message.contains("${nope}"),
        "{}",
        errors[0].message
    );
}

#[test]
fn the_correction_request_lists_every_error_with_its_expected_type() {
    let rejection = Rejection::Invalid(vec![
        SchemaValidationError::at(
            vec!["command".into(), "parameters".into(), "text".into()],
            "is required",
            Value::Null,
            "string",
        ),
        SchemaValidationError::at(vec![], "must be an object", json!(1), ""),
    ]);
    assert_eq!(
        rejection.correction_request(),
        "Your answer could not be used:\n\
         - command.parameters.text: is required (expected: string)\n\
         - (answer): must be an object\n\
         Answer again with exactly one JSON object that follows the response schema, fixing every error above."
    );
    assert_eq!(
        rejection.error_lines(),
        vec![
            "command.parameters.text: is required".to_owned(),
            "(answer): must be an object".to_owned()
        ]
    );
    let unparseable = Rejection::Unparseable("the answer holds no JSON object".into());
    assert!(
        unparseable
            .correction_request()
            .contains("- the answer holds no JSON object\n")
    );
}
