//! What the browser draws outside the page, folded into steps: a dropdown's choice, a dialog's
//! answer, a URL typed in the address bar.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use pretty_assertions::assert_eq;
use retrace_drive::chromium::demonstration::CapturedInput;
use retrace_drive::chromium::demonstration::Frame;
use retrace_drive::chromium::demonstration::PageInput;
use retrace_drive::chromium::demonstration::PagePlace;
use retrace_protocol::dialog::Dialog;
use retrace_protocol::element::ElementInfo;
use serde_json::json;

use crate::demonstration::Demonstration;
use crate::demonstration::Noted;

fn dropdown() -> ElementInfo {
    serde_json::from_value(json!({
        "role": "combobox", "name": "Size", "text": "", "tag": "select", "selector": "#size",
        "box": {"x": 0.0, "y": 0.0, "width": 1.0, "height": 1.0}, "disabled": false,
        "focused": true, "editable": false, "receives_events": true
    }))
    .unwrap()
}

fn captured(input: PageInput, before: u8) -> CapturedInput {
    CapturedInput {
        input,
        before: Some(Arc::new(Frame {
            png: vec![before],
            at_ms: f64::from(before),
        })),
    }
}

fn place(path: &str) -> Option<PagePlace> {
    Some(PagePlace {
        path: path.to_owned(),
        title: path.to_owned(),
    })
}

fn click_on(element: Option<ElementInfo>, at: &str, before: u8) -> CapturedInput {
    captured(
        PageInput::Click {
            button: 0,
            count: 1,
            x: 100.0,
            y: 140.0,
            time: f64::from(before),
            element,
            focused: None,
            place: place(at),
        },
        before,
    )
}

fn key(key: &str, ctrl: bool, focused: Option<ElementInfo>, before: u8) -> CapturedInput {
    captured(
        PageInput::Key {
            key: key.to_owned(),
            ctrl,
            alt: false,
            shift: false,
            meta: false,
            time: f64::from(before),
            focused,
            place: place("/start"),
        },
        before,
    )
}

#[test]
fn the_click_and_keys_that_chose_an_option_become_one_select_option_step() {
    let mut demonstration = Demonstration::new();
    demonstration.add(click_on(Some(dropdown()), "/order", 1));
    demonstration.add(key("ArrowDown", false, Some(dropdown()), 2));
    demonstration.add(key("Enter", false, Some(dropdown()), 3));
    let noted = demonstration.add(captured(
        PageInput::Select {
            x: 120.0,
            y: 146.0,
            time: 4.0,
            label: "Medium".into(),
            element: Some(dropdown()),
            place: place("/order"),
        },
        4,
    ));
    let steps = demonstration.steps();
    assert_eq!(steps.len(), 1);
    assert_eq!(
        steps[0].input,
        json!({"action": "select_option", "coordinate": [100, 140], "text": "Medium"})
    );
    // The screen the person chose on: before the click that opened the list.
    assert_eq!(steps[0].before.as_ref().unwrap().png, vec![1]);
    assert_eq!(
        noted,
        Noted::Step {
            step: 1,
            summary: "select_option at (100, 140) 'Medium' on combobox 'Size'".into()
        }
    );
}

#[test]
fn a_dialog_belongs_to_the_step_that_opened_it() {
    let mut demonstration = Demonstration::new();
    demonstration.add(click_on(None, "/invoices", 1));
    let confirm = Dialog {
        kind: "confirm".into(),
        message: "Delete invoice 7?".into(),
        accepted: true,
        prompt_text: None,
    };
    let noted = demonstration.add(CapturedInput {
        input: PageInput::Dialog(confirm.clone()),
        before: None,
    });
    assert_eq!(demonstration.steps().len(), 1);
    assert_eq!(demonstration.steps()[0].dialogs, vec![confirm]);
    assert_eq!(
        noted,
        Noted::Step {
            step: 1,
            summary: "left_click at (100, 140), then confirm 'Delete invoice 7?' accepted".into()
        }
    );
}

#[test]
fn a_url_from_the_address_bar_is_a_step_that_checks_where_it_led() {
    let mut demonstration = Demonstration::new();
    demonstration.add(click_on(None, "/start", 1));
    demonstration.add(key("l", true, None, 2));
    let noted = demonstration.add(CapturedInput {
        input: PageInput::Navigation {
            url: "http://127.0.0.1:8080/next".into(),
        },
        before: None,
    });
    assert_eq!(
        noted,
        Noted::Step {
            step: 2,
            summary: "navigate to http://127.0.0.1:8080/next".into()
        }
    );
    demonstration.add(click_on(None, "/next", 3));
    let steps = demonstration.steps();
    // The Ctrl+L that went to the address bar is folded in.
    assert_eq!(steps.len(), 3);
    assert_eq!(steps[1].tool, retrace_protocol::tool_names::WEB_EXECUTOR);
    assert_eq!(
        steps[1].input,
        json!({"action": "OPEN_PAGE", "parameters": {"url": "http://127.0.0.1:8080/next"}})
    );
    assert_eq!(steps[1].page_after.as_ref().unwrap().path, "/next");
    assert_eq!(steps[0].page_after, None);
}
