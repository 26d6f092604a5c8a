//! `retrace cache check`: whether cache files can be replayed as they are.

use std::path::PathBuf;

use anyhow::bail;

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
    let mut checks = Vec::new();
    let mut unreadable = 0;
    let mut with_problems = 0;
    for path in &args.files {
        let checked = retrace_runner::cache::check::check(path);
        match &checked.error {
            None => {
                if !checked.problems.is_empty() {
                    with_problems += 1;
                }
                if !args.json {
                    let shown = &checked.file;
                    if checked.problems.is_empty() {
                        out!("{shown}: ok ({} steps)", checked.steps);
                    }
                    for problem in &checked.problems {
                        out!("{shown}: {problem}");
                    }
                }
            }
            Some(error) => {
                unreadable += 1;
                if !args.json {
                    crate::output::note!("retrace: {error}");
                }
            }
        }
        checks.push(checked);
    }
    if args.json {
        print_json(&retrace_runner::cache::check::to_json(&checks))?;
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
