//! Model command → executor command: session id injected, `${variable}` resolved.

use std::collections::BTreeMap;

use pretty_assertions::assert_eq;
use retrace_schema::ExecutorCommand;
use retrace_schema::SchemaError;
use retrace_schema::SessionState;
use retrace_schema::Token;
use retrace_schema::WebCommand;
use retrace_schema::to_executor_command;
use retrace_schema::tokenize;
use serde_json::json;

use super::support::fixture;

fn schemes() -> Vec<String> {
    vec!["http".to_owned(), "https".to_owned()]
}

fn session<'a>(variables: &'a BTreeMap<String, String>, schemes: &'a [String]) -> SessionState<'a> {
    SessionState {
        session_id: "session-7",
        variables,
        allowed_url_schemes: schemes,
    }
}

#[test]
fn the_seeds_input_command_gets_its_session_and_its_variable() {
    let command = &fixture("seed_response_proceed")["command"];
    let variables = BTreeMap::from([("saved_username".to_owned(), "alice".to_owned())]);
    let schemes = schemes();
    let executor = to_executor_command(command, session(&variables, &schemes)).unwrap();
    assert_eq!(
        executor,
        ExecutorCommand {
            session_id: "session-7".to_owned(),
            command: WebCommand::InputText {
                selector: "input[name='username']".to_owned(),
                text: "alice".to_owned()
            }
        }
    );
    assert_eq!(
        serde_json::to_value(&executor).unwrap(),
        json!({
            "sessionId": "session-7",
            "action": "INPUT_TEXT",
            "parameters": { "selector": "input[name='username']", "text": "alice" }
        })
    );
    let back: ExecutorCommand =
        serde_json::from_value(serde_json::to_value(&executor).unwrap()).unwrap();
    assert_eq!(back, executor);
}

#[test]
fn an_unknown_variable_is_named() {
    let command = &fixture("seed_response_proceed")["command"];
    let variables = BTreeMap::from([("price".to_owned(), "secret-value".to_owned())]);
    let schemes = schemes();
    let error = to_executor_command(command, session(&variables, &schemes)).unwrap_err();
    assert_eq!(
        error,
        SchemaError::UnknownVariable {
            field: "text",
            name: "saved_username".to_owned(),
            known: "price".to_owned()
        }
    );
    let message = error.to_string();
    assert_eq!(
        message,
        "command field `text` refers to `${saved_username}`, which this session has not saved; \
         saved variables: price"
    );
    assert!(!message.contains("secret-value"));
}

#[test]
fn substitution_is_exact_and_not_recursive() {
    let variables = BTreeMap::from([
        ("a".to_owned(), "${b}".to_owned()),
        ("b".to_owned(), "never".to_owned()),
        ("id".to_owned(), "42".to_owned()),
    ]);
    let schemes = schemes();
    let command = json!({ "action": "INPUT_TEXT", "parameters": { "selector": "#row-${id}", "text": "$${a}$ {a} ${a}" } });
    let executor = to_executor_command(&command, session(&variables, &schemes)).unwrap();
    assert_eq!(
        executor.command,
        WebCommand::InputText {
            selector: "#row-42".to_owned(),
            text: "$${b}$ {a} ${b}".to_owned()
        }
    );
    assert_eq!(
        tokenize("x${a}y", "text").unwrap(),
        vec![Token::Text("x"), Token::Variable("a"), Token::Text("y")]
    );
}

#[test]
fn a_url_is_checked_again_after_substitution() {
    let variables = BTreeMap::from([
        ("target".to_owned(), "javascript:alert(1)".to_owned()),
        ("host".to_owned(), "app.example.com".to_owned()),
    ]);
    let schemes = schemes();
    let bad = json!({ "action": "OPEN_PAGE", "parameters": { "url": "${target}" } });
    assert_eq!(
        to_executor_command(&bad, session(&variables, &schemes)),
        Err(SchemaError::UrlSchemeNotAllowed {
            scheme: "javascript".to_owned(),
            allowed: "http, https".to_owned()
        })
    );
    let good = json!({ "action": "OPEN_PAGE", "parameters": { "url": "https://${host}/invoices" }, "reasoning": "go" });
    assert_eq!(
        to_executor_command(&good, session(&variables, &schemes))
            .unwrap()
            .command,
        WebCommand::OpenPage {
            url: "https://app.example.com/invoices".to_owned()
        }
    );
}

#[test]
fn other_commands_transform_or_fail_with_the_reason() {
    let variables = BTreeMap::new();
    let schemes = schemes();
    let dom = json!({ "action": "GET_DOM", "parameters": {} });
    let executor = to_executor_command(&dom, session(&variables, &schemes)).unwrap();
    assert_eq!(
        serde_json::to_value(&executor).unwrap(),
        json!({ "sessionId": "session-7", "action": "GET_DOM", "parameters": {} })
    );
    let save = json!({ "action": "SAVE_VARIABLE", "parameters": { "selector": ".total", "variableName": "total" } });
    assert_eq!(
        to_executor_command(&save, session(&variables, &schemes))
            .unwrap()
            .command
            .action(),
        "SAVE_VARIABLE"
    );
    let scroll = json!({ "action": "SCROLL", "parameters": {} });
    let Err(SchemaError::BadCommand(reason)) =
        to_executor_command(&scroll, session(&variables, &schemes))
    else {
        panic!("SCROLL must fail");
    };
    assert!(reason.contains("unknown variant `SCROLL`"), "{reason}");
    let bad_selector = json!({ "action": "CLICK_ELEMENT", "parameters": { "selector": "a[" } });
    assert_eq!(
        to_executor_command(&bad_selector, session(&variables, &schemes)),
        Err(SchemaError::BadCommand(
            "selector: invalid CSS selector at byte 2: expected an attribute name".to_owned()
        ))
    );
}
