//! The web executor: command-level browser automation by CSS selector, for agents that answer
//! in structured JSON rather than with screen coordinates (the command set of the seed design:
//! `OPEN_PAGE`, `CLICK_ELEMENT`, `INPUT_TEXT`, `SAVE_VARIABLE`, `GET_DOM`).
//!
//! - [`WebExecutor`] owns **sessions**: each is one page from a [`PageFactory`] plus its own
//!   variables map, opened, listed and closed by id. Commands run in one session.
//! - [`Request`] parses the wire form `{"sessionId"?, "action", "parameters"}` (what
//!   retrace-schema's `ExecutorCommand` serializes to); a missing `sessionId` means the
//!   [`DEFAULT_SESSION`], opened on first use.
//! - [`WebExecutorTool`] offers the same to a model as the `web_executor` [`crate::tool::Tool`].
//!
//! Every command waits rather than sleeps: `OPEN_PAGE` for the load event and network idle,
//! `CLICK_ELEMENT` and `INPUT_TEXT` until the element is visible, enabled, uncovered and
//! still, `SAVE_VARIABLE` until it exists; each up to a timeout, after which the error names
//! the command, the selector, the session and what was last seen.
//!
//! It does not resolve `${variable}` references (retrace-schema does that before a command
//! reaches the executor), and it never echoes the text typed by `INPUT_TEXT` (it may be a
//! password).
//!
//! ```no_run
//! # async fn demo(factory: std::sync::Arc<dyn retrace_drive::backend::PageFactory>) -> Result<(), retrace_drive::web::WebError> {
//! use retrace_drive::web::{WebCommand, WebExecutor, WebExecutorConfig};
//!
//! let executor = WebExecutor::new(factory, WebExecutorConfig::default());
//! let session = executor.open_session(None).await?;
//! executor
//!     .execute(&session, &WebCommand::OpenPage { url: "http://127.0.0.1:8080/".into() })
//!     .await?;
//! executor
//!     .execute(&session, &WebCommand::ClickElement { selector: "#sign-in".into() })
//!     .await?;
//! # Ok(())
//! # }
//! ```

mod command;
mod config;
mod dom_view;
mod element;
mod error;
mod executor;
mod run;
mod session;
mod tool;

pub use self::command::ACTIONS;
pub use self::command::OPEN_PAGE;
pub use self::command::Request;
pub use self::command::WebCommand;
pub use self::command::check_variable_name;
pub use self::command::url_refusal;
pub use self::config::WebExecutorConfig;
pub use self::dom_view::bound_dom;
pub use self::error::WebError;
pub use self::executor::CommandOutcome;
pub use self::executor::DEFAULT_SESSION;
pub use self::executor::SessionInfo;
pub use self::executor::WebExecutor;
pub use self::tool::WebExecutorTool;
