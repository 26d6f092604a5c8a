use super::*;
use serde_json::json;

fn values(pairs: &[(&str, &str)]) -> ParameterValues {
    pairs.iter().copied().collect()
}

#[test]
fn parses_tokens_exactly() {
    let t = Template::parse("a {{x}}{{x_1}} {{ y }} {{1z}} {{{w}}} }}");
    assert_eq!(
        t.tokens(),
        [
            Token::Literal("a ".into()),
            Token::Parameter("x".into()),
            Token::Parameter("x_1".into()),
            Token::Literal(" {{ y }} {{1z}} {".into()),
            Token::Parameter("w".into()),
            Token::Literal("} }}".into()),
        ]
    );
}

#[test]
fn renders_without_substring_soup() {
    let t = Template::parse("{{user}}/{{user_id}}");
    // A value that looks like a placeholder is not substituted again.
    let out = t
        .render(&values(&[("user", "{{user_id}}"), ("user_id", "42")]))
        .unwrap();
    assert_eq!(out, "{{user_id}}/42");
}

#[test]
fn missing_names_are_all_reported() {
    let e = Template::parse("{{b}} {{a}} {{b}}")
        .render(&values(&[]))
        .unwrap_err();
    assert_eq!(e.to_string(), "missing values for parameters: a, b");
}

#[test]
fn trajectory_substitution_checks_unknown_and_missing() {
    let steps = vec![
        ToolUseBlock::new("1", "type", json!({"text": "{{term}} and {{other}}"})),
        ToolUseBlock::new(
            "2",
            "computer",
            json!({"action": "key", "keys": ["{{key}}", "enter"], "n": 3}),
        ),
    ];
    assert_eq!(
        parameters_in_trajectory(&steps)
            .into_iter()
            .collect::<Vec<_>>(),
        ["key", "other", "term"]
    );
    let e = substitute_trajectory(&steps, &values(&[("term", "x"), ("bogus", "1")])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown parameters: bogus (this trajectory uses: key, other, term)"
    );
    let e = substitute_trajectory(&steps, &values(&[("term", "x")])).unwrap_err();
    assert_eq!(e.to_string(), "missing values for parameters: key, other");
    let out = substitute_trajectory(
        &steps,
        &values(&[("term", "x"), ("other", "y"), ("key", "tab")]),
    )
    .unwrap();
    assert_eq!(out[0].input, json!({"text": "x and y"}));
    assert_eq!(
        out[1].input,
        json!({"action": "key", "keys": ["tab", "enter"], "n": 3})
    );
    assert_eq!(out[1].id, "2");
}

#[test]
fn debug_never_shows_values() {
    let v = values(&[("password", "hunter2")]);
    let shown = format!("{v:?}");
    assert!(
        shown.contains("password") && !shown.contains("hunter2"),
        "{shown}"
    );
}

#[test]
fn substitute_value_reports_missing() {
    let e = substitute_value(&json!({"a": ["{{p}}"]}), &values(&[])).unwrap_err();
    assert_eq!(e.to_string(), "missing values for parameters: p");
}

/// A prompt's answer kept with its step is input: its placeholder is a parameter of the file.
#[test]
fn a_dialog_answer_names_a_parameter() {
    let mut step = ToolUseBlock::new("1", "computer", json!({"action": "left_click"}));
    step.extra.insert(
        crate::fields::DIALOGS.to_owned(),
        json!([{"kind": "prompt", "message": "PIN?", "accepted": true, "prompt_text": "{{pin}}"}]),
    );
    assert_eq!(
        parameters_in_trajectory(&[step])
            .into_iter()
            .collect::<Vec<_>>(),
        ["pin"]
    );
}
