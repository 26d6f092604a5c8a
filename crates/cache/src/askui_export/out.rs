//! The askui steps being written: askui's tool names (with their instance tags) and the
//! steps, notes and name seed of one export.

use std::collections::BTreeMap;

use retrace_protocol::ToolUseBlock;
use retrace_protocol::computer_actions::askui;
use retrace_protocol::stable_hash::fnv1a64_continue;
use serde_json::Value;
use serde_json::json;

use crate::fields;

/// askui's wheel step: retrace's replay of `mouse_scroll` turns 100 pixels into one notch.
pub const PIXELS_PER_NOTCH: i64 = 100;

/// One of askui's computer tools: its base name and the tags in its instance name.
#[derive(Debug, Clone, Copy)]
pub(super) struct AskuiTool {
    base: &'static str,
    tags: &'static [&'static str],
}

pub(super) const SCREENSHOT: AskuiTool = AskuiTool {
    base: askui::SCREENSHOT,
    tags: &["computer", "scaled_agent_os"],
};
pub(super) const MOVE_MOUSE: AskuiTool = AskuiTool {
    base: askui::MOVE_MOUSE,
    tags: &["computer", "scaled_agent_os"],
};
pub(super) const MOUSE_CLICK: AskuiTool = AskuiTool {
    base: askui::MOUSE_CLICK,
    tags: &["computer"],
};
pub(super) const MOUSE_HOLD_DOWN: AskuiTool = AskuiTool {
    base: askui::MOUSE_HOLD_DOWN,
    tags: &["computer"],
};
pub(super) const MOUSE_RELEASE: AskuiTool = AskuiTool {
    base: askui::MOUSE_RELEASE,
    tags: &["computer"],
};
pub(super) const MOUSE_SCROLL: AskuiTool = AskuiTool {
    base: askui::MOUSE_SCROLL,
    tags: &["computer", "scaled_agent_os"],
};
pub(super) const TYPE: AskuiTool = AskuiTool {
    base: askui::TYPE,
    tags: &["computer"],
};
pub(super) const KEYBOARD_TAP: AskuiTool = AskuiTool {
    base: askui::KEYBOARD_TAP,
    tags: &["computer"],
};

/// The steps written so far.
pub(super) struct Out {
    pub(super) steps: Vec<ToolUseBlock>,
    /// Makes the tool-name uuids (stable for one file, so exports are reproducible).
    pub(super) seed: u64,
    /// What was left out (`wait steps`) to the steps it was left out at (`3, 7`).
    pub(super) dropped: BTreeMap<String, String>,
}

impl Out {
    /// askui's instance name: `<base>_tags_<tags>_<uuid>`, cut to 64 characters.
    pub(super) fn name(&self, tool: AskuiTool) -> String {
        let a = fnv1a64_continue(self.seed, tool.base.as_bytes());
        let b = fnv1a64_continue(a, b"retrace");
        let uuid = format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            0x8000 | ((b >> 48) & 0x3fff),
            b & 0xffff_ffff_ffff
        );
        let mut name = format!("{}_tags_{}_{uuid}", tool.base, tool.tags.join("_"));
        name.truncate(64);
        name
    }

    pub(super) fn push(&mut self, tool: AskuiTool, id: String, input: Value) -> &mut ToolUseBlock {
        let name = self.name(tool);
        self.steps.push(ToolUseBlock::new(id, name, input));
        let last = self.steps.len() - 1;
        &mut self.steps[last]
    }

    pub(super) fn drop_note(&mut self, what: &str, step: usize) {
        let steps = self.dropped.entry(what.to_owned()).or_default();
        if !steps.is_empty() {
            steps.push_str(", ");
        }
        steps.push_str(&step.to_string());
    }

    /// `move_mouse` to `point`, carrying `source`'s hash and before-action fields; preceded
    /// by a screenshot when it has a hash and the step before is not a screenshot.
    pub(super) fn move_to(
        &mut self,
        source: &ToolUseBlock,
        point: (i64, i64),
        checked: bool,
        number: usize,
    ) {
        let hash = source.visual_representation.clone().filter(|_| checked);
        let after_screenshot = self
            .steps
            .last()
            .is_some_and(|step| step.name.starts_with("screenshot_"));
        if hash.is_some() && !after_screenshot {
            self.push(SCREENSHOT, format!("{}_screenshot", source.id), json!({}));
        }
        let step = self.push(
            MOVE_MOUSE,
            format!("{}_move", source.id),
            json!({"x": point.0, "y": point.1}),
        );
        step.visual_representation = hash;
        if checked {
            for (key, value) in &source.extra {
                if !AFTER_FIELDS.contains(&key.as_str()) {
                    step.extra.insert(key.clone(), value.clone());
                }
            }
            for field in AFTER_FIELDS {
                if source.extra.get(field).is_some_and(|v| !v.is_null()) {
                    self.drop_note(&format!("`{field}`"), number);
                }
            }
        }
    }
}

/// Fields about the state after a step acts (and the dialogs acting opens), left out of its
/// mouse move (which acts first).
const AFTER_FIELDS: [&str; 6] = [
    fields::DIALOGS,
    fields::AFTER_HASH,
    fields::RECENTRED_AFTER,
    fields::EXPECTED_CROP_AFTER,
    fields::ELEMENT_AFTER,
    fields::PAGE_AFTER,
];
