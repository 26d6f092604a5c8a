#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::CacheMetadata;
use retrace_protocol::tool_names::base_name;
use serde_json::json;

fn computer(id: &str, input: Value) -> ToolUseBlock {
    ToolUseBlock::new(id, COMPUTER, input)
}

fn file(steps: Vec<ToolUseBlock>) -> CacheFile {
    let at = "2026-11-25T15:04:21.118520Z".parse().unwrap();
    CacheFile::new(CacheMetadata::new(at, Some("goal".into())), steps)
}

fn summary(export: &AskuiExport) -> Vec<(String, Value, Option<String>)> {
    export
        .file
        .trajectory
        .iter()
        .map(|s| {
            (
                base_name(&s.name).to_owned(),
                s.input.clone(),
                s.visual_representation.clone(),
            )
        })
        .collect()
}

#[test]
fn a_click_becomes_a_checked_move_and_a_click_after_a_screenshot() {
    let mut click = computer(
        "c",
        json!({"action": "double_click", "coordinate": [640, 311]}),
    );
    click.visual_representation = Some("8000800080000000".into());
    click
        .extra
        .insert(fields::ELEMENT.into(), json!({"role": "textbox"}));
    click
        .extra
        .insert(fields::AFTER_HASH.into(), json!("8000800080000001"));
    let mut typing = computer("t", json!({"action": "type", "text": "{{username}}"}));
    typing.extra.insert(
        fields::FOCUSED_AFTER.into(),
        json!({"value": "{{username}}"}),
    );
    let export = export_askui(&file(vec![click, typing])).unwrap();
    assert_eq!(
        summary(&export),
        vec![
            ("screenshot".into(), json!({}), None),
            (
                "move_mouse".into(),
                json!({"x": 640, "y": 311}),
                Some("8000800080000000".into())
            ),
            (
                "mouse_click".into(),
                json!({"mouse_button": "left", "number_of_clicks": 2}),
                None
            ),
            ("type".into(), json!({"text": "{{username}}"}), None),
        ]
    );
    let steps = &export.file.trajectory;
    assert_eq!(steps[1].extra[fields::ELEMENT], json!({"role": "textbox"}));
    assert!(!steps[1].extra.contains_key(fields::AFTER_HASH));
    assert!(steps[3].extra.contains_key(fields::FOCUSED_AFTER));
    assert_eq!(
        export.notes,
        vec!["left out `visual_representation_after` at steps 1".to_owned()]
    );
    // askui's instance names: tags, a uuid, at most 64 characters, one per tool.
    assert!(
        steps[1]
            .name
            .starts_with("move_mouse_tags_computer_scaled_agent_os_"),
        "{}",
        steps[1].name
    );
    assert_eq!(steps[1].name.len(), 64);
    assert!(steps[2].name.starts_with("mouse_click_tags_computer_"));
    let ids: std::collections::BTreeSet<&str> = steps.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids.len(), steps.len());
}

#[test]
fn keys_scrolls_drags_and_waits() {
    let steps = vec![
        computer("s", json!({"action": "screenshot"})),
        computer("k", json!({"action": "key", "text": "ctrl+Return"})),
        computer(
            "w",
            json!({"action": "scroll", "coordinate": [10, 20], "scroll_direction": "up", "scroll_amount": 3}),
        ),
        computer("p", json!({"action": "wait", "duration": 1})),
        computer(
            "d",
            json!({"action": "left_click_drag", "start_coordinate": [1, 2], "coordinate": [3, 4]}),
        ),
    ];
    let export = export_askui(&file(steps)).unwrap();
    let bases: Vec<(String, Value)> = summary(&export)
        .into_iter()
        .map(|(base, input, _)| (base, input))
        .collect();
    assert_eq!(
        bases,
        vec![
            ("screenshot".into(), json!({})),
            (
                "keyboard_tap".into(),
                json!({"key": "enter", "modifier_keys": ["control"]})
            ),
            ("move_mouse".into(), json!({"x": 10, "y": 20})),
            ("mouse_scroll".into(), json!({"dx": 0, "dy": -300})),
            ("move_mouse".into(), json!({"x": 1, "y": 2})),
            ("mouse_hold_down".into(), json!({"mouse_button": "left"})),
            ("move_mouse".into(), json!({"x": 3, "y": 4})),
            ("mouse_release".into(), json!({"mouse_button": "left"})),
        ]
    );
    assert_eq!(
        export.notes,
        vec!["left out `wait` (askui has no wait tool) at steps 4".to_owned()]
    );
}

#[test]
fn steps_askui_cannot_express_are_named() {
    let error = export_askui(&file(vec![
        computer("s", json!({"action": "screenshot"})),
        computer(
            "h",
            json!({"action": "hold_key", "text": "shift", "duration": 2}),
        ),
    ]))
    .unwrap_err();
    assert_eq!(error.step, 2);
    assert_eq!(
        error.to_string(),
        "step 2 (`hold_key`): askui 0.48's keyboard_tap cannot hold a key for a duration"
    );
    let error = export_askui(&file(vec![computer(
        "k",
        json!({"action": "key", "text": "Insert"}),
    )]))
    .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("step 1 (`key`): key `Insert`"),
        "{error}"
    );
}

#[test]
fn history_is_cleared_and_other_tools_are_kept() {
    let mut source = file(vec![ToolUseBlock::new("l", "locate", json!({}))]);
    source.metadata.execution_attempts = 4;
    source
        .metadata
        .extra
        .insert(fields::LAST_PASSED.into(), json!("2026-11-25T15:04:21Z"));
    let export = export_askui(&source).unwrap();
    assert_eq!(export.file.trajectory, source.trajectory);
    assert_eq!(export.file.metadata.execution_attempts, 0);
    assert!(!export.file.metadata.extra.contains_key(fields::LAST_PASSED));
    assert_eq!(export.notes.len(), 1, "{:?}", export.notes);
    // The same file exports to the same names.
    assert_eq!(export_askui(&source).unwrap(), export);
}

/// A `key` pressed `repeat` times is that many taps; a `zoom` only looks, so it is left out
/// like `cursor_position`; an input the catalogue's parser refuses is refused in its words.
#[test]
fn repeats_zooms_and_bad_inputs_follow_the_catalogue() {
    let export = export_askui(&file(vec![
        computer("k", json!({"action": "key", "text": "Tab", "repeat": 3})),
        computer("z", json!({"action": "zoom", "region": [0, 0, 10, 10]})),
    ]))
    .unwrap();
    let bases: Vec<String> = summary(&export)
        .into_iter()
        .map(|(base, ..)| base)
        .collect();
    assert_eq!(bases, ["keyboard_tap", "keyboard_tap", "keyboard_tap"]);
    let ids: Vec<&str> = export
        .file
        .trajectory
        .iter()
        .map(|s| s.id.as_str())
        .collect();
    assert_eq!(ids, ["k", "k_1", "k_2"], "ids stay unique");
    assert_eq!(
        export.notes,
        vec!["left out `zoom` (it only observes) at steps 2".to_owned()]
    );
    let error =
        export_askui(&file(vec![computer("m", json!({"action": "mouse_move"}))])).unwrap_err();
    assert_eq!(
        error.to_string(),
        "step 1 (`mouse_move`): `mouse_move` needs `coordinate`: [x, y]"
    );
}
