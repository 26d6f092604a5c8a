//! `retrace cache invalidate` and `retrace cache revalidate`: change only `is_valid` and
//! `invalidation_reason`, under the file's lock, keeping every other field as it was.

use std::path::PathBuf;

use anyhow::bail;
use retrace_runner::cache::mark;
use retrace_runner::cache::mark::Validity;
use serde_json::json;

use super::text::print_json;
use crate::outcome::Outcome;
use crate::output::out;

/// Mark a cache file invalid, so replays and `cache list` skip it. Only `is_valid` and
/// `invalidation_reason` change; everything else in the file, unknown fields included, is
/// kept. The write is atomic and waits for any other process updating the file.
///
/// Example:
///   retrace cache invalidate .retrace_cache/login.json --reason "login page redesigned"
#[derive(Debug, clap::Args)]
pub struct InvalidateArgs {
    /// The cache file.
    pub file: PathBuf,
    /// Why; shown by `cache show` and `cache list`.
    #[arg(long)]
    pub reason: String,
    /// Print the resulting state as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Mark a cache file valid again and clear its invalidation reason. Only `is_valid` and
/// `invalidation_reason` change; failures and counts are kept.
///
/// Example:
///   retrace cache revalidate .retrace_cache/login.json
#[derive(Debug, clap::Args)]
pub struct RevalidateArgs {
    /// The cache file.
    pub file: PathBuf,
    /// Print the resulting state as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Invalidates the file.
pub fn run_invalidate(args: InvalidateArgs) -> anyhow::Result<Outcome> {
    if args.reason.trim().is_empty() {
        bail!("--reason must say why the cache is invalidated");
    }
    let validity = mark::invalidate(&args.file, &args.reason)?;
    print(&args.file, &validity, args.json)
}

/// Revalidates the file.
pub fn run_revalidate(args: RevalidateArgs) -> anyhow::Result<Outcome> {
    let validity = mark::revalidate(&args.file)?;
    print(&args.file, &validity, args.json)
}

fn print(path: &std::path::Path, meta: &Validity, as_json: bool) -> anyhow::Result<Outcome> {
    if as_json {
        print_json(&json!({
            "file": path.display().to_string(),
            "is_valid": meta.is_valid,
            "invalidation_reason": meta.invalidation_reason,
        }))?;
    } else if meta.is_valid {
        out!("{}: valid", path.display());
    } else {
        out!(
            "{}: invalidated: {}",
            path.display(),
            meta.invalidation_reason.as_deref().unwrap_or("")
        );
    }
    Ok(Outcome::Pass)
}
