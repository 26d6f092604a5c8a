//! `retrace cache list`: the cache files in a directory, one line each.

use std::path::PathBuf;

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
    let listed = retrace_runner::cache::list::list(&args.dir, args.include_invalid)?;
    if args.json {
        print_json(&listed.to_json(&args.dir))?;
        return Ok(Outcome::Pass);
    }
    for problem in &listed.problems {
        crate::output::note!("retrace: skipped: {problem}");
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
            let status = if entry.valid { "valid" } else { "invalid" };
            out!(
                "{:<width$}  {:>5}  {:>6}  {:>8}  {:>8}  {:<7}  {}",
                entry.name,
                entry.steps,
                entry.hashed,
                entry.attempts,
                entry.failures,
                status,
                shorten(entry.goal.as_deref().unwrap_or("-"), 60),
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
