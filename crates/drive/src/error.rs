//! Errors of the drive crate. Every variant says what was being done when it happened.

/// An error from a backend or a tool's use of it.
#[derive(Debug, thiserror::Error)]
pub enum DriveError {
    /// The browser or display went away while doing `doing`.
    #[error("the {backend} backend died while {doing}: {detail}")]
    BackendGone {
        /// Which backend ("chromium", "x11").
        backend: String,
        /// What was being done ("taking a screenshot", "clicking at (10, 20)").
        doing: String,
        /// The underlying cause as text.
        detail: String,
    },
    /// The backend answered, but the operation failed.
    #[error("{backend}: {doing} failed: {detail}")]
    Operation {
        /// Which backend.
        backend: String,
        /// What was being done.
        doing: String,
        /// The underlying cause as text.
        detail: String,
    },
    /// The backend could not be started or reached.
    #[error("cannot start or reach the {backend} backend: {detail}")]
    Launch {
        /// Which backend.
        backend: String,
        /// Why.
        detail: String,
    },
    /// The session on a remote browser (one we connected to: a farm, a Grid, a browser in a
    /// container) ended while doing `doing`: its connection closed or the remote end dropped
    /// the session. An infrastructure failure, not a test failure; a new session may work.
    #[error("the remote browser session at {endpoint} was lost while {doing}: {detail}")]
    SessionLost {
        /// The endpoint, as the user gave it but without credentials.
        endpoint: String,
        /// What was being done.
        doing: String,
        /// The underlying cause as text.
        detail: String,
    },
    /// A browser farm or Grid stayed busy (HTTP 429, 503, "queue full") through every retry.
    /// An infrastructure failure; trying later may work.
    #[error("{endpoint} stayed busy after {retries} retries: {detail}")]
    Busy {
        /// The endpoint, without credentials.
        endpoint: String,
        /// How many times it was retried.
        retries: u32,
        /// The last answer.
        detail: String,
    },
    /// An argument was out of range or malformed (a key name, a point off screen).
    #[error("{0}")]
    InvalidInput(String),
    /// The backend cannot do or tell this at all (a DOM question to a backend without a DOM);
    /// the caller falls back (replay checks visually).
    #[error("the {backend} backend cannot tell {what}")]
    Unsupported {
        /// Which backend.
        backend: String,
        /// What was asked ("the element at (10, 20)").
        what: String,
    },
    /// The page opened a JavaScript dialog nobody expected while `doing` (retrace dismissed
    /// it so nothing hangs): what the page did, not a fault of the backend; the model reads
    /// it and a replay fails the step.
    #[error("{backend}: {doing}: {detail}")]
    UnexpectedDialog {
        /// Which backend.
        backend: String,
        /// What was being done.
        doing: String,
        /// The dialogs, by kind and message.
        detail: String,
    },
    /// Waiting for something took longer than allowed.
    #[error("timed out after {timeout_ms} ms while {doing}")]
    Timeout {
        /// What was being waited for.
        doing: String,
        /// The limit that passed.
        timeout_ms: u64,
    },
}

impl DriveError {
    /// Whether this is a failure of the infrastructure (the browser, the farm, the connection)
    /// rather than of what was being tested: the run should end as an error, not a failure.
    pub fn is_infrastructure(&self) -> bool {
        matches!(
            self,
            Self::BackendGone { .. }
                | Self::Launch { .. }
                | Self::SessionLost { .. }
                | Self::Busy { .. }
        )
    }

    /// Whether running again on a fresh session may succeed: a lost remote session or a farm
    /// that was busy.
    pub fn is_retryable(&self) -> bool {
        matches!(self, Self::SessionLost { .. } | Self::Busy { .. })
    }
}
