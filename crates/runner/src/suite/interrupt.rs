//! [`Interrupt`]: the stop signal of a suite, a replay or a model run (Ctrl-C, SIGTERM).
//! Whoever watches the signal triggers it, naming it; the scheduler stops starting tests and
//! aborts the running ones when it fires, and a replay or a model run ends as an error naming
//! it.

use std::sync::Arc;
use std::sync::OnceLock;

use tokio::sync::watch;

use crate::error::RunnerError;

/// A one-way stop flag that can be awaited. Clones share it.
#[derive(Debug, Clone)]
pub struct Interrupt {
    sender: Arc<watch::Sender<bool>>,
    cause: Arc<OnceLock<String>>,
}

impl Default for Interrupt {
    fn default() -> Self {
        Self {
            sender: Arc::new(watch::channel(false).0),
            cause: Arc::new(OnceLock::new()),
        }
    }
}

impl Interrupt {
    /// A flag not yet raised.
    pub fn new() -> Self {
        Self::default()
    }

    /// Raises the flag (once; later calls do nothing more).
    pub fn trigger(&self) {
        self.sender.send_replace(true);
    }

    /// Raises the flag, naming why (`SIGTERM`); the first cause given is kept.
    pub fn trigger_by(&self, cause: &str) {
        let _ = self.cause.set(cause.to_owned());
        self.trigger();
    }

    /// Why the flag was raised, when [`Interrupt::trigger_by`] said.
    pub fn cause(&self) -> Option<&str> {
        self.cause.get().map(String::as_str)
    }

    /// Whether the flag is raised.
    pub fn is_triggered(&self) -> bool {
        *self.sender.borrow()
    }

    /// Returns once the flag is raised.
    pub async fn triggered(&self) {
        let mut receiver = self.sender.subscribe();
        let _ = receiver.wait_for(|raised| *raised).await;
    }

    /// The error a `session` (`replay`, `model run`) stopped by this flag ends with.
    pub fn error(&self, session: &'static str) -> RunnerError {
        RunnerError::Interrupted {
            signal: self.cause().unwrap_or("an interrupt").to_owned(),
            session,
        }
    }
}
