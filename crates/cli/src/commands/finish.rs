//! The end of a session on the terminal: the summary lines (or the JSON document with
//! `--json`) and the exit code, the same for every command that runs sessions.

use retrace_protocol::events::SessionReport;
use retrace_protocol::events::SessionStatus;

use crate::outcome::Outcome;
use crate::output::out;

/// The outcome a session's status means.
pub fn outcome_of(report: &SessionReport) -> Outcome {
    match report.status {
        SessionStatus::Passed => Outcome::Pass,
        SessionStatus::Failed => Outcome::CheckFailed,
        SessionStatus::Error => Outcome::Error,
    }
}

/// Prints the end of `report` (its summary, or its JSON document) and returns its outcome.
/// An error session's message also goes to stderr, as every error does.
pub fn print_session(report: &SessionReport, json: bool) -> anyhow::Result<Outcome> {
    if json {
        out!("{}", serde_json::to_string(report)?);
    } else {
        for line in retrace_report::summary::render(report) {
            out!("{line}");
        }
    }
    if let (SessionStatus::Error, Some(error)) = (report.status, &report.error) {
        crate::output::note!("retrace: {error}");
    }
    Ok(outcome_of(report))
}
