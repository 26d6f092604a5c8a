//! The reports `retrace run --report html,junit,json` writes into `--out`: `retrace-report`'s
//! suite reports (`report.html`, `junit.xml`, `report.json`), written once the suite ends.

use std::path::Path;
use std::path::PathBuf;

use retrace_protocol::events::SuiteReport;
use retrace_report::suite::ReportKind;

/// Parses one `--report` kind (`html`, `junit`, `json`).
pub fn parse_kind(name: &str) -> Result<ReportKind, String> {
    name.trim()
        .parse::<ReportKind>()
        .map_err(|error| error.to_string())
}

/// Writes `kinds` of `report` into `out`, returning the files written (none for no kinds).
pub fn write(
    report: &SuiteReport,
    kinds: &[ReportKind],
    out: &Path,
) -> anyhow::Result<Vec<PathBuf>> {
    if kinds.is_empty() {
        return Ok(Vec::new());
    }
    Ok(retrace_report::suite::write_reports(report, kinds, out)?)
}
