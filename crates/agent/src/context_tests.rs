use proptest::prelude::*;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::Role;
use retrace_protocol::ToolResultBlock;
use retrace_protocol::ToolUseBlock;
use serde_json::json;

use super::*;

/// A history of `turns` assistant tool calls, each answered by a screenshot tool result.
fn history(turns: usize) -> Vec<Message> {
    let mut messages = vec![Message::user_text("goal")];
    for turn in 0..turns {
        let id = format!("toolu_{turn}");
        messages.push(Message::assistant(vec![ContentBlock::ToolUse(
            ToolUseBlock::new(id.clone(), "computer", json!({"action": "screenshot"})),
        )]));
        messages.push(Message::user(vec![ContentBlock::ToolResult(
            ToolResultBlock::new(
                id,
                vec![ContentBlock::png_base64(format!("image{turn}"))],
                false,
            ),
        )]));
    }
    messages
}

/// Every tool_result in `view` answers a tool_use in the message just before it.
fn pairs_intact(view: &[Message]) -> bool {
    view.iter().enumerate().all(|(index, message)| {
        message.tool_results().all(|result| {
            index > 0
                && view[index - 1].role == Role::Assistant
                && view[index - 1]
                    .tool_uses()
                    .any(|tool_use| tool_use.id == result.tool_use_id)
        })
    })
}

#[test]
fn keeps_the_newest_images_and_notes_the_rest() {
    let view = ContextPolicy {
        max_images: 2,
        max_messages: None,
        image_batch: 1,
    }
    .view(&history(5));
    assert_eq!(count_images(&view), 2);
    let last = view
        .last()
        .unwrap()
        .tool_results()
        .next()
        .unwrap()
        .images()
        .next()
        .cloned();
    assert_eq!(
        last,
        Some(retrace_protocol::ImageSource::Base64 {
            media_type: "image/png".into(),
            data: "image4".into()
        })
    );
    let first_result = view[2].tool_results().next().unwrap();
    assert_eq!(first_result.text(), OMITTED_IMAGE_NOTE);
}

#[test]
fn history_itself_is_untouched() {
    let history = history(4);
    let _ = ContextPolicy {
        max_images: 0,
        max_messages: Some(3),
        image_batch: 1,
    }
    .view(&history);
    assert_eq!(count_images(&history), 4);
}

#[test]
fn dropping_messages_keeps_goal_and_pairs() {
    let view = ContextPolicy {
        max_images: 10,
        max_messages: Some(4),
        image_batch: 1,
    }
    .view(&history(6));
    assert_eq!(view[0].text(), "goal");
    assert_eq!(view[1].role, Role::Assistant);
    assert!(view.len() <= 4);
    assert!(pairs_intact(&view));
}

proptest! {
    #[test]
    fn never_splits_pairs_and_caps_images(turns in 0usize..30, max_images in 0usize..8, max_messages in proptest::option::of(1usize..40)) {
        let history = history(turns);
        let view = ContextPolicy { max_images, max_messages, image_batch: 1 }.view(&history);
        prop_assert!(pairs_intact(&view));
        prop_assert!(count_images(&view) <= max_images);
        // The view is the goal plus a suffix of the history; it keeps as many images as the
        // suffix had, up to the cap.
        let suffix = &history[history.len() - (view.len() - 1)..];
        prop_assert_eq!(count_images(&view), max_images.min(count_images(suffix)));
        prop_assert_eq!(view[0].text(), "goal");
        if let Some(max) = max_messages {
            prop_assert!(view.len() <= max.max(1));
        }
    }
}

/// The screenshots a view keeps are the history's own base64 text, shared and not copied
/// or encoded again: a turn costs nothing per kept image.
#[test]
fn kept_images_share_the_history_data() {
    fn image_data(messages: &[Message]) -> Vec<std::sync::Arc<str>> {
        messages
            .iter()
            .flat_map(Message::tool_results)
            .flat_map(|result| result.images().cloned().collect::<Vec<_>>())
            .filter_map(|source| match source {
                retrace_protocol::ImageSource::Base64 { data, .. } => Some(data),
                retrace_protocol::ImageSource::Url { .. } => None,
            })
            .collect()
    }
    let history = history(6);
    let view = ContextPolicy {
        max_images: 4,
        max_messages: None,
        image_batch: 1,
    }
    .view(&history);
    let kept = image_data(&view);
    let originals = image_data(&history);
    assert_eq!(kept.len(), 4);
    for (kept, original) in kept.iter().zip(&originals[2..]) {
        assert!(std::sync::Arc::ptr_eq(kept, original), "{kept} was copied");
    }
}

/// With a batch of 3, the view keeps 3 to 5 images and drops the oldest three at once, so the
/// conversation's start stays the same for three turns at a time (the prompt cache's prefix).
#[test]
fn old_images_are_dropped_in_batches() {
    let policy = ContextPolicy {
        image_batch: 3,
        ..ContextPolicy::default()
    };
    let kept: Vec<usize> = (0..10)
        .map(|shots| count_images(&policy.view(&history(shots))))
        .collect();
    assert_eq!(kept, [0, 1, 2, 3, 4, 5, 3, 4, 5, 3]);
    // Between two drops the earlier messages of the view are the same.
    let four = policy.view(&history(4));
    let five = policy.view(&history(5));
    assert_eq!(five[..four.len()], four[..]);
}

/// The turn before a batch is dropped is the one whose conversation the next request cannot
/// reuse: with a batch of 3, one more screenshot after 5 (and after 8) changes the view's start.
#[test]
fn the_turn_before_a_drop_is_foreseen() {
    let policy = ContextPolicy {
        image_batch: 3,
        ..ContextPolicy::default()
    };
    let foreseen: Vec<usize> = (0..10)
        .filter(|&shots| policy.next_view_drops_images(&history(shots)))
        .collect();
    assert_eq!(foreseen, [5, 8]);
    for shots in 0..10 {
        let now = policy.view(&history(shots));
        let next = policy.view(&history(shots + 1));
        let same_start = next[..now.len()] == now[..];
        assert_eq!(
            same_start,
            !policy.next_view_drops_images(&history(shots)),
            "after {shots} screenshots"
        );
    }
    // A view cut by `max_messages` moves its start on its own: never foreseen.
    let cut = ContextPolicy {
        max_messages: Some(4),
        ..policy
    };
    assert!((0..10).all(|shots| !cut.next_view_drops_images(&history(shots))));
}
