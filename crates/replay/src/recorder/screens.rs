//! The screenshots of a run's history, as the recorder reads them: where each one sits
//! (the tool_result it came in), decoded at most once, and which screenshot came before and
//! after each action.

use std::collections::HashMap;

use base64::Engine;
use retrace_protocol::ContentBlock;
use retrace_protocol::ImageSource;
use retrace_protocol::Message;
use retrace_protocol::MessageContent;
use retrace_protocol::Role;
use retrace_vision::Image;
use retrace_vision::VisionError;

/// Where a screenshot sits in the history: message index and block index of its tool_result.
pub(super) type ScreenKey = (usize, usize);

/// Screenshots of the history, decoded on first use and kept by position.
pub(super) struct Screens<'a> {
    history: &'a [Message],
    decoded: HashMap<ScreenKey, Image>,
}

impl<'a> Screens<'a> {
    pub(super) fn new(history: &'a [Message]) -> Self {
        Self {
            history,
            decoded: HashMap::new(),
        }
    }

    /// The decoded first image of the tool_result at `key`; `Ok(None)` when it is not an
    /// inline PNG.
    /// Two screenshots at once (each `None` when its message holds none, or does not decode).
    pub(super) fn pair(
        &mut self,
        first: ScreenKey,
        second: Option<ScreenKey>,
    ) -> (Option<&Image>, Option<&Image>) {
        let _ = self.get(first);
        if let Some(second) = second {
            let _ = self.get(second);
        }
        (
            self.decoded.get(&first),
            second.and_then(|key| self.decoded.get(&key)),
        )
    }

    pub(super) fn get(&mut self, key: ScreenKey) -> Result<Option<&Image>, VisionError> {
        if !self.decoded.contains_key(&key) {
            let Some(data) = png_data(self.history, key) else {
                return Ok(None);
            };
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(data.as_bytes())
                .map_err(|e| VisionError::Decode(format!("invalid base64: {e}")))?;
            let image = retrace_vision::decode_png(&bytes)?;
            self.decoded.insert(key, image);
        }
        Ok(self.decoded.get(&key))
    }
}

fn blocks_of(message: &Message) -> &[ContentBlock] {
    match &message.content {
        MessageContent::Blocks(blocks) => blocks,
        MessageContent::Text(_) => &[],
    }
}

/// The base64 text of the first inline PNG in the tool_result at `key`.
fn png_data(history: &[Message], (message, block): ScreenKey) -> Option<&str> {
    let ContentBlock::ToolResult(result) = blocks_of(history.get(message)?).get(block)? else {
        return None;
    };
    match result.images().next()? {
        ImageSource::Base64 { media_type, data }
            if media_type.eq_ignore_ascii_case("image/png") =>
        {
            Some(data)
        }
        _ => None,
    }
}

/// The first tool_result of `message` that holds an image.
pub(super) fn first_screenshot(message: &Message) -> Option<usize> {
    blocks_of(message).iter().position(|block| match block {
        ContentBlock::ToolResult(result) => result.images().next().is_some(),
        _ => false,
    })
}

/// Where each tool_use's own result screenshot is, by tool_use id.
pub(super) fn result_screenshots(history: &[Message]) -> HashMap<&str, ScreenKey> {
    let mut found = HashMap::new();
    for (index, message) in history
        .iter()
        .enumerate()
        .filter(|(_, m)| m.role == Role::User)
    {
        for (block, content) in blocks_of(message).iter().enumerate() {
            if let ContentBlock::ToolResult(result) = content
                && result.images().next().is_some()
            {
                found
                    .entry(result.tool_use_id.as_str())
                    .or_insert((index, block));
            }
        }
    }
    found
}
