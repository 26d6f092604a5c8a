use pretty_assertions::assert_eq;
use retrace_protocol::ToolResultBlock;
use retrace_protocol::Usage;
use serde_json::json;

use super::*;
use crate::catalog::Coordinates;

const PNG: &str = "iVBORw0KGgo=";

/// UI-TARS-1.5 sees a 1280x800 screenshot as 1288x812 (smart_resize, factor 28).
fn map() -> Option<CoordinateMap> {
    CoordinateMap::new(Coordinates::Resized { factor: 28 }, (1280, 800))
}

fn answer(text: &str) -> MessageResponse {
    MessageResponse {
        id: "chatcmpl-1".into(),
        content: vec![ContentBlock::text(text)],
        stop_reason: StopReason::EndTurn,
        usage: Usage::default(),
        model: "ui-tars".into(),
    }
}

#[test]
fn an_answer_becomes_computer_calls_in_screenshot_pixels() {
    let mut response =
        answer("Thought: Click the username field.\nAction: click(start_box='(644,406)')");
    read_answer(&mut response, map(), "uitars_1").unwrap();
    assert_eq!(response.stop_reason, StopReason::ToolUse);
    assert_eq!(
        response.content,
        vec![
            ContentBlock::text("Click the username field."),
            ContentBlock::ToolUse(ToolUseBlock::new(
                "uitars_1_0",
                COMPUTER,
                json!({"action": "left_click", "coordinate": [640, 400]})
            )),
        ]
    );
}

#[test]
fn finished_ends_the_turn_with_its_text() {
    let mut response = answer("Thought: Done.\nAction: finished(content='Signed in.')");
    read_answer(&mut response, map(), "uitars_2").unwrap();
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    assert_eq!(response.text(), "Done.\nSigned in.");
}

#[test]
fn an_unreadable_answer_says_how_to_answer_and_is_left_as_it_was() {
    let mut response = answer("I think I should click the button.");
    let error = read_answer(&mut response, map(), "uitars_3").unwrap_err();
    assert!(error.starts_with("no `Action:` in the answer"), "{error}");
    assert_eq!(response, answer("I think I should click the button."));
}

#[test]
fn the_history_is_sent_in_text_form_in_the_models_space() {
    let call = ToolUseBlock::new(
        "uitars_1_0",
        COMPUTER,
        json!({"action": "left_click", "coordinate": [640, 400]}),
    );
    let request = MessageRequest::new(
        vec![
            Message::user_text("Log in"),
            Message::assistant(vec![
                ContentBlock::text("Click the username field."),
                ContentBlock::ToolUse(call),
            ]),
            Message::user(vec![ContentBlock::ToolResult(ToolResultBlock::new(
                "uitars_1_0",
                vec![ContentBlock::png_base64(PNG)],
                false,
            ))]),
        ],
        256,
    )
    .with_system("Operate the page.")
    .with_tools(vec![ToolSpec::computer(1280, 800)])
    .with_tool_choice(ToolChoice::Tool(COMPUTER.into()));
    let sent = text_request(&request, map());
    assert!(sent.tools.is_empty());
    assert_eq!(sent.tool_choice, None);
    assert!(
        sent.system
            .as_deref()
            .unwrap()
            .starts_with("Operate the page.\n\nYou are a GUI agent.")
    );
    assert_eq!(
        sent.messages[1],
        Message::assistant(vec![ContentBlock::text(
            "Thought: Click the username field.\nAction: click(start_box='(644,406)')"
        )])
    );
    assert_eq!(
        sent.messages[2],
        Message::user(vec![ContentBlock::png_base64(PNG)])
    );
}
