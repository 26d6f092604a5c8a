//! [`SuiteState`]: where a suite's run state goes. A suite on disk keeps one file per
//! trajectory in `.retrace_state/` ([`StateStore`]); a suite in a [`Store`] (`retrace run
//! s3://bucket/suite/`) adds one record per run under the store's `.retrace_state/`
//! ([`RunRecords`]), so machines running the same suite at once never overwrite each other.
//! Both are read by the same validators and skip the same invalid files.

use std::path::Path;

use retrace_protocol::events::ReplayFailure;

use super::state::RunVerdict;
use super::state::StateStore;
use super::state::marked_invalid;
use crate::store::Store;
use crate::store::run_records::RunRecords;

/// A suite's run state.
#[derive(Debug)]
pub enum SuiteState {
    /// `.retrace_state/` beside a suite on disk.
    Files(StateStore),
    /// Run records in the suite's store.
    Records(RunRecords),
}

impl SuiteState {
    /// The state of a suite rooted at `root`, kept in `store` when there is one.
    pub fn new(root: &Path, store: Option<&Store>) -> Self {
        match store {
            Some(store) => SuiteState::Records(RunRecords::new(store.clone())),
            None => SuiteState::Files(StateStore::beside(root)),
        }
    }

    /// Why test `id` (trajectory `file`) must not run, if it must not.
    pub async fn invalid_reason(&self, id: &str, file: &Path) -> Option<String> {
        match self {
            SuiteState::Files(state) => state.invalid_reason(id, file),
            SuiteState::Records(records) => {
                if let Some(reason) = marked_invalid(file) {
                    return Some(reason);
                }
                let bytes = std::fs::read(file).ok()?;
                match records.load(id, &bytes).await {
                    Ok(state) => (!state.is_valid).then(|| {
                        state.invalidation_reason.unwrap_or_else(|| {
                            format!("marked invalid in {}", records.store().name())
                        })
                    }),
                    Err(error) => {
                        tracing::warn!("could not read the run state of {id}: {error}");
                        None
                    }
                }
            }
        }
    }

    /// Counts one run of test `id`.
    pub async fn record(&self, id: &str, file: &Path, verdict: &RunVerdict) -> Result<(), String> {
        match self {
            SuiteState::Files(state) => state
                .record(id, file, verdict)
                .map(|_| ())
                .map_err(|e| e.to_string()),
            SuiteState::Records(records) => {
                let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
                records
                    .record(id, &bytes, verdict)
                    .await
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            }
        }
    }

    /// Keeps what the failed step of test `id` saw, for `retrace approve`. Only a suite on
    /// disk keeps it (approve rewrites a local file); a stored suite's failures are counted
    /// in its run records only.
    pub fn keep_failure(
        &self,
        id: &str,
        file: &Path,
        failure: &ReplayFailure,
    ) -> Result<(), String> {
        match self {
            SuiteState::Files(state) => state
                .keep_failure(id, file, failure)
                .map(|_| ())
                .map_err(|e| e.to_string()),
            SuiteState::Records(_) => Ok(()),
        }
    }
}
