//! Replaying a trajectory kept in a [`Store`] (`s3://bucket/flows/login.json`): the file is
//! read from the store into a private temporary folder, replayed like any local file, and the
//! run's verdict is added to the store's run state beside it
//! (`s3://bucket/flows/.retrace_state/login.json/...`, see [`RunRecords`]), so machines that
//! replay the same trajectory share one history without contention.
//!
//! A suite in a store (`retrace run s3://bucket/suite/`) is read the same way:
//! [`download_suite`] copies its files (not its run state) into a private folder, the suite
//! runs from there, and its run state goes to the store (see
//! [`crate::suite::suite_state::SuiteState`]).

use std::path::Path;
use std::path::PathBuf;

use retrace_protocol::events::SessionReport;
use retrace_protocol::events::SessionStatus;

use crate::error::RunnerError;
use crate::store::Key;
use crate::store::Location;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::run_records::RunRecords;
use crate::suite::state::RunVerdict;

/// A trajectory in a store: the store of its folder and its name there.
#[derive(Debug, Clone)]
pub struct StoredTrajectory {
    /// The URL as given.
    pub url: String,
    /// The store of the folder holding it.
    pub store: Store,
    /// Its name in that store.
    pub key: Key,
}

impl StoredTrajectory {
    /// Splits `url` (`s3://bucket/prefix/name.json`) into the store of its folder and its
    /// name, with S3 settings from the environment.
    pub fn parse(url: &str) -> Result<StoredTrajectory, StoreError> {
        let refuse = |message: &str| StoreError::Location {
            location: url.to_owned(),
            message: message.to_owned(),
        };
        let (folder, name) = url
            .trim_end_matches('/')
            .rsplit_once('/')
            .ok_or_else(|| refuse("name a trajectory file: s3://bucket/prefix/name.json"))?;
        if folder.ends_with(':') || folder.ends_with(":/") {
            return Err(refuse(
                "name a trajectory file: s3://bucket/prefix/name.json",
            ));
        }
        Ok(StoredTrajectory {
            url: url.to_owned(),
            store: Location::parse(folder)?.open()?,
            key: Key::new(name)?,
        })
    }

    /// Reads the trajectory into `dir` (under its own name); returns the file and its bytes.
    pub async fn fetch_into(&self, dir: &Path) -> Result<(PathBuf, Vec<u8>), RunnerError> {
        let stored = self
            .store
            .get(&self.key)
            .await
            .map_err(|e| RunnerError::Input(e.to_string()))?
            .ok_or_else(|| RunnerError::Input(format!("{}: no such trajectory", self.url)))?;
        let path = dir.join(self.key.file_name());
        retrace_files::write_atomic(&path, &stored.bytes).map_err(|e| RunnerError::io(&path, e))?;
        Ok((path, stored.bytes))
    }

    /// Adds this run's verdict to the run state beside the trajectory; returns the record's
    /// key in the store.
    pub async fn record_run(
        &self,
        trajectory: &[u8],
        report: &SessionReport,
    ) -> Result<Key, StoreError> {
        RunRecords::new(self.store.clone())
            .record(self.key.as_str(), trajectory, &verdict_of(report))
            .await
    }
}

/// Copies every key of `store` except its run state (`.retrace_state/`) into `dir`, folders
/// kept; returns how many files were copied. Keys are confined, so none lands outside `dir`.
pub async fn download_suite(store: &Store, dir: &Path) -> Result<usize, RunnerError> {
    let store_error = |e: StoreError| RunnerError::Input(e.to_string());
    let keys = store.list(None).await.map_err(store_error)?;
    let mut copied = 0;
    for key in keys {
        if key.as_str().starts_with(".retrace_state/") {
            continue;
        }
        let Some(stored) = store.get(&key).await.map_err(store_error)? else {
            continue; // Deleted since it was listed.
        };
        let path = key
            .as_str()
            .split('/')
            .fold(dir.to_path_buf(), |path, part| path.join(part));
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| RunnerError::io(parent, e))?;
        }
        retrace_files::write_atomic(&path, &stored.bytes).map_err(|e| RunnerError::io(&path, e))?;
        copied += 1;
    }
    Ok(copied)
}

/// How run state counts a replay session: passed, failed at its step, or not run.
pub fn verdict_of(report: &SessionReport) -> RunVerdict {
    match report.status {
        SessionStatus::Passed => RunVerdict::Passed,
        SessionStatus::Failed => {
            let failure = report
                .replay
                .as_ref()
                .and_then(|replay| replay.failure.as_ref());
            RunVerdict::Failed {
                step: failure.map_or(0, |failure| failure.step),
                message: failure.map(|f| f.message.clone()).unwrap_or_default(),
            }
        }
        SessionStatus::Error => RunVerdict::Error,
    }
}
