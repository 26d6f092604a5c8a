//! How `retrace check` ends, page or window alike: what it prints last and its exit.

use std::path::PathBuf;

use retrace_protocol::events::Verdict;

use crate::outcome::Outcome;
use crate::output::out;

/// Prints a check's end, page or window alike: its JSON document (`--json`) or where its
/// reports are; its verdict as the exit.
pub fn finish(
    json: Option<String>,
    written: &[PathBuf],
    verdict: Verdict,
) -> anyhow::Result<Outcome> {
    match json {
        Some(document) => out!("{document}"),
        None => {
            for path in written {
                out!("report: {}", path.display());
            }
        }
    }
    Ok(match verdict {
        Verdict::Pass => Outcome::Pass,
        Verdict::Fail => Outcome::CheckFailed,
        Verdict::Error => Outcome::Error,
    })
}
