//! The computer toolset's encoding (`computer_toolset_20260801`) at the API edge.
//!
//! retrace keeps one shape in its histories and trajectories: a `tool_use` named `computer`
//! whose `input.action` says what to do (askui reads that shape). The toolset form names each
//! `tool_use` by its action and adds `toolset_name: "computer"`, and every `tool_result`
//! answering one echoes `toolset_name` (`anthropic` 2.14.0: `types/tool_use_block_param.py`,
//! `types/tool_result_block_param.py`; `lib/tools/_toolsets/_runnable.py`). [`decode_block`]
//! turns an answer's blocks into retrace's shape; [`encode_message`] turns a history message
//! back into the toolset's.

use std::collections::HashSet;

use retrace_protocol::tool_names::COMPUTER;
use serde_json::Map;
use serde_json::Value;

/// The toolset family name of the computer tools.
pub const FAMILY: &str = "computer";

/// A content block of an answer in retrace's shape: a computer toolset member call becomes a
/// `computer` call with the member's name as its `action`. Other blocks are unchanged.
pub fn decode_block(mut block: Value) -> Value {
    let Some(object) = block.as_object_mut() else {
        return block;
    };
    let is_member = object.get("type").and_then(Value::as_str) == Some("tool_use")
        && object.get("toolset_name").and_then(Value::as_str) == Some(FAMILY);
    if !is_member {
        return block;
    }
    object.remove("toolset_name");
    let action = object
        .insert("name".into(), Value::String(COMPUTER.into()))
        .unwrap_or(Value::Null);
    let mut input = match object.remove("input") {
        Some(Value::Object(input)) => input,
        _ => Map::new(),
    };
    let mut with_action = Map::with_capacity(input.len() + 1);
    with_action.insert("action".into(), action);
    with_action.append(&mut input);
    object.insert("input".into(), Value::Object(with_action));
    block
}

/// The ids of the `computer` calls among `messages` (API JSON), whose results must carry
/// `toolset_name`.
pub fn computer_call_ids<'a>(messages: impl IntoIterator<Item = &'a Value>) -> HashSet<String> {
    messages
        .into_iter()
        .filter_map(|message| message.get("content").and_then(Value::as_array))
        .flatten()
        .filter(|block| is_computer_call(block))
        .filter_map(|block| block.get("id").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

fn is_computer_call(block: &Value) -> bool {
    block.get("type").and_then(Value::as_str) == Some("tool_use")
        && block.get("name").and_then(Value::as_str) == Some(COMPUTER)
}

/// Rewrites one message (API JSON) into the toolset form: each `computer` call is named by
/// its action with `toolset_name`, and each result answering one of `computer_ids` carries
/// `toolset_name`.
pub fn encode_message(message: &mut Value, computer_ids: &HashSet<String>) {
    let Some(blocks) = message.get_mut("content").and_then(Value::as_array_mut) else {
        return;
    };
    for block in blocks {
        if is_computer_call(block) {
            encode_call(block);
        } else if block.get("type").and_then(Value::as_str) == Some("tool_result")
            && block
                .get("tool_use_id")
                .and_then(Value::as_str)
                .is_some_and(|id| computer_ids.contains(id))
            && let Some(object) = block.as_object_mut()
        {
            object.insert("toolset_name".into(), Value::String(FAMILY.into()));
        }
    }
}

fn encode_call(block: &mut Value) {
    let Some(object) = block.as_object_mut() else {
        return;
    };
    let Some(Value::Object(input)) = object.get_mut("input") else {
        return;
    };
    let Some(Value::String(action)) = input.remove("action") else {
        return;
    };
    object.insert("name".into(), Value::String(action));
    object.insert("toolset_name".into(), Value::String(FAMILY.into()));
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_member_call_becomes_a_computer_call_and_back() {
        let answered = json!({
            "type": "tool_use", "id": "toolu_1", "name": "left_click",
            "toolset_name": "computer", "input": {"coordinate": [10, 20]},
            "caller": {"type": "direct"}
        });
        let decoded = decode_block(answered);
        assert_eq!(decoded["name"], "computer");
        assert_eq!(
            decoded["input"],
            json!({"action": "left_click", "coordinate": [10, 20]})
        );
        assert!(decoded.get("toolset_name").is_none());

        let mut assistant = json!({"role": "assistant", "content": [decoded]});
        let mut user = json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"},
            {"type": "tool_result", "tool_use_id": "toolu_other", "content": "ok"}
        ]});
        let ids = computer_call_ids([&assistant]);
        encode_message(&mut assistant, &ids);
        encode_message(&mut user, &ids);
        let call = &assistant["content"][0];
        assert_eq!(call["name"], "left_click");
        assert_eq!(call["toolset_name"], "computer");
        assert_eq!(call["input"], json!({"coordinate": [10, 20]}));
        assert_eq!(user["content"][0]["toolset_name"], "computer");
        assert!(user["content"][1].get("toolset_name").is_none());
    }

    #[test]
    fn other_blocks_and_custom_tools_are_left_alone() {
        let custom = json!({"type": "tool_use", "id": "t", "name": "web_executor", "input": {}});
        assert_eq!(decode_block(custom.clone()), custom);
        let text = json!({"type": "text", "text": "hi"});
        assert_eq!(decode_block(text.clone()), text);
        let mut message = json!({"role": "assistant", "content": [custom]});
        encode_message(&mut message, &HashSet::new());
        assert_eq!(message["content"][0], custom);
    }
}
