//! retrace-agent: the conversation of speakers.
//!
//! A run is one [`Conversation`]: speakers take turns on one shared history of
//! [`retrace_protocol::Message`]s. The model speaks through [`AgentSpeaker`] (or, answering in
//! JSON, through [`structured::StructuredSpeaker`]); other speakers (a replay of a recorded
//! trajectory, a script) take turns the same way. Tools ([`retrace_drive::tool::Tool`]) act on the UI and
//! their results go back into the same history. Everything notable is a
//! [`retrace_protocol::events::Event`]; sinks subscribe, nothing prints.
//!
//! - [`Conversation`], [`RunReport`], [`RunStatus`]: the loop and how it ended.
//! - [`speaker::Speaker`], [`speaker::SpeakerResult`], [`speaker::SpeakerContext`]: who speaks,
//!   what happens next, and what a speaker is handed when the conversation switches to it.
//! - [`SwitchSpeakerTool`]: the control tool a model hands the conversation over with.
//! - [`context::ContextPolicy`]: what of the history the model sees (recent images only).
//! - [`structured`]: the structured-response task loop (JSON decisions, web commands).
//!
//! It knows nothing of trajectory files: recording and replaying them is `retrace-replay`,
//! which plugs into this loop as a speaker and as tools.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod agent_speaker;
pub mod context;
mod conversation;
pub mod error;
pub mod script_speaker;
pub mod speaker;
pub mod structured;
mod switch_tool;

pub use agent_speaker::AGENT_SPEAKER;
pub use agent_speaker::AgentSettings;
pub use agent_speaker::AgentSpeaker;
pub use agent_speaker::DEFAULT_SYSTEM_PROMPT;
pub use conversation::Conversation;
pub use conversation::RunReport;
pub use conversation::RunStatus;
pub use error::AgentError;
pub use switch_tool::SwitchSpeakerTool;
