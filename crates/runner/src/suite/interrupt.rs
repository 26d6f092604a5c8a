//! [`Interrupt`]: the suite's stop signal (Ctrl-C). Whoever watches the signal triggers it;
//! the scheduler stops starting tests and aborts the running ones when it fires.

use std::sync::Arc;

use tokio::sync::watch;

/// A one-way stop flag that can be awaited. Clones share it.
#[derive(Debug, Clone)]
pub struct Interrupt {
    sender: Arc<watch::Sender<bool>>,
}

impl Default for Interrupt {
    fn default() -> Self {
        Self {
            sender: Arc::new(watch::channel(false).0),
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

    /// Whether the flag is raised.
    pub fn is_triggered(&self) -> bool {
        *self.sender.borrow()
    }

    /// Returns once the flag is raised.
    pub async fn triggered(&self) {
        let mut receiver = self.sender.subscribe();
        let _ = receiver.wait_for(|raised| *raised).await;
    }
}
