//! `retrace report merge`: several shards' `report.json` added up into one report.
//!
//! [`merge`] joins the tests (in the order given), recounts the totals, keeps each shard's
//! [`Shard`] in [`SuiteReport::shards`], takes the earliest start and the longest wall time
//! (shards run side by side). [`merge_dirs`] reads the shards' directories (each may hold one
//! `report.json` or several shards' `report-shard-I-of-N.json`) and copies their evidence files
//! into the output directory (`shard-N/...`, N the report's position), so the
//! merged reports' artefact paths resolve there and the directory can be archived alone.

use std::path::Path;
use std::path::PathBuf;

use retrace_protocol::events::Shard;
use retrace_protocol::events::SuiteReport;
use retrace_protocol::events::Totals;

use super::ReportError;
use super::ReportKind;
use super::json::read_report;

/// The reports of several shards as one. An empty list gives an empty report.
pub fn merge(reports: Vec<SuiteReport>) -> SuiteReport {
    let mut names: Vec<String> = Vec::new();
    let mut shards: Vec<Shard> = Vec::new();
    let mut started_at: Option<String> = None;
    let mut wall_ms = 0;
    let mut interrupted = false;
    let mut tests = Vec::new();
    for report in reports {
        if !names.contains(&report.name) {
            names.push(report.name);
        }
        shards.extend(report.shard);
        shards.extend(report.shards);
        // RFC 3339 UTC times sort as text.
        if started_at
            .as_ref()
            .is_none_or(|earliest| report.started_at < *earliest)
        {
            started_at = Some(report.started_at);
        }
        wall_ms = wall_ms.max(report.wall_ms);
        interrupted |= report.interrupted;
        tests.extend(report.tests);
    }
    SuiteReport {
        version: SuiteReport::VERSION,
        name: names.join(" + "),
        shard: None,
        started_at: started_at.unwrap_or_default(),
        wall_ms,
        totals: Totals::of(&tests),
        interrupted,
        shards,
        tests,
    }
}

/// Reads each input (a directory holding `report.json` or shards' `report-shard-I-of-N.json`,
/// or a report file), copies each report's evidence into `out_dir/shard-N/` (N its position
/// among the reports read), and merges the reports.
///
/// # Errors
/// An input that is not a readable suite report of this version (the error names the file);
/// an evidence file that exists but cannot be copied.
pub fn merge_dirs(inputs: &[PathBuf], out_dir: &Path) -> Result<SuiteReport, ReportError> {
    let mut files: Vec<(PathBuf, PathBuf)> = Vec::new();
    for input in inputs {
        if input.is_dir() {
            files.extend(
                report_files_in(input)?
                    .into_iter()
                    .map(|file| (file, input.clone())),
            );
        } else {
            let dir = input
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from("."));
            files.push((input.clone(), dir));
        }
    }
    let mut reports = Vec::with_capacity(files.len());
    for (index, (file, dir)) in files.iter().enumerate() {
        let mut report = read_report(file)?;
        relocate_evidence(&mut report, dir, out_dir, &format!("shard-{}", index + 1))?;
        reports.push(report);
    }
    Ok(merge(reports))
}

/// The JSON reports in `dir` (`report.json`, `report-shard-I-of-N.json`), in shard order;
/// `report.json` alone when there is none, so reading it names what is missing.
fn report_files_in(dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(ReportError::io(dir))? {
        let entry = entry.map_err(ReportError::io(dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(shard) = ReportKind::Json.shard_of_file_name(&name)
            && entry.path().is_file()
        {
            let order = shard.map(|shard| (shard.total, shard.index));
            files.push((order, entry.path()));
        }
    }
    files.sort();
    if files.is_empty() {
        return Ok(vec![dir.join(ReportKind::Json.file_name())]);
    }
    Ok(files.into_iter().map(|(_, file)| file).collect())
}

/// Copies every artefact file of `report` from `from_dir` to `out_dir/prefix/` and points the
/// report at the copies. A file that is missing stays named as it was (the HTML report says
/// it is missing).
fn relocate_evidence(
    report: &mut SuiteReport,
    from_dir: &Path,
    out_dir: &Path,
    prefix: &str,
) -> Result<(), ReportError> {
    for test in &mut report.tests {
        let artifacts = &mut test.artifacts;
        let singles = [
            &mut artifacts.expected_crop,
            &mut artifacts.actual_crop,
            &mut artifacts.diff_crop,
            &mut artifacts.final_screenshot,
            &mut artifacts.events_log,
        ];
        for path in singles.into_iter().flatten() {
            relocate(path, from_dir, out_dir, prefix)?;
        }
        for path in &mut artifacts.other {
            relocate(path, from_dir, out_dir, prefix)?;
        }
    }
    Ok(())
}

fn relocate(
    path: &mut PathBuf,
    from_dir: &Path,
    out_dir: &Path,
    prefix: &str,
) -> Result<(), ReportError> {
    // Only relative paths inside the shard's directory move; anything else is left alone.
    if path.is_absolute()
        || path
            .components()
            .any(|part| matches!(part, std::path::Component::ParentDir))
    {
        return Ok(());
    }
    let source = from_dir.join(&*path);
    if !source.is_file() {
        return Ok(());
    }
    let relocated = Path::new(prefix).join(&*path);
    let target = out_dir.join(&relocated);
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).map_err(ReportError::io(parent))?;
    }
    retrace_files::copy_atomic(&source, &target).map_err(ReportError::io(&target))?;
    *path = relocated;
    Ok(())
}

#[cfg(test)]
#[path = "merge_tests.rs"]
mod tests;
