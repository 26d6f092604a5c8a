//! [`StateStore`]: what suite runs learn about each trajectory (attempts, failures, the last
//! run, whether validators retired it), kept in `.retrace_state/` beside the suite instead of
//! in the trajectory, so a committed trajectory stays byte-identical run after run.
//!
//! One JSON file per trajectory, named from its test id, holding the content hash of the
//! trajectory it describes: when the file changes (re-recorded, approved), its old state no
//! longer applies and it starts afresh. Writes are atomic (a temporary file renamed over).
//! The shapes are askui's (`execution_attempts`, `failures` with `step_index`,
//! `last_executed_at`), and askui's validators ([`Validators`]) read them after each failure,
//! exactly as they read a trajectory's own metadata.
//!
//! A failed run also keeps what it saw at the failed step ([`FailureEvidence`]: the whole
//! screen as a PNG beside the state, the element found there), so `retrace approve` can
//! re-record that step from it; it describes the same content as the state, and goes with it.
//!
//! The content hash is FNV-1a (64 bits): it only tells a changed file from the same one, so
//! it needs no cryptographic strength.

use std::path::Path;
use std::path::PathBuf;

use jiff::Timestamp;
use retrace_cache::CacheFailure;
use retrace_cache::validators::Validators;
use retrace_protocol::element::ElementInfo;
use retrace_protocol::events::FailureKind;
use retrace_protocol::events::ReplayFailure;
use serde::Deserialize;
use serde::Serialize;

use super::error::SuiteError;

/// The state folder's name, beside the suite.
pub const STATE_DIR: &str = ".retrace_state";

/// What is known about one trajectory.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FileState {
    /// The test id (path relative to the suite).
    pub file: String,
    /// FNV-1a of the trajectory's bytes this state describes.
    pub content_hash: String,
    /// Replays that reached a verdict (passed or failed).
    pub execution_attempts: u64,
    /// Every failure, oldest first (askui's shape: 0-based `step_index`).
    pub failures: Vec<CacheFailure>,
    /// When a replay last passed.
    #[serde(default)]
    pub last_executed_at: Option<Timestamp>,
    /// When it last ran, whatever the result.
    #[serde(default)]
    pub last_run_at: Option<Timestamp>,
    /// False once a validator retired it.
    pub is_valid: bool,
    /// Why it was retired.
    pub invalidation_reason: Option<String>,
    /// What the last failed run saw at its failed step, for `retrace approve`; cleared when
    /// a run passes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_failure: Option<FailureEvidence>,
}

/// What a failed run saw at the step that failed: enough to re-record that step's hash, crop
/// and element as they are now ([`crate::approve`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailureEvidence {
    /// The 1-based step that failed.
    pub step: usize,
    /// How it failed (a mismatch before acting, an effect after...).
    pub kind: FailureKind,
    /// The failure's account.
    pub message: String,
    /// The whole screen seen when it failed (trajectory coordinates), a PNG file in the
    /// state folder; `None` when it could not be kept.
    pub screen: Option<String>,
    /// The element found at the step's point, when a check asking the page failed (no field
    /// value: it may be a secret).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<ElementInfo>,
}

impl FileState {
    /// Counts one run that ended at `at` with `verdict`; after a failure, `retire` (the
    /// validators) gets the state so far and the failed 0-based step, and returns a reason
    /// to retire the file, if any.
    pub fn count_run(
        &mut self,
        verdict: &RunVerdict,
        at: Timestamp,
        retire: impl FnOnce(&FileState, u64) -> Option<String>,
    ) {
        self.last_run_at = Some(at);
        match verdict {
            RunVerdict::Passed => {
                self.execution_attempts += 1;
                self.last_executed_at = Some(at);
            }
            RunVerdict::Failed { step, message } => {
                self.execution_attempts += 1;
                let step_index = step.saturating_sub(1) as u64;
                let earlier = self
                    .failures
                    .iter()
                    .filter(|failure| failure.step_index == step_index)
                    .count() as u64;
                self.failures.push(CacheFailure {
                    timestamp: at,
                    step_index,
                    error_message: message.clone(),
                    failure_count_at_step: earlier + 1,
                    extra: serde_json::Map::new(),
                });
                if let Some(reason) = retire(self, step_index) {
                    self.is_valid = false;
                    self.invalidation_reason = Some(reason);
                }
            }
            RunVerdict::Error => {}
        }
    }
}

/// The validators' reason to retire a trajectory whose own metadata is `metadata`, reading
/// `state` as its run history.
pub fn retire_reason(
    validators: &Validators,
    mut metadata: retrace_cache::CacheMetadata,
    state: &FileState,
    step_index: u64,
    now: Timestamp,
) -> Option<String> {
    metadata.execution_attempts = state.execution_attempts;
    metadata.failures = state.failures.clone();
    metadata.last_executed_at = state.last_executed_at;
    validators.invalidation_reason(&metadata, Some(step_index), now)
}

/// How a run of a trajectory ended, as the state store counts it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum RunVerdict {
    /// It replayed to its end.
    Passed,
    /// It failed at this 1-based step.
    Failed {
        /// The step.
        step: usize,
        /// Why.
        message: String,
    },
    /// It could not run (not counted as an attempt).
    Error,
}

/// The `.retrace_state/` folder of a suite.
#[derive(Debug)]
pub struct StateStore {
    dir: PathBuf,
    validators: Validators,
}

impl StateStore {
    /// The store in `root/.retrace_state/`, with askui's default validators.
    pub fn beside(root: &Path) -> Self {
        Self {
            dir: root.join(STATE_DIR),
            validators: Validators::default(),
        }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The state of test `id` whose trajectory is `file`: fresh when there is none yet, or
    /// when it describes other content. An unreadable state file is a warning and a fresh
    /// start, never a reason not to run.
    pub fn load(&self, id: &str, file: &Path) -> FileState {
        let fresh = FileState {
            file: id.to_owned(),
            content_hash: content_hash(file),
            is_valid: true,
            ..FileState::default()
        };
        let path = self.path_of(id);
        let Ok(text) = std::fs::read_to_string(&path) else {
            return fresh;
        };
        match serde_json::from_str::<FileState>(&text) {
            Ok(state) if state.content_hash == fresh.content_hash => state,
            Ok(_) => fresh,
            Err(error) => {
                tracing::warn!("ignoring {}: {error}", path.display());
                fresh
            }
        }
    }

    /// Why `file` must not run: the trajectory's own metadata says it is invalid, or the
    /// state store does.
    pub fn invalid_reason(&self, id: &str, file: &Path) -> Option<String> {
        if let Some(reason) = marked_invalid(file) {
            return Some(reason);
        }
        let state = self.load(id, file);
        (!state.is_valid).then(|| {
            state
                .invalidation_reason
                .unwrap_or_else(|| format!("marked invalid in {STATE_DIR}/"))
        })
    }

    /// Counts one run of test `id` and runs the validators after a failure; writes the state
    /// atomically and returns it.
    pub fn record(
        &self,
        id: &str,
        file: &Path,
        verdict: &RunVerdict,
    ) -> Result<FileState, SuiteError> {
        let mut state = self.load(id, file);
        // Microseconds, as askui writes timestamps (and as they read back).
        let now = Timestamp::now();
        let now = Timestamp::from_microsecond(now.as_microsecond()).unwrap_or(now);
        if matches!(verdict, RunVerdict::Passed) {
            // A pass leaves nothing to approve: the kept screen of the last failure goes.
            if let Some(screen) = state.last_failure.take().and_then(|kept| kept.screen) {
                let _ = std::fs::remove_file(self.dir.join(screen));
            }
        }
        state.count_run(verdict, now, |state, step_index| {
            self.validate(state, file, step_index, now)
        });
        self.write(id, &state)?;
        Ok(state)
    }

    /// The validators' reason to retire the file, reading `state` as its metadata.
    fn validate(
        &self,
        state: &FileState,
        file: &Path,
        step_index: u64,
        now: Timestamp,
    ) -> Option<String> {
        let cache =
            retrace_cache::read_cache_file(file, retrace_cache::DEFAULT_MAX_FILE_SIZE).ok()?;
        retire_reason(&self.validators, cache.metadata, state, step_index, now)
    }

    /// Keeps what the failed run of test `id` saw at its failed step: the whole screen as
    /// `<state name>.failed-step.png` beside its state, and the facts in its state (replacing
    /// those of an earlier failure). Call after [`StateStore::record`] counted the failure.
    pub fn keep_failure(
        &self,
        id: &str,
        file: &Path,
        failure: &ReplayFailure,
    ) -> Result<FileState, SuiteError> {
        let mut state = self.load(id, file);
        let screen = match &failure.actual_screen {
            Some(png) => {
                self.create_dir()?;
                let path = self.screen_path_of(id);
                retrace_cache::atomic_write(&path, png.bytes()).map_err(|error| {
                    SuiteError::io(&path, std::io::Error::other(error.to_string()))
                })?;
                path.file_name()
                    .map(|name| name.to_string_lossy().into_owned())
            }
            None => None,
        };
        state.last_failure = Some(FailureEvidence {
            step: failure.step,
            kind: failure.kind,
            message: failure.message.clone(),
            screen,
            element: failure.actual_element.as_deref().cloned(),
        });
        self.write(id, &state)?;
        Ok(state)
    }

    fn write(&self, id: &str, state: &FileState) -> Result<(), SuiteError> {
        self.create_dir()?;
        let path = self.path_of(id);
        let text = serde_json::to_string_pretty(state)
            .map_err(|error| SuiteError::io(&path, std::io::Error::other(error.to_string())))?;
        retrace_cache::atomic_write(&path, text.as_bytes())
            .map_err(|error| SuiteError::io(&path, std::io::Error::other(error.to_string())))
    }

    /// Creates the folder with a `.gitignore` that ignores all of it (as pytest's cache
    /// does): run state is this machine's history, and a repository's `git status` stays
    /// clean after a run.
    fn create_dir(&self) -> Result<(), SuiteError> {
        std::fs::create_dir_all(&self.dir).map_err(|source| SuiteError::io(&self.dir, source))?;
        let ignore = self.dir.join(".gitignore");
        if !ignore.exists() {
            retrace_cache::atomic_write(
                &ignore,
                b"# retrace's run state: this machine's history\n*\n",
            )
            .map_err(|error| SuiteError::io(&ignore, std::io::Error::other(error.to_string())))?;
        }
        Ok(())
    }

    /// The state file of test `id`: its path with separators spelled `__`.
    pub fn path_of(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{}.state.json", state_name(id)))
    }

    /// Where the screen of test `id`'s last failed step is kept.
    pub fn screen_path_of(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{}.failed-step.png", state_name(id)))
    }
}

/// Test `id` as a file name: separators spelled `__`.
fn state_name(id: &str) -> String {
    let name: String = id
        .chars()
        .map(|c| if c == '/' || c == '\\' { '~' } else { c })
        .collect();
    name.replace('~', "__")
}

/// Why `file` must not run according to its own metadata (`is_valid: false`), if it says.
pub fn marked_invalid(file: &Path) -> Option<String> {
    let cache = retrace_cache::read_cache_file(file, retrace_cache::DEFAULT_MAX_FILE_SIZE).ok()?;
    (!cache.metadata.is_valid).then(|| {
        cache
            .metadata
            .invalidation_reason
            .unwrap_or_else(|| "marked invalid in the file".into())
    })
}

/// FNV-1a (64 bits) of the file's bytes, as 16 hex digits; empty when it cannot be read.
pub fn content_hash(file: &Path) -> String {
    std::fs::read(file)
        .map(|bytes| retrace_protocol::stable_hash::fnv1a64_hex(&bytes))
        .unwrap_or_default()
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
