//! [`MetadataWriter`]: what a replay writes into its trajectory file's metadata, off the async
//! runtime.
//!
//! A failed step adds a failure (and an attempt), a completed replay an attempt (and, through
//! the [`ReplayLedger`], the model's later verdict amends that attempt instead of counting a
//! second). The file update takes an exclusive file lock and re-reads the file under it, so
//! parallel replays lose nothing; that lock can block, so each update runs on tokio's blocking
//! pool, never on a runtime worker. A write that fails is a warning, not a replay failure: the
//! replay's result does not depend on it.
//!
//! Failures are filed under askui's 0-based `step_index`, the file format's own numbering.

use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;

use retrace_cache::MetadataUpdate;
use retrace_cache::Validators;

use crate::ledger::ReplayLedger;

/// Writes a replay's results into its file.
#[derive(Debug, Clone)]
pub struct MetadataWriter {
    validators: Arc<Validators>,
    max_file_size: u64,
    ledger: Option<Arc<ReplayLedger>>,
}

impl Default for MetadataWriter {
    fn default() -> Self {
        Self {
            validators: Arc::new(Validators::default()),
            max_file_size: retrace_cache::DEFAULT_MAX_FILE_SIZE,
            ledger: None,
        }
    }
}

impl MetadataWriter {
    /// The same writer noting completed replays in `ledger`.
    pub fn with_ledger(mut self, ledger: Arc<ReplayLedger>) -> Self {
        self.ledger = Some(ledger);
        self
    }

    /// Files a failure at the 0-based `index` of `path`.
    pub async fn record_failure(&self, path: &Path, index: usize, message: &str) {
        let update = MetadataUpdate::RecordFailure {
            step_index: index as u64,
            error_message: message.to_owned(),
        };
        if let Err(error) = self.apply(path, update).await {
            tracing::warn!(
                "could not record the failure in {}: {error}",
                path.display()
            );
        }
    }

    /// Counts a replay of `path` that ran to its end, and notes it in the ledger.
    pub async fn record_completion(&self, path: &Path) {
        match self
            .apply(path, MetadataUpdate::RecordCompletion { success: true })
            .await
        {
            Ok(()) => {
                if let Some(ledger) = &self.ledger {
                    ledger.completed(path);
                }
            }
            Err(error) => tracing::warn!(
                "could not record the completed replay in {}: {error}",
                path.display()
            ),
        }
    }

    async fn apply(&self, path: &Path, update: MetadataUpdate) -> Result<(), String> {
        let (path, validators, max) = (
            PathBuf::from(path),
            Arc::clone(&self.validators),
            self.max_file_size,
        );
        tokio::task::spawn_blocking(move || {
            retrace_cache::update_file(&path, max, &update, &validators)
                .map(|_| ())
                .map_err(|error| error.to_string())
        })
        .await
        .map_err(|error| format!("the update task failed: {error}"))?
    }
}
