//! A one-line view of each step, for listings and `retrace cache show`: which tool, which
//! action, at which point, with which recorded hash.

use retrace_protocol::ToolUseBlock;
use retrace_protocol::tool_names::base_name;
use serde::Serialize;
use serde_json::Value;

use crate::params::parameters_in_value;

/// What one trajectory step does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StepSummary {
    /// The step's 1-based position in the trajectory (the number replay and every report
    /// give it).
    pub step: usize,
    /// The tool_use id.
    pub id: String,
    /// The tool name as written (askui's may carry a `_tags_..._<uuid>` suffix).
    pub tool: String,
    /// The tool name without askui's suffix (`move_mouse`).
    pub base_tool: String,
    /// The input's `action`, when it has one (`left_click`); otherwise its other fields in
    /// short form (`mouse_button=left`); empty for an empty input.
    pub action: String,
    /// The point the step acts on, read as askui reads it.
    pub point: Option<(i64, i64)>,
    /// The recorded hash of the region around the point.
    pub hash: Option<String>,
    /// `{{name}}` parameters the input uses.
    pub parameters: Vec<String>,
}

/// The summary of every step of `trajectory`.
pub fn summarize(trajectory: &[ToolUseBlock]) -> Vec<StepSummary> {
    trajectory
        .iter()
        .enumerate()
        .map(|(index, step)| StepSummary {
            step: index + 1,
            id: step.id.clone(),
            tool: step.name.clone(),
            base_tool: base_name(&step.name).to_owned(),
            action: action_text(&step.input),
            point: retrace_protocol::tool_input::action_point(&step.input),
            hash: step.visual_representation.clone(),
            parameters: parameters_in_value(&step.input).into_iter().collect(),
        })
        .collect()
}

/// The input's `action`, or its fields other than the point, as `key=value` pairs.
fn action_text(input: &Value) -> String {
    if let Some(action) = input.get("action").and_then(Value::as_str) {
        return action.to_owned();
    }
    let Some(map) = input.as_object() else {
        return String::new();
    };
    map.iter()
        .filter(|(key, _)| !matches!(key.as_str(), "coordinate" | "x" | "y" | "x1" | "y1"))
        .map(|(key, value)| match value {
            Value::String(text) if text.chars().count() > 40 => {
                let short: String = text.chars().take(37).collect();
                format!("{key}={short:?}...")
            }
            Value::String(text) => format!("{key}={text:?}"),
            other => format!("{key}={other}"),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn summarizes_askui_and_computer_steps() {
        let steps = vec![
            ToolUseBlock::new(
                "a",
                "move_mouse_tags_computer_15e1e729-bbda-4558-8f76",
                json!({"x": "85", "y": 20}),
            )
            .with_visual_representation("ffe72767ffffffff"),
            ToolUseBlock::new(
                "b",
                "computer",
                json!({"action": "left_click", "coordinate": [5, 6]}),
            ),
            ToolUseBlock::new(
                "c",
                "type_tags_computer_8cfeea24-01ca-4f07-a0cc-256904653eca",
                json!({"text": "{{term}}"}),
            ),
        ];
        let s = summarize(&steps);
        assert_eq!(
            (s[0].base_tool.as_str(), s[0].point, s[0].hash.as_deref()),
            ("move_mouse", Some((85, 20)), Some("ffe72767ffffffff"))
        );
        assert_eq!(s[0].action, "");
        assert_eq!(
            (s[1].action.as_str(), s[1].point),
            ("left_click", Some((5, 6)))
        );
        assert_eq!(
            (s[2].action.as_str(), s[2].parameters.clone()),
            ("text=\"{{term}}\"", vec!["term".to_owned()])
        );
    }
}
