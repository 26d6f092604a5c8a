use std::cell::Cell;
use std::sync::Arc;

use retrace_protocol::ContentBlock;
use retrace_protocol::ToolResultBlock;
use retrace_protocol::ToolUseBlock;
use retrace_protocol::api::message_to_api_json;
use serde_json::json;

use super::*;

fn turn(n: usize, image: Option<&Arc<str>>) -> [Message; 2] {
    let id = format!("toolu_{n}");
    let mut blocks = vec![ContentBlock::text("done")];
    if let Some(data) = image {
        blocks.push(ContentBlock::png_base64(Arc::clone(data)));
    }
    [
        Message::assistant(vec![ContentBlock::ToolUse(ToolUseBlock::new(
            id.clone(),
            "computer",
            json!({"action": "left_click", "coordinate": [n, 2]}),
        ))]),
        Message::user(vec![ContentBlock::ToolResult(ToolResultBlock::new(
            id, blocks, false,
        ))]),
    ]
}

fn history(turns: usize, image: &Arc<str>) -> Vec<Message> {
    let mut messages = vec![Message::user_text("goal")];
    for n in 0..turns {
        messages.extend(turn(n, Some(image)));
    }
    messages
}

/// Encodes like the Anthropic body does and counts the calls.
fn counting(calls: &Cell<usize>) -> impl Fn(&Message) -> Result<Vec<u8>, serde_json::Error> {
    move |message| {
        calls.set(calls.get() + 1);
        serde_json::to_vec(&message_to_api_json(message))
    }
}

#[test]
fn each_message_is_serialised_once_across_growing_requests() {
    let cache = FragmentCache::default();
    let calls = Cell::new(0);
    let image: Arc<str> = Arc::from("iVBORw0KGgo".repeat(1000));
    let mut messages = history(3, &image);
    cache.fragments(&messages, counting(&calls)).unwrap();
    assert_eq!(calls.get(), 7);
    for n in 3..10 {
        messages.extend(turn(n, Some(&image)));
        let fragments = cache.fragments(&messages, counting(&calls)).unwrap();
        assert_eq!(fragments.len(), messages.len());
    }
    // 7 messages first, then 2 new ones per turn: never an old one again.
    assert_eq!(calls.get(), 7 + 7 * 2);
    assert_eq!(cache.serialised(), 21);
}

#[test]
fn a_changed_message_is_serialised_again() {
    let cache = FragmentCache::default();
    let calls = Cell::new(0);
    let image: Arc<str> = Arc::from("AAAA");
    let mut messages = history(2, &image);
    let first = cache.fragments(&messages, counting(&calls)).unwrap();
    // The context policy replaced the oldest screenshot with a note.
    messages[2] = turn(0, None)[1].clone();
    let second = cache.fragments(&messages, counting(&calls)).unwrap();
    assert_eq!(calls.get(), 5 + 1);
    assert_ne!(first[2], second[2]);
    assert_eq!(
        second[2],
        serde_json::to_vec(&message_to_api_json(&messages[2])).unwrap()
    );
    // Same content under another pointer is still equal: reused, not re-serialised.
    messages[4] = turn(1, Some(&Arc::from("AAAA")))[1].clone();
    cache.fragments(&messages, counting(&calls)).unwrap();
    assert_eq!(calls.get(), 6);
}

#[test]
fn dropped_oldest_turns_still_hit() {
    let cache = FragmentCache::default();
    let calls = Cell::new(0);
    let image: Arc<str> = Arc::from("AAAA");
    let messages = history(6, &image);
    cache.fragments(&messages, counting(&calls)).unwrap();
    // The goal, then turns 2.. only (a max_messages view).
    let mut view = vec![messages[0].clone()];
    view.extend_from_slice(&messages[5..]);
    let fragments = cache.fragments(&view, counting(&calls)).unwrap();
    assert_eq!(calls.get(), 13, "no message serialised twice");
    for (fragment, message) in fragments.iter().zip(&view) {
        assert_eq!(
            *fragment,
            serde_json::to_vec(&message_to_api_json(message)).unwrap()
        );
    }
}

#[test]
fn assembled_body_equals_serialising_it_whole() {
    let image: Arc<str> = Arc::from("AAAA");
    let messages = history(2, &image);
    let fragments: Vec<Bytes> = messages
        .iter()
        .map(|m| Bytes::from(serde_json::to_vec(&message_to_api_json(m)).unwrap()))
        .collect();
    let mut head = Map::new();
    head.insert("model".into(), json!("m"));
    head.insert("messages".into(), Value::Null);
    head.insert("tools".into(), json!([{"name": "t\"q"}]));
    let body = assemble(&head, "messages", &fragments).unwrap();
    let mut whole = head.clone();
    whole.insert(
        "messages".into(),
        Value::Array(messages.iter().map(message_to_api_json).collect()),
    );
    assert_eq!(body, serde_json::to_vec(&Value::Object(whole)).unwrap());

    // Empty fragments are skipped, not joined as empty elements.
    let sparse = [
        Bytes::from_static(b"1"),
        Bytes::new(),
        Bytes::from_static(b"2"),
    ];
    let body = assemble(&head, "messages", &sparse).unwrap();
    let text = String::from_utf8(body.to_vec()).unwrap();
    assert!(text.contains(r#""messages":[1,2]"#), "{text}");
}
