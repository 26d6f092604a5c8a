//! The run state of `retrace replay` on a file on disk: counted in `.retrace_state/` of the
//! current folder (a file outside the current folder: in its own folder's), as `retrace run`
//! and `retrace approve` keep it without a suite file, never in the trajectory, so replaying a committed recording
//! leaves it byte for byte as it was. `--write-metadata` writes the metadata into the file
//! instead, as askui does.

use std::path::Path;
use std::path::PathBuf;

use retrace_protocol::events::SessionReport;

use crate::error::RunnerError;
use crate::stored_replay::verdict_of;
use crate::suite::plan::test_id;
use crate::suite::state::RunVerdict;
use crate::suite::state::StateStore;

/// The folder whose `.retrace_state/` counts replays of `file`: the current folder when
/// `file` is inside it (where `retrace run` and `retrace approve` look), else `file`'s own.
pub fn state_root(file: &Path) -> PathBuf {
    let current = Path::new(".");
    let inside = match (std::path::absolute(current), std::path::absolute(file)) {
        (Ok(current), Ok(file)) => file.starts_with(current),
        _ => false,
    };
    if inside {
        return current.to_path_buf();
    }
    file.parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .map_or_else(|| current.to_path_buf(), Path::to_path_buf)
}

/// The folder whose `.retrace_state/` keeps `file`'s runs for `retrace run` and `retrace
/// approve`: the folder of `suite_file` when there is one, else [`state_root`] (where
/// `retrace replay` keeps them).
pub fn state_root_in_suite(suite_file: Option<&Path>, file: &Path) -> PathBuf {
    match suite_file {
        Some(suite) => suite
            .parent()
            .filter(|parent| !parent.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
        None => state_root(file),
    }
}

/// Counts `report`'s replay of `file` in `.retrace_state/` of its [`state_root`] (and keeps a failed step's
/// evidence for `retrace approve`); returns the state file written, or `None` for a session
/// that ended in an error (not an attempt: nothing to count, as in a suite).
pub fn record_replay_state(
    file: &Path,
    report: &SessionReport,
) -> Result<Option<PathBuf>, RunnerError> {
    let verdict = verdict_of(report);
    if matches!(verdict, RunVerdict::Error) {
        return Ok(None);
    }
    let root = state_root(file);
    let store = StateStore::beside(&root);
    let id = test_id(&root, file);
    let suite_error =
        |error: crate::suite::error::SuiteError| RunnerError::Input(error.to_string());
    store.record(&id, file, &verdict).map_err(suite_error)?;
    let failure = report
        .replay
        .as_ref()
        .and_then(|replay| replay.failure.as_ref());
    if let (RunVerdict::Failed { .. }, Some(failure)) = (&verdict, failure) {
        store
            .keep_failure(&id, file, failure)
            .map_err(suite_error)?;
    }
    Ok(Some(store.path_of(&id)))
}
