//! Messages: a role and its content.

use serde::Deserialize;
use serde::Serialize;

use crate::ContentBlock;
use crate::ToolResultBlock;
use crate::ToolUseBlock;

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user, or tool results sent on the user's side.
    User,
    /// The model, or a cached step replayed in its place.
    Assistant,
}

/// A message's content: a plain string or a list of blocks.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum MessageContent {
    /// A plain string.
    Text(String),
    /// Content blocks.
    Blocks(Vec<ContentBlock>),
}

impl<'de> Deserialize<'de> for MessageContent {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        match crate::content::text_or_blocks(serde_json::Value::deserialize(deserializer)?) {
            Ok(crate::content::TextOrBlocks::Text(text)) => Ok(MessageContent::Text(text)),
            Ok(crate::content::TextOrBlocks::Blocks(blocks)) => Ok(MessageContent::Blocks(blocks)),
            Err(message) => Err(D::Error::custom(format!("content: {message}"))),
        }
    }
}

/// One turn of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who said it.
    pub role: Role,
    /// What was said.
    pub content: MessageContent,
}

impl Message {
    /// A user message with plain text.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: MessageContent::Text(text.into()),
        }
    }

    /// A user message made of blocks (tool results, images, text).
    pub fn user(blocks: Vec<ContentBlock>) -> Self {
        Self {
            role: Role::User,
            content: MessageContent::Blocks(blocks),
        }
    }

    /// An assistant message made of blocks.
    pub fn assistant(blocks: Vec<ContentBlock>) -> Self {
        Self {
            role: Role::Assistant,
            content: MessageContent::Blocks(blocks),
        }
    }

    /// The content as blocks; a plain string counts as one text block.
    pub fn blocks(&self) -> std::borrow::Cow<'_, [ContentBlock]> {
        match &self.content {
            MessageContent::Blocks(blocks) => std::borrow::Cow::Borrowed(blocks),
            MessageContent::Text(text) => {
                std::borrow::Cow::Owned(vec![ContentBlock::text(text.clone())])
            }
        }
    }

    /// Mutable access to the blocks; `None` when the content is a plain string.
    pub fn blocks_mut(&mut self) -> Option<&mut Vec<ContentBlock>> {
        match &mut self.content {
            MessageContent::Blocks(blocks) => Some(blocks),
            MessageContent::Text(_) => None,
        }
    }

    /// The content as owned blocks; a plain string becomes one text block.
    pub fn into_blocks(self) -> Vec<ContentBlock> {
        match self.content {
            MessageContent::Blocks(blocks) => blocks,
            MessageContent::Text(text) => vec![ContentBlock::text(text)],
        }
    }

    /// The tool calls in this message, in order.
    pub fn tool_uses(&self) -> impl Iterator<Item = &ToolUseBlock> {
        self.block_slice().iter().filter_map(|block| match block {
            ContentBlock::ToolUse(tool_use) => Some(tool_use),
            _ => None,
        })
    }

    /// The tool results in this message, in order.
    pub fn tool_results(&self) -> impl Iterator<Item = &ToolResultBlock> {
        self.block_slice().iter().filter_map(|block| match block {
            ContentBlock::ToolResult(result) => Some(result),
            _ => None,
        })
    }

    /// The text blocks joined by newlines.
    pub fn text(&self) -> String {
        match &self.content {
            MessageContent::Text(text) => text.clone(),
            MessageContent::Blocks(blocks) => blocks
                .iter()
                .filter_map(|block| match block {
                    ContentBlock::Text { text, .. } => Some(text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }

    fn block_slice(&self) -> &[ContentBlock] {
        match &self.content {
            MessageContent::Blocks(blocks) => blocks,
            MessageContent::Text(_) => &[],
        }
    }
}
