//! [`RunnerError`]: why a session could not run. Each becomes a session with status
//! `error` (exit 2): bad input named precisely, or broken infrastructure.

use std::path::PathBuf;

/// Why a session could not run.
#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    /// The user's input cannot be used (a file, a flag, a parameter); the message names it.
    #[error("{0}")]
    Input(String),
    /// A replay stopped before its first step; the reason names the file and what in it.
    #[error("the replay did not start: {0}")]
    NotStarted(String),
    /// The browser could not be started, reached or driven.
    #[error(transparent)]
    Browser(#[from] retrace_drive::DriveError),
    /// A tool could not be set up.
    #[error("setting up the {tool} tool: {message}")]
    Tool {
        /// Which tool.
        tool: &'static str,
        /// What failed.
        message: String,
    },
    /// The conversation stopped on an error (a model that kept failing, a browser gone).
    #[error(transparent)]
    Agent(#[from] retrace_agent::AgentError),
    /// A visual regression check could not run (its spec, its browser, its baseline).
    #[error(transparent)]
    Check(#[from] retrace_check::CheckError),
    /// The web executor could not open or drive its page.
    #[error("the web executor: {0}")]
    Web(#[from] retrace_drive::web::WebError),
    /// The model provider could not be built.
    #[error(transparent)]
    Provider(#[from] retrace_llm::VlmError),
    /// A trajectory file could not be read or written.
    #[error(transparent)]
    Cache(#[from] retrace_cache::CacheError),
    /// The run could not be recorded.
    #[error("recording the run: {0}")]
    Record(#[from] retrace_replay::recorder::RecordError),
    /// The run was stopped from outside (a signal) before it ended.
    #[error("interrupted by {signal}: the {session} was stopped before it ended")]
    Interrupted {
        /// What stopped it (`SIGTERM`).
        signal: String,
        /// What was stopped: `replay`, `model run`.
        session: &'static str,
    },
    /// A file could not be written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the file system said.
        #[source]
        source: std::io::Error,
    },
}

impl RunnerError {
    /// An I/O error at `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        RunnerError::Io {
            path: path.into(),
            source,
        }
    }
}
