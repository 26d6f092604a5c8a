#![allow(clippy::unwrap_used, clippy::expect_used)]
use retrace_protocol::element::BoundingBox;
use retrace_protocol::events::ChangeKind;
use retrace_protocol::events::DifferenceKind;

use super::*;

const SIZE: (u32, u32) = (60, 40);

/// A window: light grey, a dark 10x6 "label" at (20, 10), and a dark caret column at
/// `caret` inside the field at (5, 25, 50x10) when given.
fn window(background: [u8; 3], caret: Option<u32>) -> Frame {
    let mut rgba = Vec::new();
    for y in 0..SIZE.1 {
        for x in 0..SIZE.0 {
            let label = (20..30).contains(&x) && (10..16).contains(&y);
            let in_caret = caret.is_some_and(|c| x == c && (26..34).contains(&y));
            let rgb = if label || in_caret {
                [20, 20, 20]
            } else {
                background
            };
            rgba.extend_from_slice(&[rgb[0], rgb[1], rgb[2], 255]);
        }
    }
    Frame {
        width: SIZE.0,
        height: SIZE.1,
        rgba,
    }
}

fn png(frame: &Frame) -> Vec<u8> {
    retrace_vision::encode_png_rgba(frame.width, frame.height, &frame.rgba).unwrap()
}

fn element(role: &str, name: &str, bounds: (f64, f64, f64, f64)) -> ElementInfo {
    ElementInfo {
        role: role.to_owned(),
        name: name.to_owned(),
        text: String::new(),
        tag: String::new(),
        selector: String::new(),
        bounds: BoundingBox {
            x: bounds.0,
            y: bounds.1,
            width: bounds.2,
            height: bounds.3,
        },
        checked: None,
        expanded: None,
        selected: None,
        pressed: None,
        disabled: false,
        focused: false,
        editable: false,
        input_type: None,
        value: None,
        receives_events: true,
        blocked_reason: None,
        listeners: None,
        text_style: None,
    }
}

/// The window's elements: its frame, a button named `button`, a focused field.
fn elements(button: &str) -> Vec<ElementInfo> {
    let mut field = element("text", "", (5.0, 25.0, 50.0, 10.0));
    field.focused = true;
    field.editable = true;
    vec![
        element("frame", "Probe", (0.0, 0.0, 60.0, 40.0)),
        element("push button", button, (18.0, 8.0, 14.0, 10.0)),
        field,
    ]
}

fn shot(frame: &Frame, button: &str) -> WindowShot {
    WindowShot {
        png: png(frame),
        elements: Some(elements(button)),
    }
}

fn check(dir: &std::path::Path, thresholds: Thresholds) -> WindowCheck {
    WindowCheck {
        window: "Probe".to_owned(),
        flow: None,
        thresholds,
        out_dir: dir.to_owned(),
        rerun: String::new(),
    }
}

#[test]
fn the_same_window_passes_and_a_blinking_caret_in_the_focused_field_is_no_difference() {
    let dir = tempfile::tempdir().unwrap();
    let check = check(dir.path(), Thresholds::default());
    let light = [240, 240, 240];
    let (attempt, size) = compare_shots(
        &check,
        &shot(&window(light, None), "Save"),
        &shot(&window(light, None), "Save"),
    );
    assert_eq!((attempt.verdict, size), (Verdict::Pass, SIZE));
    let (attempt, _) = compare_shots(
        &check,
        &shot(&window(light, Some(40)), "Save"),
        &shot(&window(light, None), "Save"),
    );
    assert_eq!(attempt.verdict, Verdict::Pass, "{:?}", attempt.differences);
    let result = dir.path().join("window_Probe@60x40/attempt-1/result.json");
    let result: serde_json::Value =
        serde_json::from_slice(&std::fs::read(result).unwrap()).unwrap();
    assert_eq!(result["carets_ignored"].as_array().unwrap().len(), 1);

    // Not the focused field's: a column elsewhere is a difference.
    let mut unfocused = shot(&window(light, None), "Save");
    for element in unfocused.elements.as_mut().unwrap() {
        element.focused = false;
    }
    let mut caret = shot(&window(light, Some(40)), "Save");
    caret.elements = unfocused.elements.clone();
    let (attempt, _) = compare_shots(&check, &caret, &unfocused);
    assert_eq!(attempt.verdict, Verdict::Fail);
}

#[test]
fn a_renamed_button_fails_by_its_accessible_name_even_under_the_pixel_tolerance() {
    let dir = tempfile::tempdir().unwrap();
    let tolerant = Thresholds {
        max_diff_pixels: 10_000,
        ..Thresholds::default()
    };
    let check = check(dir.path(), tolerant);
    let mut renamed = window([240, 240, 240], None);
    renamed.rgba[(12 * SIZE.0 as usize + 25) * 4] = 200;
    let (attempt, _) = compare_shots(
        &check,
        &shot(&window([240, 240, 240], None), "Save"),
        &shot(&renamed, "Sava"),
    );
    assert_eq!(attempt.verdict, Verdict::Fail);
    let found = &attempt.differences;
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].change, Some(ChangeKind::Text), "{found:?}");
    assert!(
        found[0]
            .description
            .contains("push button \"Save\" is now named \"Sava\""),
        "{found:?}"
    );
}

#[test]
fn a_dark_theme_fails_as_a_changed_background() {
    let dir = tempfile::tempdir().unwrap();
    let check = check(dir.path(), Thresholds::default());
    let (attempt, _) = compare_shots(
        &check,
        &shot(&window([240, 240, 240], None), "Save"),
        &shot(&window([50, 50, 50], None), "Save"),
    );
    assert_eq!(attempt.verdict, Verdict::Fail);
    let colour = attempt
        .differences
        .iter()
        .find(|d| d.change == Some(ChangeKind::Colour))
        .unwrap_or_else(|| panic!("{:?}", attempt.differences));
    assert_eq!(colour.kind, DifferenceKind::Styling);
    assert!(
        colour
            .description
            .contains("from rgb(240, 240, 240) to rgb(50, 50, 50)"),
        "{colour:?}"
    );
}
