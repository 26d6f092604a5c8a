//! `retrace cache list`: the cache files in a directory, one line each.

use std::path::PathBuf;

use retrace_cache::CacheStore;
use retrace_cache::ListEntry;
use retrace_cache::format_timestamp;
use serde_json::Value;
use serde_json::json;

use super::text::print_json;
use super::text::shorten;
use crate::outcome::Outcome;
use crate::output::out;

/// List the cache files (top-level `*.json`) in a cache directory: steps, hashed steps,
/// parameters, replay counts and goal. Invalidated files are hidden unless
/// `--include-invalid`; files that cannot be read are reported on stderr and do not stop the
/// listing.
///
/// Examples:
///   retrace cache list
///   retrace cache list --dir recordings --include-invalid --json
#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// The cache directory.
    #[arg(long, default_value = ".retrace_cache", env = "RETRACE_CACHE_DIR")]
    pub dir: PathBuf,
    /// Also list invalidated files.
    #[arg(long)]
    pub include_invalid: bool,
    /// Print one JSON document instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Lists the directory.
pub fn run(args: ListArgs) -> anyhow::Result<Outcome> {
    let store = CacheStore::new(&args.dir);
    let listed = store.list(args.include_invalid)?;
    if args.json {
        print_json(&json!({
            "dir": args.dir.display().to_string(),
            "entries": listed.entries.iter().map(entry_json).collect::<Vec<_>>(),
            "hidden_invalid": listed.hidden_invalid,
            "problems": listed.problems.iter().map(|p| Value::String(p.to_string())).collect::<Vec<_>>(),
        }))?;
        return Ok(Outcome::Pass);
    }
    for problem in &listed.problems {
        eprintln!("retrace: skipped: {problem}");
    }
    if listed.entries.is_empty() {
        out!("no cache files in {}", args.dir.display());
    } else {
        let width = listed
            .entries
            .iter()
            .map(|e| e.name.len())
            .max()
            .unwrap_or(4)
            .max(4);
        out!(
            "{:<width$}  {:>5}  {:>6}  {:>8}  {:>8}  {:<7}  GOAL",
            "NAME",
            "STEPS",
            "HASHED",
            "ATTEMPTS",
            "FAILURES",
            "STATUS"
        );
        for entry in &listed.entries {
            let meta = &entry.file.metadata;
            let hashed = entry
                .file
                .trajectory
                .iter()
                .filter(|s| s.visual_representation.is_some())
                .count();
            let status = if meta.is_valid { "valid" } else { "invalid" };
            out!(
                "{:<width$}  {:>5}  {:>6}  {:>8}  {:>8}  {:<7}  {}",
                entry.name,
                entry.file.trajectory.len(),
                hashed,
                meta.execution_attempts,
                meta.failures.len(),
                status,
                shorten(meta.goal.as_deref().unwrap_or("-"), 60),
            );
        }
    }
    if listed.hidden_invalid > 0 {
        out!(
            "({} invalidated file(s) hidden; --include-invalid shows them)",
            listed.hidden_invalid
        );
    }
    Ok(Outcome::Pass)
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
