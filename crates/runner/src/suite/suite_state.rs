//! [`SuiteState`]: where a suite's run state goes. A suite on disk keeps one file per
//! trajectory in `.retrace_state/` ([`StateStore`]) of the suite file's folder, or without a
//! suite file where `retrace replay` keeps it; a suite in a [`Store`] (`retrace run
//! s3://bucket/suite/`) adds one record per run under the store's `.retrace_state/`
//! ([`RunRecords`]), so machines running the same suite at once never overwrite each other.
//! Both are read by the same validators and skip the same invalid files.

use std::path::Path;
use std::path::PathBuf;

use retrace_protocol::events::ReplayFailure;

use super::plan::test_id;
use super::state::RunVerdict;
use super::state::StateStore;
use super::state::marked_invalid;
use crate::replay_state::state_root;
use crate::store::Store;
use crate::store::run_records::RunRecords;

/// A suite's run state.
#[derive(Debug)]
pub enum SuiteState {
    /// `.retrace_state/` on disk, in the suite file's folder (`Some`), or without a suite file
    /// (`None`) where `retrace replay` keeps a file's runs ([`state_root`]): the current
    /// folder for a file inside it, else the file's own folder.
    Files(Option<PathBuf>),
    /// Run records in the suite's store.
    Records(RunRecords),
}

impl SuiteState {
    /// The state of a suite whose state folder is `root` (see [`SuiteState::Files`]), kept in
    /// `store` when there is one.
    pub fn new(root: Option<&Path>, store: Option<&Store>) -> Self {
        match store {
            Some(store) => SuiteState::Records(RunRecords::new(store.clone())),
            None => SuiteState::Files(root.map(Path::to_path_buf)),
        }
    }

    /// The `.retrace_state/` keeping `file`'s runs, and the file's id in it: `root`'s (a suite
    /// file's folder), else where `retrace replay` keeps them.
    pub fn on_disk(root: Option<&PathBuf>, file: &Path) -> (StateStore, String) {
        let root = root.cloned().unwrap_or_else(|| state_root(file));
        (StateStore::beside(&root), test_id(&root, file))
    }

    /// Why test `id` (trajectory `file`) must not run, if it must not.
    pub async fn invalid_reason(&self, id: &str, file: &Path) -> Option<String> {
        match self {
            SuiteState::Files(root) => {
                let (state, id) = Self::on_disk(root.as_ref(), file);
                state.invalid_reason(&id, file)
            }
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
            SuiteState::Files(root) => {
                let (state, id) = Self::on_disk(root.as_ref(), file);
                state
                    .record(&id, file, verdict)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            }
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

    /// Keeps what the failed step of trajectory `file` saw, for `retrace approve`. Only a
    /// suite on disk keeps it (approve rewrites a local file); a stored suite's failures are
    /// counted in its run records only.
    pub fn keep_failure(&self, file: &Path, failure: &ReplayFailure) -> Result<(), String> {
        match self {
            SuiteState::Files(root) => {
                let (state, id) = Self::on_disk(root.as_ref(), file);
                state
                    .keep_failure(&id, file, failure)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            }
            SuiteState::Records(_) => Ok(()),
        }
    }
}
