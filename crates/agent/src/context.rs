//! Context management: what of the history the model sees.
//!
//! The recorded history keeps everything. The model gets a view of it in which only recent
//! images remain images (older ones become a short text note), and, when `max_messages` is
//! set, the oldest turns after the goal are dropped. Dropping always removes a whole assistant
//! turn together with the user message answering it, so a tool_use is never separated from
//! its tool_result.
//!
//! Old images are dropped in batches of `image_batch`: the view keeps between `max_images`
//! and `max_images + image_batch - 1` images, so the start of the conversation (the prompt
//! cache's prefix) stays the same for `image_batch` turns at a time instead of changing every
//! turn (as the prompt caching documentation recommends; Anthropic's computer-use reference
//! loop drops images the same way, `min_removal_threshold`).

use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::MessageContent;
use retrace_protocol::Role;
use retrace_protocol::ToolResultContent;

/// The note that stands in for an image the model no longer sees.
pub const OMITTED_IMAGE_NOTE: &str = "[older screenshot omitted to save context]";

/// How much of the history the model sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextPolicy {
    /// Images kept as images, counting from the most recent.
    pub max_images: usize,
    /// When set, at most this many messages are sent (the first message, the goal, always is).
    pub max_messages: Option<usize>,
    /// Old images are replaced this many at a time (1: one per turn, the view always holding
    /// `max_images`).
    pub image_batch: usize,
}

impl Default for ContextPolicy {
    /// Three to eight images, old ones dropped six at a time (prompt caching on). Measured on
    /// the demo flow against the documented cache prices and tool overheads, before requests
    /// stopped caching a conversation the next one drops images from
    /// (`crates/cli/tests/cli/act_e2e/caching.rs`): a batch of 6 cost 2.00x less than no
    /// caching; 8: 1.95x, 9: 1.91x, never dropping: 1.97x (and never dropping grows dearer
    /// with every turn of a longer flow, as every image is read again each turn).
    fn default() -> Self {
        Self {
            max_images: 3,
            max_messages: None,
            image_batch: 6,
        }
    }
}

impl ContextPolicy {
    /// The view of `history` to send to the model.
    pub fn view(&self, history: &[Message]) -> Vec<Message> {
        let start = self.first_kept_index(history);
        let mut view: Vec<Message> = Vec::with_capacity(history.len() - start + 1);
        if start > 0
            && let Some(first) = history.first()
        {
            view.push(first.clone());
        }
        view.extend(history[start..].iter().cloned());
        let mut images_left = self.images_kept(count_images(&view));
        for message in view.iter_mut().rev() {
            replace_old_images(message, &mut images_left);
        }
        view
    }

    /// Whether one more screenshot replaces a batch of old images, so that the next view
    /// starts differently from this one and cannot read a cache entry of this one's
    /// conversation. Always false with `max_messages`, whose view start moves on its own.
    pub fn next_view_drops_images(&self, history: &[Message]) -> bool {
        if self.max_messages.is_some() {
            return false;
        }
        let total = count_images(history);
        self.images_removed(total + 1) > self.images_removed(total)
    }

    /// How many of `total` images stay images: all but the oldest, removed in whole batches.
    fn images_kept(&self, total: usize) -> usize {
        total - self.images_removed(total)
    }

    /// How many of `total` images become notes: the oldest, in whole batches.
    fn images_removed(&self, total: usize) -> usize {
        let over = total.saturating_sub(self.max_images);
        over - over % self.image_batch.max(1)
    }

    /// The index of the oldest message kept after the goal, so that the view starts a turn
    /// with an assistant message (never a tool_result whose tool_use was dropped).
    fn first_kept_index(&self, history: &[Message]) -> usize {
        let Some(max_messages) = self.max_messages else {
            return 0;
        };
        if history.len() <= max_messages.max(1) {
            return 0;
        }
        // Keep the goal (index 0) plus the newest `max_messages - 1` messages, moved forward
        // to the next assistant message so that no tool_result loses its tool_use.
        let mut start = history.len() - max_messages.saturating_sub(1);
        while start < history.len() && history[start].role != Role::Assistant {
            start += 1;
        }
        // The goal is a user message; an assistant message must follow it.
        start.max(1)
    }
}

fn replace_old_images(message: &mut Message, images_left: &mut usize) {
    let MessageContent::Blocks(blocks) = &mut message.content else {
        return;
    };
    for block in blocks.iter_mut().rev() {
        match block {
            ContentBlock::Image { .. } => keep_or_replace(block, images_left),
            ContentBlock::ToolResult(result) => {
                if let ToolResultContent::Blocks(inner) = &mut result.content {
                    for inner_block in inner.iter_mut().rev() {
                        if matches!(inner_block, ContentBlock::Image { .. }) {
                            keep_or_replace(inner_block, images_left);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

fn keep_or_replace(block: &mut ContentBlock, images_left: &mut usize) {
    if *images_left > 0 {
        *images_left -= 1;
    } else {
        *block = ContentBlock::text(OMITTED_IMAGE_NOTE);
    }
}

/// Counts the images in messages, inside tool results too.
pub fn count_images(messages: &[Message]) -> usize {
    messages
        .iter()
        .flat_map(|message| message.blocks().into_owned())
        .map(|block| match block {
            ContentBlock::Image { .. } => 1,
            ContentBlock::ToolResult(result) => result.images().count(),
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
#[path = "context_tests.rs"]
mod tests;
