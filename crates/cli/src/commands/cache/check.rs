//! `retrace cache check`: whether cache files can be replayed as they are.

use std::path::PathBuf;

use anyhow::bail;
use retrace_cache::DEFAULT_MAX_FILE_SIZE;
use retrace_cache::check;
use retrace_cache::read_cache_file;
use serde_json::Value;
use serde_json::json;

use super::text::print_json;
use crate::outcome::Outcome;
use crate::output::out;

/// Check cache files: each must parse (askui v0.2/v0.3 or a legacy list) and be replayable:
/// known actions of the computer tool with well-formed inputs, points on the recorded screen
/// (metadata.display_size), well-formed `{{placeholders}}` that cache_parameters declares,
/// hashes of 16 hex digits (64 for a 16x16 hash), unique step ids, a known hash method; and
/// still valid, with failures that name existing steps. Prints one line per problem
/// (`FILE: step N: FIELD: PROBLEM`); `retrace replay` and `retrace run` refuse a file for
/// the same errors, in the same words. Exit 1 when any file has a problem, 2 when any file
/// cannot be read.
///
/// Examples:
///   retrace cache check .retrace_cache/login.json
///   retrace cache check .retrace_cache/*.json --json
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The cache files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Checks every file.
pub fn run(args: CheckArgs) -> anyhow::Result<Outcome> {
    let mut reports = Vec::new();
    let mut unreadable = 0;
    let mut with_problems = 0;
    for path in &args.files {
        let shown = path.display().to_string();
        match read_cache_file(path, DEFAULT_MAX_FILE_SIZE) {
            Ok(file) => {
                let problems = check(&file);
                if !problems.is_empty() {
                    with_problems += 1;
                }
                if !args.json {
                    if problems.is_empty() {
                        out!("{shown}: ok ({} steps)", file.trajectory.len());
                    }
                    for problem in &problems {
                        out!("{shown}: {problem}");
                    }
                }
                reports.push(json!({"file": shown, "ok": problems.is_empty(), "problems": problems, "error": Value::Null}));
            }
            Err(error) => {
                unreadable += 1;
                if !args.json {
                    eprintln!("retrace: {error}");
                }
                reports.push(
                    json!({"file": shown, "ok": false, "problems": [], "error": error.to_string()}),
                );
            }
        }
    }
    if args.json {
        print_json(&json!({"files": reports}))?;
    }
    if unreadable > 0 {
        if args.files.len() == 1 && !args.json {
            // The reason is already on stderr; say nothing twice.
            return Ok(Outcome::Error);
        }
        bail!(
            "{unreadable} of {} file(s) could not be read",
            args.files.len()
        );
    }
    Ok(if with_problems > 0 {
        Outcome::CheckFailed
    } else {
        Outcome::Pass
    })
}
