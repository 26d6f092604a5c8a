//! The reports `retrace run --report html,junit,json` writes into `--out`.
//!
//! The JSON report is the [`SuiteReport`]'s serde form (`report.json`). The HTML and JUnit
//! reports are `retrace-report`'s suite sinks; until they land, asking for them says so
//! instead of writing nothing silently.

use std::path::Path;
use std::path::PathBuf;

use anyhow::Context;
use retrace_protocol::events::SuiteReport;

/// A report kind, as `--report` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportKindArg {
    /// `report.html`: one self-contained page.
    Html,
    /// `junit.xml`: for CI.
    Junit,
    /// `report.json`: the suite report document.
    Json,
}

/// The JSON report's file name.
pub const JSON_REPORT: &str = "report.json";

/// Writes `kinds` of `report` into `out`, returning the files written.
pub fn write(
    report: &SuiteReport,
    kinds: &[ReportKindArg],
    out: &Path,
) -> anyhow::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    if kinds.is_empty() {
        return Ok(written);
    }
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    for kind in kinds {
        match kind {
            ReportKindArg::Json => {
                let path = out.join(JSON_REPORT);
                let text = serde_json::to_string_pretty(report)?;
                retrace_cache::atomic_write(&path, text.as_bytes())
                    .with_context(|| format!("writing {}", path.display()))?;
                written.push(path);
            }
            ReportKindArg::Html | ReportKindArg::Junit => {
                tracing::warn!(
                    "the {kind:?} report is not available in this build yet; wrote the others"
                );
            }
        }
    }
    Ok(written)
}
