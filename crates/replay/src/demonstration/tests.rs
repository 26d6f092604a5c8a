#![allow(clippy::unwrap_used)]

use pretty_assertions::assert_eq;

use super::*;

fn field(name: &str, selector: &str, input_type: &str, value: &str) -> ElementInfo {
    serde_json::from_value(json!({
        "role": "textbox", "name": name, "text": "", "tag": "input", "selector": selector,
        "box": {"x": 0.0, "y": 0.0, "width": 1.0, "height": 1.0}, "disabled": false,
        "focused": true, "editable": true, "receives_events": true, "input_type": input_type,
        "value": value
    }))
    .unwrap()
}

fn frame(n: u8) -> Option<Arc<Frame>> {
    Some(Arc::new(Frame {
        png: vec![n],
        at_ms: f64::from(n),
    }))
}

fn key(key: &str, focused: Option<ElementInfo>, before: u8) -> CapturedInput {
    CapturedInput {
        input: PageInput::Key {
            key: key.to_owned(),
            ctrl: false,
            alt: false,
            shift: false,
            meta: false,
            time: f64::from(before),
            focused,
            place: None,
        },
        before: frame(before),
    }
}

fn click(x: f64, count: u32, before: u8) -> CapturedInput {
    CapturedInput {
        input: PageInput::Click {
            button: 0,
            count,
            x,
            y: 20.4,
            time: f64::from(before),
            element: None,
            focused: None,
            place: None,
        },
        before: frame(before),
    }
}

fn wheel(dy: f64, before: u8) -> CapturedInput {
    CapturedInput {
        input: PageInput::Wheel {
            x: 50.0,
            y: 60.0,
            dx: 0.0,
            dy,
            time: f64::from(before),
            element: None,
            focused: None,
            place: None,
        },
        before: frame(before),
    }
}

#[test]
fn keystrokes_fold_into_one_type_step_and_backspace_takes_one_back() {
    let mut demo = Demonstration::new();
    let pw = |value: &str| Some(field("Password", "#password", "password", value));
    for (n, (k, value)) in [
        ("p", ""),
        ("a", "p"),
        ("s", "pa"),
        ("w", "pas"),
        ("Backspace", "pasw"),
    ]
    .into_iter()
    .enumerate()
    {
        demo.add(key(k, pw(value), n as u8 + 1));
    }
    for (n, k) in "sword".chars().enumerate() {
        demo.add(key(&k.to_string(), pw("x"), n as u8 + 10));
    }
    let noted = demo.add(key("Tab", pw("password"), 20));
    assert_eq!(
        noted,
        Noted::Step {
            step: 2,
            summary: "key Tab on textbox 'Password'".to_owned()
        }
    );
    let steps = demo.finish(frame(30), None, None);
    assert_eq!(steps.len(), 2);
    assert_eq!(
        steps[0].input,
        json!({"action": "type", "text": "password"})
    );
    // The frames: before the first keystroke, and before the next input (the Tab).
    assert_eq!(steps[0].before.as_ref().unwrap().png, vec![1]);
    assert_eq!(steps[0].after.as_ref().unwrap().png, vec![20]);
    // The field it was typed into, without its value then, and with it after.
    assert_eq!(steps[0].element.as_ref().unwrap().value, None);
    let after = steps[0].focused_after.as_ref().unwrap();
    assert_eq!(after.value.as_ref().unwrap().expose(), "password");
    assert_eq!(steps[1].input, json!({"action": "key", "text": "Tab"}));
    assert_eq!(steps[1].after.as_ref().unwrap().png, vec![30]);
    // Summaries never carry typed text.
    assert!(
        !steps[0].summary().contains("password"),
        "{}",
        steps[0].summary()
    );
}

#[test]
fn a_second_click_at_the_same_point_makes_a_double_click() {
    let mut demo = Demonstration::new();
    demo.add(click(10.2, 1, 1));
    demo.add(click(11.0, 2, 2));
    demo.add(click(300.0, 1, 3));
    let steps = demo.finish(None, None, None);
    assert_eq!(
        steps.iter().map(|s| s.input.clone()).collect::<Vec<_>>(),
        vec![
            json!({"action": "double_click", "coordinate": [10, 20]}),
            json!({"action": "left_click", "coordinate": [300, 20]}),
        ]
    );
    assert_eq!(steps[0].before.as_ref().unwrap().png, vec![1]);
}

#[test]
fn wheel_turns_one_way_merge_and_pointer_moves_make_no_step() {
    let mut demo = Demonstration::new();
    let moved = demo.add(CapturedInput {
        input: PageInput::Pointer {
            x: 10.0,
            y: 20.0,
            screen_x: 10.0,
            screen_y: 163.0,
        },
        before: None,
    });
    assert_eq!(moved, Noted::Viewport { x: 0, y: 143 });
    let again = demo.add(CapturedInput {
        input: PageInput::Pointer {
            x: 20.0,
            y: 20.0,
            screen_x: 20.0,
            screen_y: 163.0,
        },
        before: None,
    });
    assert_eq!(again, Noted::Nothing, "the same place is said once");
    for n in 1..=3 {
        demo.add(wheel(120.0, n));
    }
    demo.add(wheel(-100.0, 4));
    let steps = demo.finish(None, None, None);
    assert_eq!(
        steps.iter().map(|s| s.input.clone()).collect::<Vec<_>>(),
        vec![
            json!({"action": "scroll", "coordinate": [50, 60], "scroll_direction": "down", "scroll_amount": 4}),
            json!({"action": "scroll", "coordinate": [50, 60], "scroll_direction": "up", "scroll_amount": 1}),
        ]
    );
}

#[test]
fn typing_deleted_entirely_leaves_no_step() {
    let mut demo = Demonstration::new();
    let user = || Some(field("Username", "#username", "text", ""));
    demo.add(key("x", user(), 1));
    assert_eq!(demo.add(key("Backspace", user(), 2)), Noted::Nothing);
    assert!(demo.finish(None, None, None).is_empty());
}

#[test]
fn a_step_after_which_the_person_acted_on_another_page_navigated_there() {
    let at = |path: &str| {
        Some(PagePlace {
            path: path.to_owned(),
            title: format!("{path} page"),
        })
    };
    let mut demo = Demonstration::new();
    let mut enter = key("Enter", None, 1);
    if let PageInput::Key { place, .. } = &mut enter.input {
        *place = at("/");
    }
    demo.add(enter);
    let mut scroll = wheel(100.0, 2);
    if let PageInput::Wheel { place, .. } = &mut scroll.input {
        *place = at("/dashboard");
    }
    demo.add(scroll);
    let steps = demo.finish(None, None, at("/dashboard").as_ref().map(location));
    assert_eq!(steps[0].page_after.as_ref().unwrap().path, "/dashboard");
    // The scroll stayed where it began.
    assert_eq!(steps[1].page_after, None);
}

#[test]
fn a_checkpoint_is_a_pointer_move_onto_the_element_checked() {
    let heading: ElementInfo = serde_json::from_value(json!({
        "role": "heading", "name": "Invoices", "text": "Invoices", "tag": "h2",
        "selector": "h2", "box": {"x": 0.0, "y": 0.0, "width": 1.0, "height": 1.0},
        "disabled": false, "focused": false, "editable": false, "receives_events": true
    }))
    .unwrap();
    let mut demo = Demonstration::new();
    let noted = demo.add(CapturedInput {
        input: PageInput::Checkpoint {
            x: 80.4,
            y: 203.0,
            time: 1.0,
            element: Some(heading),
            place: None,
        },
        before: frame(1),
    });
    assert_eq!(
        noted,
        Noted::Step {
            step: 1,
            summary: "checkpoint at (80, 203) on heading 'Invoices'".to_owned()
        }
    );
    let steps = demo.finish(frame(2), None, None);
    assert_eq!(
        steps[0].input,
        json!({"action": "mouse_move", "coordinate": [80, 203]})
    );
    assert_eq!(steps[0].before.as_ref().unwrap().png, vec![1]);
}

#[test]
fn a_secret_typed_before_never_shows_in_a_later_step_line() {
    let mut demo = Demonstration::new();
    let pw = || Some(field("Password", "#pw", "password", ""));
    for k in ["h", "u", "n", "t", "e", "r", "2"] {
        demo.add(key(k, pw(), 1));
    }
    // A label around the field is named with the field's value.
    let mut label = field("Password hunter2", "label", "text", "");
    label.role = "generic".to_owned();
    let noted = demo.add(CapturedInput {
        input: PageInput::Click {
            button: 0,
            count: 1,
            x: 5.0,
            y: 5.0,
            time: 2.0,
            element: Some(label),
            focused: None,
            place: None,
        },
        before: frame(2),
    });
    let Noted::Step { summary, .. } = noted else {
        panic!("{noted:?}")
    };
    assert_eq!(
        summary,
        "left_click at (5, 5) on generic 'Password {{password}}'"
    );
    // While it is typed, its own line names the field, never a part of the value.
    let mut demo = Demonstration::new();
    let noted = demo.add(key("r", pw(), 1));
    let Noted::Step { summary, .. } = noted else {
        panic!("{noted:?}")
    };
    assert_eq!(summary, "type into textbox 'Password'");
}

#[test]
fn a_button_released_away_from_where_it_went_down_is_a_drag() {
    let mut demo = Demonstration::new();
    let noted = demo.add(CapturedInput {
        input: PageInput::Drag {
            x: 10.0,
            y: 20.0,
            to_x: 200.4,
            to_y: 21.0,
            time: 1.0,
            focused: None,
            place: None,
        },
        before: frame(1),
    });
    assert_eq!(
        noted,
        Noted::Step {
            step: 1,
            summary: "left_click_drag at (200, 21)".to_owned()
        }
    );
    let steps = demo.finish(None, None, None);
    assert_eq!(
        steps[0].input,
        json!({"action": "left_click_drag", "start_coordinate": [10, 20], "coordinate": [200, 21]})
    );
}

#[test]
fn a_click_keeps_the_listener_types_a_click_dispatches_when_its_element_is_still_there() {
    let button = |name: &str| -> ElementInfo {
        serde_json::from_value(json!({
            "role": "button", "name": name, "text": name, "tag": "button", "selector": "#b",
            "box": {"x": 0.0, "y": 0.0, "width": 9.0, "height": 9.0}, "receives_events": true
        }))
        .unwrap()
    };
    let clicked = |element: ElementInfo| CapturedInput {
        input: PageInput::Click {
            button: 0,
            count: 1,
            x: 5.0,
            y: 5.0,
            time: 1.0,
            element: Some(element),
            focused: None,
            place: None,
        },
        before: frame(1),
    };
    let mut demonstration = Demonstration::new();
    demonstration.add(clicked(button("Menu")));
    demonstration.add(clicked(button("Menu")));
    // The menu's handler added an Escape key listener: not a click's, so not kept.
    let read = || {
        Some(vec![
            "click".to_owned(),
            "keydown".to_owned(),
            "submit".to_owned(),
        ])
    };
    demonstration.clicked_element_listeners(1, Some(&button("Menu")), read());
    // Something else is at the point now: nothing kept.
    demonstration.clicked_element_listeners(2, Some(&button("Item")), read());
    // The element is there but covered (by what the click opened): nothing kept.
    demonstration.add(clicked(button("Menu")));
    let mut covered = button("Menu");
    covered.receives_events = false;
    demonstration.clicked_element_listeners(3, Some(&covered), read());
    let listeners = |index: usize| {
        demonstration.steps()[index]
            .element
            .as_ref()
            .unwrap()
            .listeners
            .clone()
    };
    assert_eq!(listeners(0), Some(vec!["click".to_owned()]));
    assert_eq!(listeners(1), None);
    assert_eq!(listeners(2), None);
}
