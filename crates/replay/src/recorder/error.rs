//! Why a recording could not be made or written ([`RecordError`]).

use std::path::PathBuf;

use retrace_cache::CacheError;
use retrace_vision::VisionError;

/// Why a recording could not be made or written.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The history holds no tool call to record.
    #[error("nothing to record: the run made no tool calls")]
    Empty,
    /// A screenshot in the history is not a readable PNG.
    #[error(
        "step {step} (tool_use {id}): the screenshot in history message {message} cannot be decoded: {source}"
    )]
    Screenshot {
        /// Trajectory index of the step that needed it.
        step: usize,
        /// The step's tool_use id.
        id: String,
        /// Index of the history message holding the screenshot.
        message: usize,
        /// What the decoder said.
        #[source]
        source: VisionError,
    },
    /// A region could not be hashed.
    #[error("step {step} (tool_use {id}): cannot hash the region around ({x}, {y}): {source}")]
    Hash {
        /// Trajectory index.
        step: usize,
        /// The step's tool_use id.
        id: String,
        /// Action point x.
        x: i64,
        /// Action point y.
        y: i64,
        /// What went wrong.
        #[source]
        source: VisionError,
    },
    /// Reading or writing the cache failed.
    #[error(transparent)]
    Cache(#[from] CacheError),
    /// The recording a repaired one replaces could not be kept.
    #[error("{}: cannot keep the previous recording: {source}", path.display())]
    KeepPrevious {
        /// Where the copy was to go.
        path: PathBuf,
        /// What the file system said.
        #[source]
        source: std::io::Error,
    },
    /// The parameter-identification model call failed.
    #[error("parameter identification: model call failed: {0}")]
    Model(#[from] retrace_llm::VlmError),
    /// The model's parameter list could not be read at all.
    #[error("parameter identification: {0}")]
    Identify(String),
}
