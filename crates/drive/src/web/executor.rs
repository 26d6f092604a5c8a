//! [`WebExecutor`]: sessions, each a page and its variables, and the commands run in them.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;

use serde::Serialize;
use serde_json::Value;

use super::command;
use super::command::Request;
use super::command::WebCommand;
use super::config::WebExecutorConfig;
use super::error::WebError;
use super::run::Run;
use super::session::Session;
use super::session::lock;
use crate::backend::BrowserBackend;
use crate::backend::PageFactory;

/// The session a request without `sessionId` runs in; opened on first use.
pub const DEFAULT_SESSION: &str = "default";

/// What a command did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommandOutcome {
    /// The action (`CLICK_ELEMENT`).
    pub action: String,
    /// The session it ran in (empty for `LIST_SESSIONS`).
    pub session: String,
    /// One line for a model or a log ("Clicked `#sign-in` at (551, 467)").
    pub message: String,
    /// Structured detail: the URL opened, the point clicked, the variable saved, the DOM view,
    /// the session list.
    pub data: Option<Value>,
}

/// One open session, as [`WebExecutor::list_sessions`] describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionInfo {
    /// The session id.
    pub id: String,
    /// The page's URL, or `None` when it cannot be read (the page is gone).
    pub url: Option<String>,
    /// The variables saved in it.
    pub variables: BTreeMap<String, String>,
}

/// Runs web commands in sessions, each a page of one browser. See the module docs.
pub struct WebExecutor {
    pub(super) factory: Arc<dyn PageFactory>,
    pub(super) config: WebExecutorConfig,
    pub(super) sessions: Mutex<BTreeMap<String, Arc<Session>>>,
    pub(super) next_id: AtomicU64,
    /// Serializes session opening, so two requests for the default session open one page.
    pub(super) opening: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for WebExecutor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebExecutor")
            .field("config", &self.config)
            .field("sessions", &self.session_ids())
            .finish()
    }
}

impl WebExecutor {
    /// An executor opening its pages from `factory`.
    pub fn new(factory: Arc<dyn PageFactory>, config: WebExecutorConfig) -> Self {
        Self {
            factory,
            config,
            sessions: Mutex::new(BTreeMap::new()),
            next_id: AtomicU64::new(1),
            opening: tokio::sync::Mutex::new(()),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &WebExecutorConfig {
        &self.config
    }

    /// Opens a session with a new blank page: named `id`, or `session-N` when `None`.
    pub async fn open_session(&self, id: Option<&str>) -> Result<String, WebError> {
        let _opening = self.opening.lock().await;
        let id = match id {
            Some(id) => id.to_owned(),
            None => loop {
                let candidate = format!("session-{}", self.next_id.fetch_add(1, Ordering::Relaxed));
                if !lock(&self.sessions).contains_key(&candidate) {
                    break candidate;
                }
            },
        };
        if lock(&self.sessions).contains_key(&id) {
            return Err(WebError::SessionExists { session: id });
        }
        let page = self
            .factory
            .new_page()
            .await
            .map_err(|source| WebError::Backend {
                action: command::OPEN_SESSION.to_owned(),
                session: id.clone(),
                selector: None,
                source: Box::new(source),
            })?;
        let session = Arc::new(Session {
            page,
            variables: Mutex::new(BTreeMap::new()),
        });
        lock(&self.sessions).insert(id.clone(), session);
        Ok(id)
    }

    /// Closes the session `id` and its page.
    pub async fn close_session(&self, id: &str) -> Result<(), WebError> {
        let session = lock(&self.sessions).remove(id);
        let Some(session) = session else {
            return Err(self.unknown_session(command::CLOSE_SESSION, id));
        };
        session
            .page
            .close()
            .await
            .map_err(|source| WebError::Backend {
                action: command::CLOSE_SESSION.to_owned(),
                session: id.to_owned(),
                selector: None,
                source: Box::new(source),
            })
    }

    /// The ids of the open sessions, sorted.
    pub fn session_ids(&self) -> Vec<String> {
        lock(&self.sessions).keys().cloned().collect()
    }

    /// Every open session with its URL and variables.
    pub async fn list_sessions(&self) -> Vec<SessionInfo> {
        let sessions: Vec<(String, Arc<Session>)> = lock(&self.sessions)
            .iter()
            .map(|(id, session)| (id.clone(), Arc::clone(session)))
            .collect();
        let mut infos = Vec::with_capacity(sessions.len());
        for (id, session) in sessions {
            let url = session.page.current_url().await.ok();
            let variables = lock(&session.variables).clone();
            infos.push(SessionInfo { id, url, variables });
        }
        infos
    }

    /// The variables saved in session `id`.
    pub fn variables(&self, id: &str) -> Result<BTreeMap<String, String>, WebError> {
        let session = self.session("VARIABLES", id)?;
        let variables = lock(&session.variables).clone();
        Ok(variables)
    }

    /// The page behind session `id`, e.g. to take a screenshot of it.
    pub fn page(&self, id: &str) -> Result<Arc<dyn BrowserBackend>, WebError> {
        Ok(Arc::clone(&self.session("PAGE", id)?.page))
    }

    /// Parses and runs one request in its wire form (see [`Request::from_json`]).
    pub async fn execute_json(&self, value: &Value) -> Result<CommandOutcome, WebError> {
        self.execute_request(Request::from_json(value)?).await
    }

    /// Runs one request. A page command without a session runs in [`DEFAULT_SESSION`],
    /// which is opened when it is not open yet.
    pub async fn execute_request(&self, request: Request) -> Result<CommandOutcome, WebError> {
        match request {
            Request::Page { session, command } => {
                let id = match session {
                    Some(id) => id,
                    None => {
                        self.ensure_default_session().await?;
                        DEFAULT_SESSION.to_owned()
                    }
                };
                self.execute(&id, &command).await
            }
            Request::OpenSession { session } => {
                let id = self.open_session(session.as_deref()).await?;
                Ok(CommandOutcome {
                    action: command::OPEN_SESSION.to_owned(),
                    message: format!("Opened session `{id}`"),
                    data: Some(serde_json::json!({ "sessionId": id })),
                    session: id,
                })
            }
            Request::CloseSession { session } => {
                let id = session.unwrap_or_else(|| DEFAULT_SESSION.to_owned());
                self.close_session(&id).await?;
                Ok(CommandOutcome {
                    action: command::CLOSE_SESSION.to_owned(),
                    message: format!("Closed session `{id}`"),
                    data: None,
                    session: id,
                })
            }
            Request::ListSessions => {
                let sessions = self.list_sessions().await;
                let ids: Vec<&str> = sessions.iter().map(|s| s.id.as_str()).collect();
                let message = if ids.is_empty() {
                    "No sessions are open".to_owned()
                } else {
                    format!("Open sessions: {}", ids.join(", "))
                };
                Ok(CommandOutcome {
                    action: command::LIST_SESSIONS.to_owned(),
                    session: String::new(),
                    message,
                    data: Some(serde_json::json!({ "sessions": sessions })),
                })
            }
        }
    }

    async fn ensure_default_session(&self) -> Result<(), WebError> {
        if lock(&self.sessions).contains_key(DEFAULT_SESSION) {
            return Ok(());
        }
        match self.open_session(Some(DEFAULT_SESSION)).await {
            Ok(_) | Err(WebError::SessionExists { .. }) => Ok(()),
            Err(error) => Err(error),
        }
    }

    /// Runs `command` in session `id`.
    pub async fn execute(
        &self,
        id: &str,
        command: &WebCommand,
    ) -> Result<CommandOutcome, WebError> {
        let session = self.session(command.action(), id)?;
        let run = Run {
            config: &self.config,
            session: &session,
            id,
            action: command.action(),
            selector: command.selector(),
        };
        let (message, data) = match command {
            WebCommand::OpenPage { url } => run.open_page(url).await?,
            WebCommand::ClickElement { selector } => run.click(selector).await?,
            WebCommand::InputText { selector, text } => run.input_text(selector, text).await?,
            WebCommand::SaveVariable {
                selector,
                variable_name,
            } => run.save_variable(selector, variable_name).await?,
            WebCommand::GetDom => run.get_dom().await?,
        };
        Ok(CommandOutcome {
            action: command.action().to_owned(),
            session: id.to_owned(),
            message,
            data,
        })
    }

    fn session(&self, action: &str, id: &str) -> Result<Arc<Session>, WebError> {
        // The guard must be gone before `unknown_session` locks the map again.
        let found = lock(&self.sessions).get(id).cloned();
        found.ok_or_else(|| self.unknown_session(action, id))
    }

    fn unknown_session(&self, action: &str, id: &str) -> WebError {
        let ids = self.session_ids();
        WebError::UnknownSession {
            action: action.to_owned(),
            session: id.to_owned(),
            open: if ids.is_empty() {
                "none".to_owned()
            } else {
                ids.join(", ")
            },
        }
    }
}
