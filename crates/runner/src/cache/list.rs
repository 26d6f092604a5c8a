//! `retrace cache list`: the cache files in a directory, each summed up in an [`Entry`].

use std::path::Path;

use retrace_cache::CacheStore;
use retrace_cache::ListEntry;
use retrace_cache::format_timestamp;
use serde_json::Value;
use serde_json::json;

use crate::failure::Failure;

/// One listed file.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The file name (`login.json`).
    pub name: String,
    /// Steps in its trajectory.
    pub steps: usize,
    /// Steps with a recorded hash.
    pub hashed: usize,
    /// Replays counted.
    pub attempts: u64,
    /// Replay failures recorded.
    pub failures: usize,
    /// Whether it is still valid.
    pub valid: bool,
    /// The goal it was recorded for.
    pub goal: Option<String>,
}

/// A directory's listing.
#[derive(Debug, Clone)]
pub struct Listing {
    /// The files listed, by name.
    pub entries: Vec<Entry>,
    /// Invalidated files left out.
    pub hidden_invalid: usize,
    /// Files that could not be read, each with the reason.
    pub problems: Vec<String>,
    /// Each entry as `--json` shows it.
    documents: Vec<Value>,
}

impl Listing {
    /// The listing as one JSON document (`--json`), for the directory `dir`.
    pub fn to_json(&self, dir: &Path) -> Value {
        json!({
            "dir": dir.display().to_string(),
            "entries": self.documents,
            "hidden_invalid": self.hidden_invalid,
            "problems": self.problems.iter().map(|p| Value::String(p.clone())).collect::<Vec<_>>(),
        })
    }
}

/// Lists the top-level `*.json` cache files of `dir`; invalidated ones only when
/// `include_invalid`. A file that cannot be read is one of [`Listing::problems`].
pub fn list(dir: &Path, include_invalid: bool) -> Result<Listing, Failure> {
    let listed = CacheStore::new(dir)
        .list(include_invalid)
        .map_err(Failure::of)?;
    Ok(Listing {
        entries: listed.entries.iter().map(entry).collect(),
        hidden_invalid: listed.hidden_invalid,
        problems: listed.problems.iter().map(ToString::to_string).collect(),
        documents: listed.entries.iter().map(entry_json).collect(),
    })
}

fn entry(entry: &ListEntry) -> Entry {
    let meta = &entry.file.metadata;
    Entry {
        name: entry.name.clone(),
        steps: entry.file.trajectory.len(),
        hashed: entry
            .file
            .trajectory
            .iter()
            .filter(|s| s.visual_representation.is_some())
            .count(),
        attempts: meta.execution_attempts,
        failures: meta.failures.len(),
        valid: meta.is_valid,
        goal: meta.goal.clone(),
    }
}

fn entry_json(entry: &ListEntry) -> Value {
    let file = &entry.file;
    let meta = &file.metadata;
    json!({
        "name": entry.name,
        "path": entry.path.display().to_string(),
        "format": file.format,
        "version": meta.version,
        "goal": meta.goal,
        "created_at": format_timestamp(meta.created_at),
        "last_executed_at": meta.last_executed_at.map(format_timestamp),
        "steps": file.trajectory.len(),
        "hashed_steps": file.trajectory.iter().filter(|s| s.visual_representation.is_some()).count(),
        "parameters": file.cache_parameters.keys().collect::<Vec<_>>(),
        "execution_attempts": meta.execution_attempts,
        "failures": meta.failures.len(),
        "is_valid": meta.is_valid,
        "invalidation_reason": meta.invalidation_reason,
    })
}
