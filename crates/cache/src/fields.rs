//! The names of the fields retrace adds to askui's cache format, defined once.
//!
//! askui ignores fields it does not know (and drops them when it rewrites a file); every
//! crate that reads or writes one of these uses the constant here, never the string.

use serde_json::Value;

use crate::model::CacheMetadata;

/// Step field: the after-action hash, the region around the action point in the screenshot
/// the action returned, so a replay can check the action had its effect.
pub const AFTER_HASH: &str = "visual_representation_after";

/// Step field: `{"hash": ..., "at": [x, y]}`, the after-action region re-centred on the
/// nearest content because the region around the action point was blank (a check of a blank
/// region detects nothing): its hash and its centre. Stored in place of [`AFTER_HASH`], so a
/// reader that does not know it checks no effect for the step rather than the wrong region.
pub const RECENTRED_AFTER: &str = "visual_representation_after_recentred";

/// Step field: where a step that started a navigation led, `{"path": ..., "title": ...}` (the
/// document's URL path and title after the action, stored when either changed), so replay
/// checks the navigation rather than pixels.
pub const PAGE_AFTER: &str = "page_after";

/// Step field: the JavaScript dialogs the step opened and how they were answered, in order
/// (`[{"kind": "confirm", "message": ..., "accepted": true}]`;
/// `retrace_protocol::dialog::Dialog`), so replay answers them alike and fails on any other.
pub const DIALOGS: &str = "dialogs";

/// Step field: what the browser said about the element the step acts on before acting (role,
/// accessible name, state; `retrace_protocol::element::ElementInfo`): the one at the action
/// point, or, for typing and keys, the one with the focus.
pub const ELEMENT: &str = "element";

/// Step field: the element at the action point after acting (its state: checked, expanded,
/// selected, pressed), so replay can check a click had its effect.
pub const ELEMENT_AFTER: &str = "element_after";

/// Step field: the element with the keyboard focus after a typing step, with its value
/// (parameter values as `{{name}}` placeholders), so replay can check the text arrived.
pub const FOCUSED_AFTER: &str = "focused_after";

/// Step field: the crop of the region around the action point before acting (a small PNG,
/// base64), so a report can show what was expected on any machine.
pub const EXPECTED_CROP: &str = "visual_crop";

/// Step field: the crop of the after-action region ([`AFTER_HASH`], or the re-centred one of
/// [`RECENTRED_AFTER`]) in the screenshot the action returned (a small PNG, base64), so a
/// report of a missing effect shows what was expected.
pub const EXPECTED_CROP_AFTER: &str = "visual_crop_after";

/// Metadata field: `[width, height]` of the screen the trajectory was recorded on.
pub const DISPLAY_SIZE: &str = "display_size";

/// Metadata field: `[width, height]` of the browser viewport when it differed from
/// [`DISPLAY_SIZE`] (the model saw the screen scaled to the display size).
pub const VIEWPORT: &str = "viewport";

/// Metadata field: the desktop target a trajectory was recorded on, `{"kind": "desktop",
/// "display", "display_size": [w, h], "window", "window_origin": [x, y], "app"}`: the window
/// a replay targets and anchors where it was, and the application command it may start.
pub const TARGET: &str = "target";

/// Metadata field: how the trajectory was made, when no model made it: `"demonstration"`
/// for a person's actions recorded by `retrace record` (no model, no tokens).
pub const RECORDED_FROM: &str = "recorded_from";

/// The [`RECORDED_FROM`] value of a recorded demonstration.
pub const DEMONSTRATION: &str = "demonstration";

/// Metadata field: the model's last verdict on a replay, `{timestamp, success, notes}`.
pub const LAST_VERIFICATION: &str = "last_verification";

/// Metadata field: when a replay last passed (ran to its end, or was judged successful), in
/// askui's timestamp format. askui's `last_executed_at` is set by every attempt, passed or
/// not; this is retrace's own success time and drives its staleness check
/// ([`crate::validators::StaleCache`]). askui drops it when it rewrites a file.
pub const LAST_PASSED: &str = "last_passed_at";

/// When a replay of the file last passed ([`LAST_PASSED`]), when the field holds a timestamp.
pub fn last_passed_at(metadata: &CacheMetadata) -> Option<jiff::Timestamp> {
    metadata
        .extra
        .get(LAST_PASSED)?
        .as_str()
        .and_then(crate::timestamp::parse_timestamp)
}

/// The screen size a file was recorded at ([`DISPLAY_SIZE`]), when it says and the value is
/// two positive integers.
pub fn display_size(metadata: &CacheMetadata) -> Option<(u32, u32)> {
    size_field(metadata, DISPLAY_SIZE)
}

/// The viewport a file was recorded at ([`VIEWPORT`]), when it says; else its display size.
pub fn viewport(metadata: &CacheMetadata) -> Option<(u32, u32)> {
    size_field(metadata, VIEWPORT).or_else(|| display_size(metadata))
}

fn size_field(metadata: &CacheMetadata, field: &str) -> Option<(u32, u32)> {
    let size = metadata.extra.get(field)?.as_array()?;
    let dimension = |value: Option<&Value>| {
        value
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| *n > 0)
    };
    Some((dimension(size.first())?, dimension(size.get(1))?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_size_reads_two_positive_integers_only() {
        let mut metadata = CacheMetadata::new(jiff::Timestamp::UNIX_EPOCH, None);
        assert_eq!(display_size(&metadata), None);
        metadata
            .extra
            .insert(DISPLAY_SIZE.into(), serde_json::json!([1280, 800]));
        assert_eq!(display_size(&metadata), Some((1280, 800)));
        for bad in [
            serde_json::json!([0, 800]),
            serde_json::json!(["1280", 800]),
            serde_json::json!([1280]),
        ] {
            metadata.extra.insert(DISPLAY_SIZE.into(), bad.clone());
            assert_eq!(display_size(&metadata), None, "{bad}");
        }
    }
}
