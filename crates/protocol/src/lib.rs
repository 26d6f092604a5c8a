//! retrace-protocol: the JSON shapes every retrace crate speaks.
//!
//! One message history is the single source of truth of a run: model turns, replayed cache
//! steps and tool results all land in it as [`Message`]s made of [`ContentBlock`]s. These
//! types round-trip the Anthropic Messages format, so a history can be sent to a model, written
//! to a trajectory cache file and read back without loss.
//!
//! - [`Message`], [`Role`], [`MessageContent`]: one turn of the conversation.
//! - [`ContentBlock`]: text, image, tool_use, tool_result, thinking, redacted_thinking, and
//!   [`ContentBlock::Other`] for block types this crate does not know (kept as they came).
//! - [`ToolUseBlock`]: a tool call; carries the cache-only `visual_representation`, which the
//!   [API view](api) never sends to a model.
//! - [`Usage`], [`StopReason`]: accounting and why the model stopped.
//! - [`tool_names`]: the names of the tools the model sees, defined once.
//! - [`tool_spec`]: the one description of a tool an API request carries ([`tool_spec::ToolSpec`]).
//! - [`computer_actions`]: the catalogue of the `computer` tool's actions, each declared once,
//!   and its one input parser into a typed [`computer_actions::ComputerAction`].
//! - [`computer_tool`]: the `computer` tool's description and input schema, derived from it.
//! - [`tool_input`]: the rules for reading tool inputs (action points, the computer action
//!   set, observe-only steps), defined once.
//! - [`events`]: the [`events::Event`]s every run emits and every sink reads, and the
//!   [`events::Events`] stream that carries them.
//! - [`answer_json`]: the one reader of a JSON value in a model's answer.
//! - [`retry`]: the one retry policy and the one reader of a server's `retry-after`.
//! - [`stable_hash`]: the one hash whose values may be stored (64-bit FNV-1a).
//! - [`element`]: what a browser says about an element ([`ElementInfo`]); replay stores it
//!   beside a step's visual hash.
//! - [`text_style`]: how an element's text is drawn (colours, font), recorded with desktop
//!   elements so another theme fails with the reason.
//! - [`dialog`]: a JavaScript dialog a page opened and how it was answered ([`dialog::Dialog`]).
//! - [`secrets`]: the words that make a name secret, for reports' redaction and for the
//!   fields a demonstration records.
//!
//! This crate has no I/O and no async runtime.
//!
//! ```
//! use retrace_protocol::{ContentBlock, Message, ToolUseBlock};
//! let step = ToolUseBlock::new("toolu_1", "computer", serde_json::json!({"action": "left_click", "coordinate": [10, 20]}))
//!     .with_visual_representation("ffffff0800ffffff");
//! let message = Message::assistant(vec![ContentBlock::ToolUse(step)]);
//! let sent = retrace_protocol::api::message_to_api_json(&message);
//! assert!(sent["content"][0].get("visual_representation").is_none());
//! ```
#![deny(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod answer_json;
pub mod api;
pub mod computer_actions;
pub mod computer_tool;
mod content;
pub mod dialog;
pub mod element;
pub mod events;
mod message;
pub mod retry;
pub mod secrets;
pub mod stable_hash;
pub mod text_style;
pub mod tool_input;
pub mod tool_names;
pub mod tool_spec;
mod usage;

pub use content::ContentBlock;
pub use content::ImageSource;
pub use content::ToolResultBlock;
pub use content::ToolResultContent;
pub use content::ToolUseBlock;
pub use element::BoundingBox;
pub use element::ElementInfo;
pub use message::Message;
pub use message::MessageContent;
pub use message::Role;
pub use usage::StopReason;
pub use usage::Usage;
