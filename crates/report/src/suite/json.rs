//! The JSON report: a [`SuiteReport`]'s serde form, versioned by [`SuiteReport::VERSION`],
//! described by the JSON Schema committed at `crates/report/schema/suite-report.schema.json`
//! ([`SCHEMA`]), and read back by [`read_report`] (for `retrace report merge`) with errors that
//! name the file and the field.

use std::path::Path;

use retrace_protocol::events::SuiteReport;

use super::ReportError;

/// The JSON Schema (draft 2020-12) of the document [`to_json`] writes.
pub const SCHEMA: &str = include_str!("../../schema/suite-report.schema.json");

/// The report as its JSON document (pretty-printed, ending in a newline).
pub fn to_json(report: &SuiteReport) -> String {
    // A SuiteReport is plain data (strings, numbers, maps with string keys): it always
    // serialises. Should that ever change, the document says so instead of panicking.
    let mut text = serde_json::to_string_pretty(report).unwrap_or_else(|error| {
        serde_json::json!({ "version": SuiteReport::VERSION, "error": error.to_string() })
            .to_string()
    });
    text.push('\n');
    text
}

/// Reads the suite report at `path` (a `report.json`).
///
/// # Errors
/// The file cannot be read; it is not JSON or not a suite report ([`ReportError::BadReport`],
/// naming the field); it is of another version ([`ReportError::UnknownVersion`]).
pub fn read_report(path: &Path) -> Result<SuiteReport, ReportError> {
    let text = std::fs::read_to_string(path).map_err(ReportError::io(path))?;
    parse_report(&text, path)
}

/// Parses a suite report's JSON text; `path` names it in errors.
///
/// # Errors
/// As [`read_report`].
pub fn parse_report(text: &str, path: &Path) -> Result<SuiteReport, ReportError> {
    let bad = |message: String| ReportError::BadReport {
        path: path.to_owned(),
        message,
    };
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|error| bad(format!("not JSON: {error}")))?;
    let version = match value.get("version") {
        Some(serde_json::Value::Number(number)) => number
            .as_u64()
            .ok_or_else(|| bad(format!("`version` is {number}, not a version number")))?,
        Some(other) => return Err(bad(format!("`version` is {other}, not a number"))),
        None => return Err(bad("no `version` field".to_owned())),
    };
    if version != u64::from(SuiteReport::VERSION) {
        return Err(ReportError::UnknownVersion {
            path: path.to_owned(),
            found: version,
            supported: SuiteReport::VERSION,
        });
    }
    serde_path_to_error::deserialize(value)
        .map_err(|error| bad(format!("at `{}`: {}", error.path(), error.inner())))
}

#[cfg(test)]
#[path = "json_tests.rs"]
mod tests;
