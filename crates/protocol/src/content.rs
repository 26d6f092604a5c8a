//! Content blocks: the parts of a message.
//!
//! Deserialisation dispatches on the `type` field by hand (rather than with an internally
//! tagged serde enum) so that block types this crate does not know are kept whole in
//! [`ContentBlock::Other`] instead of failing the whole message, and so that the error for a
//! known type names the type and the field at fault.

use serde::Deserialize;
use serde::Serialize;
use serde_json::Map;
use serde_json::Value;

/// One block of a message's content.
#[derive(Debug, Clone, PartialEq)]
pub enum ContentBlock {
    /// Plain text.
    Text {
        /// The text.
        text: String,
        /// Other fields that came with the block (`cache_control`, `citations`...).
        extra: Map<String, Value>,
    },
    /// An image, inline (base64) or by URL.
    Image {
        /// Where the image data is.
        source: ImageSource,
        /// Other fields that came with the block.
        extra: Map<String, Value>,
    },
    /// A tool call by the model, or a replayed cache step.
    ToolUse(ToolUseBlock),
    /// The outcome of a tool call.
    ToolResult(ToolResultBlock),
    /// The model's visible reasoning.
    Thinking {
        /// The reasoning text.
        thinking: String,
        /// The signature the API needs to accept the block back.
        signature: String,
    },
    /// Reasoning the API returned encrypted.
    RedactedThinking {
        /// The opaque data.
        data: String,
    },
    /// A block type this crate does not know, kept exactly as it came.
    Other(Value),
}

/// Where an image's bytes are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ImageSource {
    /// Inline, base64-encoded data.
    Base64 {
        /// `image/png`, `image/jpeg`...
        media_type: String,
        /// The base64 text (standard alphabet, padded). Shared, so cloning a history with
        /// many screenshots copies no image data.
        data: std::sync::Arc<str>,
    },
    /// An image the API fetches itself.
    Url {
        /// The image URL.
        url: String,
    },
}

/// A tool call: which tool, with what input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUseBlock {
    /// The call id; the matching tool_result carries it as `tool_use_id`.
    pub id: String,
    /// The tool's name as the model saw it (askui files may carry a `_tags_..._<uuid>`
    /// suffix; it is kept as written).
    pub name: String,
    /// The tool input.
    pub input: Value,
    /// Cache only: the perceptual hash of the screen region around the action point, taken
    /// just before the action was recorded. Never sent to a model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visual_representation: Option<String>,
    /// Other fields that came with the block (`cache_control`, askui's `extra_content`...),
    /// kept so a rewrite loses nothing.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ToolUseBlock {
    /// A tool call with no visual representation and no extra fields.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            input,
            visual_representation: None,
            extra: Map::new(),
        }
    }

    /// The same call with a recorded visual hash.
    pub fn with_visual_representation(mut self, hash: impl Into<String>) -> Self {
        self.visual_representation = Some(hash.into());
        self
    }
}

/// The outcome of a tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResultBlock {
    /// The id of the tool_use this answers.
    pub tool_use_id: String,
    /// Text, or blocks (text and images).
    #[serde(default = "ToolResultContent::empty")]
    pub content: ToolResultContent,
    /// True when the tool failed; the content then says why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Other fields that came with the block.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ToolResultBlock {
    /// A result made of blocks.
    pub fn new(tool_use_id: impl Into<String>, blocks: Vec<ContentBlock>, is_error: bool) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            content: ToolResultContent::Blocks(blocks),
            is_error: is_error.then_some(true),
            extra: Map::new(),
        }
    }

    /// True when the tool reported an error.
    pub fn is_error(&self) -> bool {
        self.is_error.unwrap_or(false)
    }

    /// The images inside this result, in order.
    pub fn images(&self) -> impl Iterator<Item = &ImageSource> {
        let blocks: &[ContentBlock] = match &self.content {
            ToolResultContent::Text(_) => &[],
            ToolResultContent::Blocks(blocks) => blocks,
        };
        blocks.iter().filter_map(|block| match block {
            ContentBlock::Image { source, .. } => Some(source),
            _ => None,
        })
    }

    /// The text parts of this result joined by newlines.
    pub fn text(&self) -> String {
        match &self.content {
            ToolResultContent::Text(text) => text.clone(),
            ToolResultContent::Blocks(blocks) => blocks
                .iter()
                .filter_map(|block| match block {
                    ContentBlock::Text { text, .. } => Some(text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

/// A tool result's content: a plain string or a list of blocks.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ToolResultContent {
    /// A plain string.
    Text(String),
    /// Text and image blocks.
    Blocks(Vec<ContentBlock>),
}

impl ToolResultContent {
    fn empty() -> Self {
        ToolResultContent::Blocks(Vec::new())
    }
}

impl<'de> Deserialize<'de> for ToolResultContent {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        match text_or_blocks(Value::deserialize(deserializer)?) {
            Ok(TextOrBlocks::Text(text)) => Ok(ToolResultContent::Text(text)),
            Ok(TextOrBlocks::Blocks(blocks)) => Ok(ToolResultContent::Blocks(blocks)),
            Err(message) => Err(D::Error::custom(format!("content: {message}"))),
        }
    }
}

/// Content that is either a string or a list of blocks (messages and tool results alike).
pub(crate) enum TextOrBlocks {
    Text(String),
    Blocks(Vec<ContentBlock>),
}

/// Reads string-or-blocks content, naming the index of a bad block.
pub(crate) fn text_or_blocks(value: Value) -> Result<TextOrBlocks, String> {
    match value {
        Value::String(text) => Ok(TextOrBlocks::Text(text)),
        Value::Array(items) => items
            .into_iter()
            .enumerate()
            .map(|(index, item)| {
                ContentBlock::from_value(item).map_err(|e| format!("[{index}]: {e}"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(TextOrBlocks::Blocks),
        other => Err(format!(
            "expected a string or a list of blocks, got {}",
            kind_of(&other)
        )),
    }
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text {
            text: text.into(),
            extra: Map::new(),
        }
    }

    /// An inline PNG image from its base64 text.
    pub fn png_base64(data: impl Into<std::sync::Arc<str>>) -> Self {
        ContentBlock::Image {
            source: ImageSource::Base64 {
                media_type: "image/png".into(),
                data: data.into(),
            },
            extra: Map::new(),
        }
    }

    /// The block's `type` as it appears on the wire.
    pub fn type_name(&self) -> &str {
        match self {
            ContentBlock::Text { .. } => "text",
            ContentBlock::Image { .. } => "image",
            ContentBlock::ToolUse(_) => "tool_use",
            ContentBlock::ToolResult(_) => "tool_result",
            ContentBlock::Thinking { .. } => "thinking",
            ContentBlock::RedactedThinking { .. } => "redacted_thinking",
            ContentBlock::Other(value) => value.get("type").and_then(Value::as_str).unwrap_or(""),
        }
    }
}

/// Serialises a known block: `{"type": ..., <fields>, <extra>}`.
fn tagged(type_name: &str, fields: Map<String, Value>, extra: &Map<String, Value>) -> Value {
    let mut object = Map::with_capacity(fields.len() + extra.len() + 1);
    object.insert("type".into(), Value::String(type_name.into()));
    object.extend(fields);
    for (key, value) in extra {
        object.entry(key.clone()).or_insert_with(|| value.clone());
    }
    Value::Object(object)
}

impl Serialize for ContentBlock {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        let value = match self {
            ContentBlock::Text { text, extra } => {
                let mut fields = Map::new();
                fields.insert("text".into(), Value::String(text.clone()));
                tagged("text", fields, extra)
            }
            ContentBlock::Image { source, extra } => {
                let mut fields = Map::new();
                fields.insert(
                    "source".into(),
                    serde_json::to_value(source).map_err(S::Error::custom)?,
                );
                tagged("image", fields, extra)
            }
            ContentBlock::ToolUse(block) => {
                with_type("tool_use", block).map_err(S::Error::custom)?
            }
            ContentBlock::ToolResult(block) => {
                with_type("tool_result", block).map_err(S::Error::custom)?
            }
            ContentBlock::Thinking {
                thinking,
                signature,
            } => {
                let mut fields = Map::new();
                fields.insert("thinking".into(), Value::String(thinking.clone()));
                fields.insert("signature".into(), Value::String(signature.clone()));
                tagged("thinking", fields, &Map::new())
            }
            ContentBlock::RedactedThinking { data } => {
                let mut fields = Map::new();
                fields.insert("data".into(), Value::String(data.clone()));
                tagged("redacted_thinking", fields, &Map::new())
            }
            ContentBlock::Other(value) => value.clone(),
        };
        value.serialize(serializer)
    }
}

/// Serialises a struct block and puts `type` first.
fn with_type<T: Serialize>(type_name: &str, block: &T) -> Result<Value, serde_json::Error> {
    let fields = match serde_json::to_value(block)? {
        Value::Object(fields) => fields,
        other => return Ok(other),
    };
    Ok(tagged(type_name, fields, &Map::new()))
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = Value::deserialize(deserializer)?;
        ContentBlock::from_value(value).map_err(D::Error::custom)
    }
}

impl ContentBlock {
    /// Reads a block from a JSON value. Unknown `type`s become [`ContentBlock::Other`];
    /// a known type with a missing or mistyped field is an error naming the type and field.
    pub fn from_value(value: Value) -> Result<Self, String> {
        let Value::Object(mut object) = value else {
            return Err(format!(
                "a content block must be an object, got {}",
                kind_of(&value)
            ));
        };
        let Some(type_name) = object
            .get("type")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            return Err("a content block needs a string `type`".into());
        };
        let block = match type_name.as_str() {
            "text" => {
                object.remove("type");
                let text = take_string(&mut object, "text", &type_name)?;
                ContentBlock::Text {
                    text,
                    extra: object,
                }
            }
            "image" => {
                object.remove("type");
                let source = object
                    .remove("source")
                    .ok_or("image block: missing field `source`")?;
                let source = serde_json::from_value(source)
                    .map_err(|e| format!("image block: field `source`: {e}"))?;
                ContentBlock::Image {
                    source,
                    extra: object,
                }
            }
            "tool_use" => {
                object.remove("type");
                let block = serde_json::from_value(Value::Object(object))
                    .map_err(|e| format!("tool_use block: {e}"))?;
                ContentBlock::ToolUse(block)
            }
            "tool_result" => {
                object.remove("type");
                let block = serde_json::from_value(Value::Object(object))
                    .map_err(|e| format!("tool_result block: {e}"))?;
                ContentBlock::ToolResult(block)
            }
            "thinking" => ContentBlock::Thinking {
                thinking: take_string(&mut object, "thinking", &type_name)?,
                signature: take_string(&mut object, "signature", &type_name).unwrap_or_default(),
            },
            "redacted_thinking" => ContentBlock::RedactedThinking {
                data: take_string(&mut object, "data", &type_name)?,
            },
            _ => ContentBlock::Other(Value::Object(object)),
        };
        Ok(block)
    }
}

fn take_string(
    object: &mut Map<String, Value>,
    field: &str,
    type_name: &str,
) -> Result<String, String> {
    match object.remove(field) {
        Some(Value::String(text)) => Ok(text),
        Some(other) => Err(format!(
            "{type_name} block: field `{field}` must be a string, got {}",
            kind_of(&other)
        )),
        None => Err(format!("{type_name} block: missing field `{field}`")),
    }
}

/// A short description of a JSON value's kind, for error messages.
pub(crate) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
