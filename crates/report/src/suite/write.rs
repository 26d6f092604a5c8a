//! Writing a suite's reports into one directory.

use std::path::Path;
use std::path::PathBuf;

use retrace_protocol::events::SuiteReport;

use super::error::ReportError;
use super::error::write_atomically;
use super::html;
use super::json;
use super::junit;
use super::kind::ReportKind;

/// Writes `report` as each of `kinds` into `out_dir` (created if missing), named after its
/// shard ([`ReportKind::file_name_for`]), returning the files written, in the order of
/// `kinds`. Artefact paths in the report are read relative to
/// `out_dir` (the HTML report inlines the images).
///
/// # Errors
/// The directory or a file could not be written; a report could not be rendered. Files
/// already written stay (each one is whole).
pub fn write_reports(
    report: &SuiteReport,
    kinds: &[ReportKind],
    out_dir: &Path,
) -> Result<Vec<PathBuf>, ReportError> {
    std::fs::create_dir_all(out_dir).map_err(ReportError::io(out_dir))?;
    let mut written = Vec::new();
    for &kind in kinds {
        let path = out_dir.join(kind.file_name_for(report.shard));
        let text = match kind {
            ReportKind::Json => json::to_json(report),
            ReportKind::Junit => junit::to_junit(report, out_dir)?,
            ReportKind::Html => html::to_html(report, out_dir)?,
        };
        write_atomically(&path, text.as_bytes())?;
        written.push(path);
    }
    Ok(written)
}
