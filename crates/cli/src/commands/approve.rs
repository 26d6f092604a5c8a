//! `retrace approve`: accepts an intended UI change into a trajectory. The work is
//! `retrace_runner::approve`'s; this module parses flags and prints what changed.

use std::path::PathBuf;

use retrace_runner::ApproveRequest;
use retrace_runner::suite::config::suite_file_path;

use crate::outcome::Outcome;
use crate::output::out;

/// Re-record a trajectory's failed step as the screen now shows it (an intended UI change).
///
/// Reads what the last failed `retrace run` of FILE saw at the step it failed (kept in
/// .retrace_state/ beside the suite) and writes that step's hash and crop before acting (a
/// mismatch) or its hash after acting (a missing effect), recomputed exactly as a recording
/// does, and the element found at its point when the page's element differed. The previous
/// file is kept beside it as <name>.previous-<time>.json, as a repair keeps it.
///
/// Only the step that failed can be approved; a step that did not fail, or a file with no
/// failed run since it last changed, is an error naming the file and the step. A change
/// that affects several steps fails at the first: run and approve again.
///
/// Exit codes: 0 approved, 2 nothing to approve or bad input.
///
/// Examples:
///   retrace run flows/ --url http://127.0.0.1:8080/?layout=v2 ; retrace approve flows/login.json
///   retrace approve flows/login.json --step 7 --suite retrace.toml
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct ApproveArgs {
    /// The trajectory file.
    pub file: PathBuf,
    /// Approve only this step (1-based); it must be the one the last failed run failed at.
    #[arg(long, value_name = "N")]
    pub step: Option<usize>,
    /// The suite file whose folder holds .retrace_state/ (default: ./retrace.toml when it
    /// exists; without one, the current folder for a file inside it, else the file's own).
    #[arg(long, value_name = "FILE")]
    pub suite: Option<PathBuf>,
}

/// Approves and prints what changed.
pub fn run(args: ApproveArgs) -> anyhow::Result<Outcome> {
    let suite = suite_file_path(args.suite.as_deref());
    let root = retrace_runner::replay_state::state_root_in_suite(suite.as_deref(), &args.file);
    let approved = retrace_runner::approve(&ApproveRequest {
        file: args.file,
        root,
        step: args.step,
    })?;
    out!(
        "approved step {} of {}: {}",
        approved.step,
        approved.path.display(),
        approved.fields.join(", ")
    );
    if let Some(previous) = &approved.previous {
        out!("previous version kept as {}", previous.display());
    }
    Ok(Outcome::Pass)
}
