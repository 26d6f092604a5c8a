//! The structured-response task loop: a model that answers each step with one JSON object
//! in retrace-schema's response schema (a decision PROCEED/RETRY/ABORT, its reasoning and at
//! most one web command) instead of native tool calls.
//!
//! - [`StructuredSpeaker`]: the loop as a [`crate::speaker::Speaker`]. It emits each
//!   accepted command as a `web_executor` tool_use, so the ordinary [`crate::Conversation`]
//!   runs it, and the history, the events, the recorder and cache replay need nothing new.
//! - [`read_answer`] ([`decision`]): parse (code fences and prose tolerated), validate,
//!   decide; a [`Rejection`] carries the field-level errors sent back for a correction.
//! - [`PageObserver`] / [`ExecutorObserver`] ([`page`]): URL, title, DOM view, saved
//!   variables and an optional screenshot of a web executor session.
//! - [`ResolvingWebTool`] ([`web_tool`]): the `web_executor` tool resolving `${variable}`
//!   references at call time, in recording and in replay alike.
//! - [`prompt`]: the system prompt and each step's request.
//! - [`executor_on_page`] ([`first_page`]): a web executor whose default session is a page
//!   already open, for commands that open `--url` themselves (`retrace replay`).
//!
//! It does not choose the provider or open the browser: the CLI (`retrace act --mode
//! structured`) wires those.

pub mod decision;
pub mod first_page;
pub mod page;
pub mod prompt;
mod speaker;
pub mod web_tool;

pub use decision::Decision;
pub use decision::Rejection;
pub use decision::read_answer;
pub use first_page::FirstPageFactory;
pub use first_page::executor_on_page;
pub use page::ExecutorObserver;
pub use page::PageObserver;
pub use page::PageState;
pub use speaker::STRUCTURED_SPEAKER;
pub use speaker::SchemaDelivery;
pub use speaker::StructuredSettings;
pub use speaker::StructuredSpeaker;
pub use web_tool::ResolvingWebTool;

#[cfg(test)]
#[path = "speaker_tests.rs"]
mod speaker_tests;
