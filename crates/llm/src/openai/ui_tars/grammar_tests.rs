use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn only_action(text: &str) -> Value {
    let answer = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(answer.actions.len(), 1, "{answer:?}");
    answer.actions[0].clone()
}

#[test]
fn a_click_with_its_thought() {
    let answer = parse(
        "Thought: The username field is empty; I click it first.\nAction: click(start_box='(235,512)')",
    )
    .unwrap();
    assert_eq!(
        answer,
        Answer {
            thought: Some("The username field is empty; I click it first.".into()),
            actions: vec![json!({"action": "left_click", "coordinate": [235, 512]})],
            finished: None,
        }
    );
}

#[test]
fn every_box_form_is_a_point() {
    for text in [
        "Action: click(start_box='(100,200)')",
        "Action: click(start_box='(90,190,110,210)')",
        "Action: click(start_box='[90, 190, 110, 210]')",
        "Action: click(start_box='<|box_start|>(100,200)<|box_end|>')",
        "Action: click(point='<point>100 200</point>')",
        "Action: click(start_box=\"(100, 200)\")",
    ] {
        assert_eq!(
            only_action(text),
            json!({"action": "left_click", "coordinate": [100, 200]}),
            "{text}"
        );
    }
}

#[test]
fn every_action_kind() {
    let cases = [
        (
            "left_double(start_box='(5,6)')",
            json!({"action": "double_click", "coordinate": [5, 6]}),
        ),
        (
            "right_single(start_box='(7,8)')",
            json!({"action": "right_click", "coordinate": [7, 8]}),
        ),
        (
            "drag(start_box='(1,2)', end_box='(30,40)')",
            json!({"action": "left_click_drag", "start_coordinate": [1, 2], "coordinate": [30, 40]}),
        ),
        (
            "hotkey(key='ctrl c')",
            json!({"action": "key", "text": "ctrl+c"}),
        ),
        (
            "hotkey(key='enter')",
            json!({"action": "key", "text": "Return"}),
        ),
        (
            "type(content='demo\\n')",
            json!({"action": "type", "text": "demo\n"}),
        ),
        (
            "scroll(start_box='(640,400)', direction='down')",
            json!({"action": "scroll", "coordinate": [640, 400], "scroll_direction": "down",
                   "scroll_amount": SCROLL_NOTCHES}),
        ),
        (
            "wait()",
            json!({"action": "wait", "duration": WAIT_SECONDS}),
        ),
    ];
    for (text, input) in cases {
        let answer = format!("Thought: step\nAction: {text}");
        assert_eq!(only_action(&answer), input, "{text}");
        // Written back, it reads the same.
        let written = render(&input).unwrap();
        assert_eq!(
            only_action(&format!("Action: {written}")),
            input,
            "{written}"
        );
    }
}

#[test]
fn typed_text_keeps_quotes_the_model_did_not_escape() {
    assert_eq!(
        only_action("Thought: t\nAction: type(content='it's done')"),
        json!({"action": "type", "text": "it's done"})
    );
    let input = json!({"action": "type", "text": "it's\ndone"});
    assert_eq!(render(&input).unwrap(), "type(content='it\\'s\\ndone')");
}

#[test]
fn finished_ends_the_run_with_its_content() {
    let answer =
        parse("Thought: Signed in.\nAction: finished(content='Signed in as demo.')").unwrap();
    assert!(answer.actions.is_empty());
    assert_eq!(answer.finished.as_deref(), Some("Signed in as demo."));
    assert!(parse("Action: call_user()").unwrap().finished.is_some());
}

#[test]
fn several_actions_in_one_answer() {
    let answer =
        parse("Thought: t\nAction: click(start_box='(1,2)')\n\ntype(content='x')").unwrap();
    assert_eq!(answer.actions.len(), 2);
}

#[test]
fn malformed_answers_get_errors_the_model_can_act_on() {
    let cases = [
        ("I will click the button.", "no `Action:` in the answer"),
        (
            "Action: clik(start_box='(1,2)')",
            "unknown action `clik`: use one of click,",
        ),
        (
            "Action: click(start_box='(1)')",
            "`click`: `start_box='(1)'` is not a point",
        ),
        ("Action: click()", "`click` needs `start_box=`"),
        (
            "Action: click(start_box=(1,2))",
            "the value of `start_box` must be quoted",
        ),
        (
            "Action: scroll(start_box='(1,2)', direction='sideways')",
            "must be up, down, left or right",
        ),
        ("Action: ", "`Action:` is empty"),
    ];
    for (text, expected) in cases {
        let error = parse(text).unwrap_err();
        assert!(error.contains(expected), "{text}: {error}");
    }
}
