//! Speakers: whoever takes the next turn of a conversation.
//!
//! The model ([`crate::AgentSpeaker`]) is one speaker; a cached trajectory replayed step by
//! step is another. Each turn, the active speaker appends messages to the one shared history
//! and says what happens next through a [`SpeakerResult`].

use async_trait::async_trait;
use retrace_protocol::Message;
use retrace_protocol::Usage;
use retrace_protocol::events::Events;

use crate::error::AgentError;
pub use retrace_drive::handover::SpeakerContext;
use retrace_drive::tool::Toolbox;

/// What a speaker sees when it takes a turn.
#[derive(Debug)]
pub struct TurnContext<'a> {
    /// The whole history so far.
    pub history: &'a [Message],
    /// The tools of this run.
    pub toolbox: &'a Toolbox,
    /// The event stream.
    pub events: &'a Events,
    /// The 1-based number of this turn in the run.
    pub turn: usize,
    /// The names and descriptions of all speakers, for prompts.
    pub speakers: &'a [(String, String)],
}

/// What happens after a speaker's turn.
#[derive(Debug, Clone, PartialEq)]
pub enum SpeakerResult {
    /// Run the tool calls (if any) and let the active speaker go on.
    Continue,
    /// Run the tool calls (if any), then hand over to `speaker` with `context`.
    SwitchTo {
        /// The next speaker's name.
        speaker: String,
        /// Passed to the next speaker's `on_activate`.
        context: SpeakerContext,
        /// Why, for the event stream.
        reason: String,
    },
    /// The goal is reached; the run ends successfully.
    Done,
    /// The run ends without reaching the goal.
    Failed(StopCause),
}

/// Why a run ended without reaching its goal.
#[derive(Debug, Clone, PartialEq)]
pub enum StopCause {
    /// The speaker gave up, with its reason.
    Failed(String),
    /// The model's answer was cut at `max_tokens`.
    MaxTokens,
    /// The model declined, with what it said.
    Refusal(String),
    /// The conversation filled the model's context window.
    ContextWindowExceeded,
}

/// One turn's output.
#[derive(Debug, Clone, PartialEq)]
pub struct SpeakerTurn {
    /// Messages to append to the history (usually one assistant message).
    pub messages: Vec<Message>,
    /// Tokens this turn used, when it called a model.
    pub usage: Option<Usage>,
    /// What happens next.
    pub result: SpeakerResult,
    /// The 1-based trajectory step of the tool call this turn makes, when the speaker knows
    /// it (a replay knows the step of the file it acts); the conversation counts it for
    /// everyone else.
    pub step: Option<usize>,
}

impl SpeakerTurn {
    /// A turn that appends `messages` and continues.
    pub fn continue_with(messages: Vec<Message>) -> Self {
        Self::ending(messages, SpeakerResult::Continue)
    }

    /// A turn that appends `messages` and then does what `result` says.
    pub fn ending(messages: Vec<Message>, result: SpeakerResult) -> Self {
        Self {
            messages,
            usage: None,
            result,
            step: None,
        }
    }

    /// A turn that appends nothing and hands over.
    pub fn switch_to(
        speaker: impl Into<String>,
        context: SpeakerContext,
        reason: impl Into<String>,
    ) -> Self {
        Self::ending(
            Vec::new(),
            SpeakerResult::SwitchTo {
                speaker: speaker.into(),
                context,
                reason: reason.into(),
            },
        )
    }
}

/// A participant in the conversation.
#[async_trait]
pub trait Speaker: Send {
    /// A unique name (`agent`, `cache_executor`).
    fn name(&self) -> &str;
    /// One line on what this speaker does, shown to the model by the switch tool.
    fn description(&self) -> &str;
    /// Whether this speaker can take the next turn; when it cannot, the conversation falls
    /// back to the default speaker.
    fn can_handle(&self, _context: &TurnContext<'_>) -> bool {
        true
    }
    /// Called when the conversation switches to this speaker, with the switch's context.
    async fn on_activate(
        &mut self,
        _context: &SpeakerContext,
        _turn: &TurnContext<'_>,
    ) -> Result<(), AgentError> {
        Ok(())
    }
    /// Takes one turn.
    async fn handle_step(&mut self, turn: &TurnContext<'_>) -> Result<SpeakerTurn, AgentError>;
}
