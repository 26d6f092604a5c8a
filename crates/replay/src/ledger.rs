//! [`ReplayLedger`]: the cache files this process replayed to their end that nobody has
//! judged yet.
//!
//! Every replay counts as one attempt in its file's metadata. A replay that runs to its end
//! counts that attempt at once (so a run that stops before the model verifies still counts
//! it); when the model then verifies the replay, its verdict must not count a second attempt.
//! The cache executor notes each completed replay here and the verify tool takes the note:
//! found, the verdict amends the attempt already counted; not found, the verdict is the
//! attempt.

use std::collections::HashSet;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;

/// Completed replays awaiting a verdict, by file.
#[derive(Debug, Default)]
pub struct ReplayLedger {
    unverified: Mutex<HashSet<PathBuf>>,
}

impl ReplayLedger {
    /// An empty ledger, to share between a cache executor and the cache tools.
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Notes that a replay of `path` ran to its end and counted its attempt.
    pub fn completed(&self, path: &Path) {
        if let Ok(mut unverified) = self.unverified.lock() {
            unverified.insert(key(path));
        }
    }

    /// Takes the note for `path`: true when a completed replay of it awaited a verdict.
    pub fn take(&self, path: &Path) -> bool {
        self.unverified
            .lock()
            .is_ok_and(|mut unverified| unverified.remove(&key(path)))
    }
}

/// One spelling per file: the canonical path when the file exists.
fn key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_is_taken_once_and_matches_other_spellings_of_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("login.json");
        std::fs::write(&file, "{}").unwrap();
        let ledger = ReplayLedger::new();
        assert!(!ledger.take(&file));
        ledger.completed(&dir.path().join(".").join("login.json"));
        assert!(ledger.take(&file));
        assert!(!ledger.take(&file));
    }
}
