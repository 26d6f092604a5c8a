//! Errors of the web executor. Each names the command, the selector (when there is one) and
//! the session, so a model (or a person reading a log) knows exactly which step failed.

use crate::error::DriveError;

/// A web executor command failed.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    /// The command itself is malformed (unknown action, missing parameter...).
    #[error("invalid {action} command: {detail}")]
    InvalidCommand {
        /// The action named in the command, or `(no action)`.
        action: String,
        /// What is wrong and what is valid.
        detail: String,
    },
    /// No session has this id.
    #[error("{action}: there is no session `{session}`; open sessions: {open}")]
    UnknownSession {
        /// The action that needed the session.
        action: String,
        /// The id given.
        session: String,
        /// The ids that exist, comma separated, or `none`.
        open: String,
    },
    /// `OPEN_SESSION` with an id already in use.
    #[error("OPEN_SESSION: a session `{session}` is already open")]
    SessionExists {
        /// The id given.
        session: String,
    },
    /// `OPEN_PAGE` with a URL whose scheme is refused.
    #[error("OPEN_PAGE in session `{session}`: refused to open {url:?}: {reason}")]
    UrlRefused {
        /// The session.
        session: String,
        /// The URL given (cut to 200 characters).
        url: String,
        /// Why.
        reason: String,
    },
    /// The selector is not valid CSS.
    #[error("{action} in session `{session}`: selector `{selector}` is not valid CSS: {detail}")]
    BadSelector {
        /// The action.
        action: String,
        /// The session.
        session: String,
        /// The selector given.
        selector: String,
        /// The browser's complaint.
        detail: String,
    },
    /// No element matched the selector before the timeout.
    #[error(
        "{action} in session `{session}`: no element matches selector `{selector}` after \
         {timeout_ms} ms (page: {url})"
    )]
    ElementNotFound {
        /// The action.
        action: String,
        /// The session.
        session: String,
        /// The selector given.
        selector: String,
        /// How long it waited.
        timeout_ms: u64,
        /// The page it looked at.
        url: String,
    },
    /// An element matched, but never became usable (hidden, disabled, covered...).
    #[error(
        "{action} in session `{session}`: element `{selector}` {state} after {timeout_ms} ms; \
         it must be visible, enabled and not covered"
    )]
    NotActionable {
        /// The action.
        action: String,
        /// The session.
        session: String,
        /// The selector given.
        selector: String,
        /// The last state seen ("is hidden", "is disabled", "is covered by div#modal").
        state: String,
        /// How long it waited.
        timeout_ms: u64,
    },
    /// The backend failed while running the command.
    #[error("{action} in session `{session}`{}: {source}", selector_part(selector.as_deref()))]
    Backend {
        /// The action.
        action: String,
        /// The session.
        session: String,
        /// The selector, when the command had one.
        selector: Option<String>,
        /// The backend's error (boxed: it is the largest variant).
        source: Box<DriveError>,
    },
}

fn selector_part(selector: Option<&str>) -> String {
    selector.map_or_else(String::new, |selector| format!(" (selector `{selector}`)"))
}

impl WebError {
    /// Whether the browser is gone, so no later command can succeed either.
    pub fn is_fatal(&self) -> bool {
        matches!(
            self,
            WebError::Backend { source, .. }
                if matches!(**source, DriveError::BackendGone { .. } | DriveError::Launch { .. })
        )
    }
}
