//! retrace-agent: the conversation of speakers.
//!
//! A run is one [`Conversation`]: speakers take turns on one shared history of
//! [`retrace_protocol::Message`]s. The model speaks through [`AgentSpeaker`]; a recorded
//! trajectory speaks through the cache executor. Tools ([`tool::AgentTool`]) act on the UI
//! and their results go back into the same history. Everything notable is an
//! [`events::Event`]; sinks subscribe, nothing prints.
//!
//! - [`Conversation`], [`RunReport`], [`RunStatus`]: the loop and how it ended.
//! - [`speaker::Speaker`], [`speaker::SpeakerResult`]: who speaks and what happens next.
//! - [`context::ContextPolicy`]: what of the history the model sees (recent images only).
//! - [`events`]: the event stream and its sinks.
//! - [`structured`]: the structured-response task loop (JSON decisions, web commands).
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod agent_speaker;
pub mod askui_tools;
pub mod cache_executor;
pub mod cache_tools;
pub mod context;
mod conversation;
mod drive_tool;
pub mod error;
pub mod events;
pub mod recorder;
pub mod replay_ledger;
pub mod screen;
pub mod script_speaker;
pub mod speaker;
pub mod step_input;
pub mod structured;
mod switch_tool;
pub mod tool;

pub use agent_speaker::AGENT_SPEAKER;
pub use agent_speaker::AgentSettings;
pub use agent_speaker::AgentSpeaker;
pub use agent_speaker::DEFAULT_SYSTEM_PROMPT;
pub use agent_speaker::tool_specs;
pub use conversation::Conversation;
pub use conversation::RunReport;
pub use conversation::RunStatus;
pub use drive_tool::DriveTool;
pub use drive_tool::output_blocks;
pub use error::AgentError;
pub use switch_tool::SwitchSpeakerTool;
