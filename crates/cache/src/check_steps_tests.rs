#![allow(clippy::unwrap_used, clippy::expect_used)]

use pretty_assertions::assert_eq;
use retrace_protocol::ToolUseBlock;
use serde_json::Value;
use serde_json::json;

use crate::CacheFile;
use crate::Severity;
use crate::check;
use crate::fields;

/// A file recorded on a 1280x800 screen that declares `user`, holding `steps` after one good
/// click.
fn recorded(steps: Vec<ToolUseBlock>) -> CacheFile {
    let at = crate::parse_timestamp("2026-01-01T00:00:00Z").unwrap();
    let mut metadata = crate::CacheMetadata::new(at, Some("log in as {{user}}".into()));
    metadata
        .extra
        .insert(fields::DISPLAY_SIZE.into(), json!([1280, 800]));
    let mut all = vec![ToolUseBlock::new(
        "first",
        "computer",
        json!({"action": "left_click", "coordinate": [10, 20]}),
    )];
    all.extend(steps);
    let mut file = CacheFile::new(metadata, all);
    file.cache_parameters
        .insert("user".into(), "Parameter for user".into());
    file
}

fn computer(input: Value) -> ToolUseBlock {
    ToolUseBlock::new("second", "computer", input)
}

fn problems(file: &CacheFile) -> Vec<String> {
    check(file).iter().map(ToString::to_string).collect()
}

#[test]
fn a_good_step_has_no_problem() {
    let file = recorded(vec![
        computer(json!({"action": "type", "text": "{{user}}"})),
        computer(
            json!({"action": "left_click_drag", "start_coordinate": [0, 0], "coordinate": [1279, 799]}),
        ),
        computer(
            json!({"action": "scroll", "coordinate": [5, 5], "scroll_direction": "down", "scroll_amount": 3}),
        ),
        computer(json!({"action": "key", "text": "Tab", "repeat": 3})),
        computer(json!({"action": "zoom", "region": [0, 0, 640, 400]})),
        ToolUseBlock::new(
            "askui",
            "move_mouse_tags_computer_1eaf8ac4-d6b7-4b56-ae9e",
            json!({"x": 71, "y": 567}),
        ),
    ]);
    let file = CacheFile {
        trajectory: file
            .trajectory
            .into_iter()
            .enumerate()
            .map(|(i, mut step)| {
                step.id = format!("id{i}");
                step
            })
            .collect(),
        ..file
    };
    assert_eq!(problems(&file), Vec::<String>::new());
}

/// Each defect in one step, and the one line `cache check` prints for it (every one of them
/// an error: replay refuses the file).
#[test]
fn every_defect_names_its_step_and_field() {
    let cases: Vec<(ToolUseBlock, &str)> = vec![
        (
            computer(json!({"action": "teleport", "coordinate": [1, 2]})),
            "step 2: trajectory[1].input.action: unknown action `teleport`; valid actions: screenshot, left_click",
        ),
        (
            computer(json!({"coordinate": [1, 2]})),
            "step 2: trajectory[1].input.action: missing `action`; valid actions:",
        ),
        (
            computer(json!({"action": 7})),
            "step 2: trajectory[1].input.action: `action` must be a string, got 7",
        ),
        (
            computer(json!({"action": "left_click", "cordinate": [1, 2]})),
            "step 2: trajectory[1].input.cordinate: not a field of the computer tool",
        ),
        (
            computer(json!({"action": "mouse_move"})),
            "step 2: trajectory[1].input.coordinate: `mouse_move` needs `coordinate`: [x, y]",
        ),
        (
            computer(json!({"action": "left_click", "coordinate": "640,311"})),
            "step 2: trajectory[1].input.coordinate: `coordinate` of `left_click` must be [x, y] with two non-negative integers, got \"640,311\"",
        ),
        (
            computer(json!({"action": "left_click", "coordinate": [-5, 99]})),
            "step 2: trajectory[1].input.coordinate: `coordinate` of `left_click` must be [x, y] with two non-negative integers, got [-5,99]",
        ),
        (
            computer(json!({"action": "left_click", "coordinate": [5, 99999]})),
            "step 2: trajectory[1].input.coordinate: (5, 99999) is outside the recorded screen of 1280x800 (metadata.display_size)",
        ),
        (
            computer(
                json!({"action": "left_click_drag", "start_coordinate": [1280, 0], "coordinate": [1, 1]}),
            ),
            "step 2: trajectory[1].input.start_coordinate: (1280, 0) is outside the recorded screen",
        ),
        (
            computer(json!({"action": "type"})),
            "step 2: trajectory[1].input.text: `type` needs `text`",
        ),
        (
            computer(json!({"action": "key", "text": ["Return"]})),
            "step 2: trajectory[1].input.text: `text` of `key` must be a string, got [\"Return\"]",
        ),
        (
            computer(
                json!({"action": "scroll", "scroll_direction": "sideways", "scroll_amount": 1}),
            ),
            "step 2: trajectory[1].input.scroll_direction: `scroll` needs `scroll_direction`: one of up, down, left, right (got \"sideways\")",
        ),
        (
            computer(json!({"action": "type", "text": "{{unclosed"})),
            "step 2: trajectory[1].input.text: holds a `{{` or `}}` that is not a placeholder",
        ),
        (
            computer(json!({"action": "type", "text": "{{ user }}"})),
            "step 2: trajectory[1].input.text: holds a `{{` or `}}` that is not a placeholder",
        ),
        (
            computer(json!({"action": "type", "text": "{{nobody}}"})),
            "step 2: trajectory[1].input.text: uses the placeholder {{nobody}}, which cache_parameters does not declare",
        ),
        (
            computer(json!({"action": "left_click", "coordinate": [1, 2]}))
                .with_visual_representation("zz"),
            "step 2: trajectory[1].visual_representation: expected 16 hexadecimal digits (an 8x8 hash; 64 for a 16x16 one), got \"zz\" (2 characters)",
        ),
        (
            computer(json!({"action": "left_click", "coordinate": [1, 2]}))
                .with_visual_representation("00ff00ff00ff00fg"),
            "step 2: trajectory[1].visual_representation: expected 16 hexadecimal digits",
        ),
        (
            {
                let mut step = computer(json!({"action": "left_click", "coordinate": [1, 2]}));
                step.extra.insert(fields::AFTER_HASH.into(), json!(12));
                step
            },
            "step 2: trajectory[1].visual_representation_after: expected a hash (a string of hexadecimal digits), got 12",
        ),
        (
            {
                let mut step = computer(json!({"action": "left_click", "coordinate": [1, 2]}));
                step.extra
                    .insert(fields::ELEMENT.into(), json!({"role": "button"}));
                step
            },
            "step 2: trajectory[1].element: not an element description: missing field `name`",
        ),
        (
            ToolUseBlock::new("first", "computer", json!({"action": "screenshot"})),
            "step 2: trajectory[1].id: id \"first\" is also used by step 1",
        ),
        (
            ToolUseBlock::new("second", "", json!({})),
            "step 2: trajectory[1].name: the tool name is empty",
        ),
        (
            ToolUseBlock::new(
                "second",
                "move_mouse_tags_computer_1eaf8ac4-d6b7-4b56-ae9e",
                json!({"x": "far", "y": 1}),
            ),
            "step 2: trajectory[1].input.x: `move_mouse` needs `x` and `y` (integers)",
        ),
        (
            ToolUseBlock::new(
                "second",
                "move_mouse_tags_computer_1eaf8ac4-d6b7-4b56-ae9e",
                json!({"x": 4000, "y": 1}),
            ),
            "step 2: trajectory[1].input.x: (4000, 1) is outside the recorded screen of 1280x800",
        ),
        (
            ToolUseBlock::new(
                "second",
                "keyboard_tap_tags_computer_c57319a9-2328-4550-ab38",
                json!({"keys": "end"}),
            ),
            "step 2: trajectory[1].input.key: `keyboard_tap` needs `key` (a string), got nothing",
        ),
    ];
    for (step, expected) in cases {
        let file = recorded(vec![step]);
        let found = check(&file);
        assert_eq!(found.len(), 1, "{expected}: {found:#?}");
        assert!(
            found[0].to_string().starts_with(expected),
            "{}\nwanted {expected}",
            found[0]
        );
        assert_eq!(found[0].severity, Severity::Error, "{expected}");
        assert_eq!(found[0].step, Some(2));
        let refused = crate::refuse(std::path::Path::new("f.json"), &file).unwrap_err();
        assert_eq!(refused.to_string(), format!("f.json: {}", found[0]));
    }
}

#[test]
fn points_are_not_checked_against_a_screen_that_was_not_recorded() {
    let mut file = recorded(vec![computer(
        json!({"action": "left_click", "coordinate": [5000, 5000]}),
    )]);
    file.metadata.extra.remove(fields::DISPLAY_SIZE);
    assert_eq!(problems(&file), Vec::<String>::new());
}

#[test]
fn warnings_do_not_refuse_a_file() {
    let mut file = recorded(vec![]);
    file.metadata.is_valid = false;
    assert_eq!(check(&file)[0].severity, Severity::Warning);
    assert!(crate::refuse(std::path::Path::new("f.json"), &file).is_ok());
}
