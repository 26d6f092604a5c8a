//! Errors that end a run (as opposed to tool errors, which go back to the model).

/// Why a run could not go on.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The model provider failed after its retries.
    #[error("model call failed at turn {turn}: {source}")]
    Model {
        /// The turn that called the model.
        turn: usize,
        /// The provider's error.
        #[source]
        source: retrace_llm::VlmError,
    },
    /// A tool failed in a way the model cannot repair (the browser died, the display went
    /// away).
    #[error("tool `{tool}` failed fatally at turn {turn}: {message}")]
    ToolFatal {
        /// The turn that called the tool.
        turn: usize,
        /// The tool's name.
        tool: String,
        /// What happened.
        message: String,
    },
    /// A speaker named something that does not exist.
    #[error("no speaker named `{name}` (speakers: {known})")]
    UnknownSpeaker {
        /// The name asked for.
        name: String,
        /// The names that exist, comma-separated.
        known: String,
    },
    /// The conversation was set up wrongly (no speakers, an empty goal).
    #[error("{0}")]
    Setup(String),
    /// A speaker failed for a reason of its own (a cache file that cannot be read...).
    #[error("{speaker} failed at turn {turn}: {message}")]
    Speaker {
        /// The speaker.
        speaker: String,
        /// The turn.
        turn: usize,
        /// What happened.
        message: String,
    },
}
