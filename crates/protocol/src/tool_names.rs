//! Names of the tools a model sees, defined once so no crate retypes them.

/// The Anthropic computer-use tool (screenshot, clicks, typing, keys, scrolling).
pub const COMPUTER: &str = "computer";
/// The web executor tool: OPEN_PAGE, CLICK_ELEMENT, INPUT_TEXT, SAVE_VARIABLE, GET_DOM.
pub const WEB_EXECUTOR: &str = "web_executor";
/// Hands the conversation to another speaker (for example the cache executor).
pub const SWITCH_SPEAKER: &str = "switch_speaker";
/// Lists the trajectory cache files the model may replay (askui's name).
pub const RETRIEVE_TRAJECTORIES: &str = "retrieve_available_trajectories_tool";
/// Shows the metadata of one trajectory cache file.
pub const INSPECT_CACHE_METADATA: &str = "inspect_cache_metadata";
/// Replays a trajectory cache file through the cache executor (askui's name).
pub const EXECUTE_CACHED_TRAJECTORY: &str = "execute_cached_executions_tool";
/// Records whether a replay reached its goal (askui's name).
pub const VERIFY_CACHE_EXECUTION: &str = "verify_cache_execution";

/// Tools that steer the conversation rather than the UI. Recordings leave them out (replaying
/// `execute_cached_executions_tool {}` would only hand the run back to the model) and they have
/// no place in a trajectory's step numbering.
pub const CONTROL_TOOLS: [&str; 5] = [
    SWITCH_SPEAKER,
    RETRIEVE_TRAJECTORIES,
    INSPECT_CACHE_METADATA,
    EXECUTE_CACHED_TRAJECTORY,
    VERIFY_CACHE_EXECUTION,
];

/// Whether `name` is one of the [`CONTROL_TOOLS`].
pub fn is_control_tool(name: &str) -> bool {
    CONTROL_TOOLS.contains(&name)
}

/// The base name of a tool: askui appends `_tags_<tag>..._<uuid>` (or just `_<uuid>`) to
/// each tool instance's name; this strips the uuid part and the tags, the way askui matches
/// names when replaying (`_[0-9a-f]{8}-[0-9a-f]{4}.*$`, case-insensitive), and then drops a
/// `_tags_...` suffix. Names without a suffix come back unchanged.
///
/// ```
/// use retrace_protocol::tool_names::base_name;
/// assert_eq!(base_name("move_mouse_tags_computer_scaled_agent_os_15e1e729-bbda-4558-8f76"), "move_mouse");
/// assert_eq!(base_name("computer"), "computer");
/// ```
pub fn base_name(name: &str) -> &str {
    let without_uuid = strip_uuid_suffix(name);
    match without_uuid.find("_tags_") {
        Some(index) if index > 0 => &without_uuid[..index],
        _ => without_uuid,
    }
}

/// Strips askui's `_<8 hex>-<4 hex>...` instance suffix, if present.
fn strip_uuid_suffix(name: &str) -> &str {
    let bytes = name.as_bytes();
    let mut start = 0;
    while let Some(offset) = name[start..].find('_') {
        let index = start + offset;
        let rest = &bytes[index + 1..];
        let is_uuid_start = rest.len() >= 13
            && rest[..8].iter().all(u8::is_ascii_hexdigit)
            && rest[8] == b'-'
            && rest[9..13].iter().all(u8::is_ascii_hexdigit);
        if is_uuid_start {
            return &name[..index];
        }
        start = index + 1;
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_askui_suffixes() {
        assert_eq!(
            base_name("mouse_click_tags_computer_82f132ba-30d5-4b6f-8bcf-762cad264b33"),
            "mouse_click"
        );
        assert_eq!(
            base_name("screenshot_831bfe95-59f6-48b4-b54f"),
            "screenshot"
        );
        assert_eq!(base_name("keyboard_tap_ABCDEF12-0000"), "keyboard_tap");
        assert_eq!(base_name("left_click"), "left_click");
        assert_eq!(base_name("_tags_x"), "_tags_x");
        assert_eq!(base_name("my_tool_12345678"), "my_tool_12345678");
    }
}
