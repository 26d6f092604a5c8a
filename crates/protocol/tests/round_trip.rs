//! Messages round-trip the Anthropic format; the API view never carries cache-only fields.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use pretty_assertions::assert_eq;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::Role;
use retrace_protocol::api::message_to_api_json;
use serde_json::json;

fn round_trip(value: serde_json::Value) -> serde_json::Value {
    let message: Message = serde_json::from_value(value).unwrap();
    serde_json::to_value(&message).unwrap()
}

#[test]
fn every_block_type_round_trips() {
    let value = json!({
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "look first", "signature": "sig"},
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "text", "text": "Clicking.", "cache_control": {"type": "ephemeral"}},
            {"type": "tool_use", "id": "toolu_1", "name": "computer",
             "input": {"action": "left_click", "coordinate": [10, 20]},
             "visual_representation": "ffffff0800ffffff", "cache_control": null, "extra_content": null},
            {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"q": "x"}}
        ]
    });
    assert_eq!(round_trip(value.clone()), value);
}

#[test]
fn tool_results_with_string_or_blocks_round_trip() {
    let value = json!({
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "done", "is_error": true},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": [
                {"type": "text", "text": "after"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
                {"type": "image", "source": {"type": "url", "url": "https://example.invalid/a.png"}}
            ]}
        ]
    });
    assert_eq!(round_trip(value.clone()), value);
    let message: Message = serde_json::from_value(value).unwrap();
    let results: Vec<_> = message.tool_results().collect();
    assert!(results[0].is_error());
    assert_eq!(results[0].text(), "done");
    assert_eq!(results[1].images().count(), 2);
    assert_eq!(results[1].text(), "after");
}

#[test]
fn plain_string_content_round_trips() {
    let value = json!({"role": "user", "content": "Log in as {{username}}"});
    assert_eq!(round_trip(value.clone()), value);
    let message: Message = serde_json::from_value(value).unwrap();
    assert_eq!(message.role, Role::User);
    assert_eq!(message.text(), "Log in as {{username}}");
    assert_eq!(message.blocks().len(), 1);
}

#[test]
fn api_view_drops_visual_representation_and_cache_only_fields() {
    let message: Message = serde_json::from_value(json!({
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "computer", "input": {"action": "left_click", "coordinate": [1, 2]},
             "visual_representation": "abcdabcdabcdabcd", "extra_content": {"x": 1}, "cache_control": {"type": "ephemeral"}}
        ]
    }))
    .unwrap();
    let body = serde_json::to_string(&message_to_api_json(&message)).unwrap();
    assert!(!body.contains("visual_representation"), "{body}");
    assert!(!body.contains("extra_content"), "{body}");
    assert_eq!(
        message_to_api_json(&message),
        json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "computer",
             "input": {"action": "left_click", "coordinate": [1, 2]}, "cache_control": {"type": "ephemeral"}}
        ]})
    );
}

#[test]
fn known_block_with_wrong_field_names_type_and_field() {
    let error = serde_json::from_value::<Message>(json!({
        "role": "assistant", "content": [{"type": "text", "text": 12}]
    }))
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("text block: field `text` must be a string, got a number"),
        "{error}"
    );
    let error = ContentBlock::from_value(json!({"type": "tool_use", "name": "x", "input": {}}))
        .unwrap_err();
    assert!(
        error.contains("tool_use block") && error.contains("id"),
        "{error}"
    );
}

#[test]
fn unknown_block_type_is_kept() {
    let block = ContentBlock::from_value(json!({"type": "document", "source": {"a": 1}})).unwrap();
    assert_eq!(block.type_name(), "document");
    assert_eq!(
        serde_json::to_value(&block).unwrap(),
        json!({"type": "document", "source": {"a": 1}})
    );
}

mod properties {
    use proptest::prelude::*;
    use retrace_protocol::ContentBlock;
    use serde_json::json;

    proptest! {
        #[test]
        fn text_and_tool_use_round_trip(text in ".*", id in "[a-zA-Z0-9_]{1,20}", x in -5000i64..5000, y in -5000i64..5000) {
            for value in [
                json!({"type": "text", "text": text}),
                json!({"type": "tool_use", "id": id, "name": "computer", "input": {"coordinate": [x, y]}}),
            ] {
                let block: ContentBlock = serde_json::from_value(value.clone()).unwrap();
                prop_assert_eq!(serde_json::to_value(&block).unwrap(), value);
            }
        }
    }
}
