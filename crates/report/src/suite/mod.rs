//! A suite's reports: the [`SuiteReport`] of a run written as people and machines read it.
//!
//! - [`json`]: the versioned JSON document (`report.json`, its schema committed beside the
//!   crate), and reading one back;
//! - [`junit`]: `junit.xml` for CI services;
//! - [`html`]: `report.html`, one self-contained file that opens offline;
//! - [`merge`]: shards' `report.json` added up into one report;
//! - [`sink::SuiteReportSink`]: the event stream's `TestFinished`/`SuiteFinished` collected
//!   into the report (and, when asked, the reports written as the suite finishes).
//!
//! [`write_reports`] writes the kinds asked for into one directory, named after the shard the
//! report covers when it covers one (`report-shard-2-of-4.json`, `junit-shard-2-of-4.xml`,
//! `report-shard-2-of-4.html`), so the shards' reports can be collected into one directory
//! and merged from there. Every file is written to a
//! temporary file beside it and renamed into place, so a report is whole or absent, never
//! half-written. Artefact paths in the report are relative to that directory.

use std::fmt;
use std::path::Path;
use std::path::PathBuf;
use std::str::FromStr;

use retrace_protocol::events::Shard;
use retrace_protocol::events::SuiteReport;

pub mod html;
pub mod json;
pub mod junit;
pub mod merge;
mod outcome;
pub mod sink;

#[cfg(test)]
use retrace_test_support::suite_report as sample;

pub use merge::merge;
pub use merge::merge_dirs;
pub use sink::SuiteReportSink;

/// A report a suite run can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReportKind {
    /// `report.html`: for people.
    Html,
    /// `junit.xml`: for CI services.
    Junit,
    /// `report.json`: the whole document, for machines and for `retrace report merge`.
    Json,
}

impl ReportKind {
    /// Every kind, in the order they are written.
    pub const ALL: [ReportKind; 3] = [ReportKind::Json, ReportKind::Junit, ReportKind::Html];

    /// The file this kind is written to, in the output directory.
    pub fn file_name(self) -> &'static str {
        match self {
            ReportKind::Html => "report.html",
            ReportKind::Junit => "junit.xml",
            ReportKind::Json => "report.json",
        }
    }

    /// The file this kind is written to for a report of `shard` (see the module doc); the
    /// plain [`ReportKind::file_name`] for a whole suite.
    pub fn file_name_for(self, shard: Option<Shard>) -> String {
        let Some(Shard { index, total }) = shard else {
            return self.file_name().to_owned();
        };
        let (stem, extension) = self
            .file_name()
            .split_once('.')
            .unwrap_or((self.file_name(), ""));
        format!("{stem}-shard-{index}-of-{total}.{extension}")
    }

    /// Whether `name` is a file this kind is written to, for a whole suite or a shard.
    pub fn is_file_name(self, name: &str) -> bool {
        self.shard_of_file_name(name).is_some()
    }

    /// What a file this kind is written to covers: `Some(None)` for a whole suite's,
    /// `Some(Some(shard))` for a shard's; `None` when `name` is not such a file.
    pub fn shard_of_file_name(self, name: &str) -> Option<Option<Shard>> {
        if name == self.file_name() {
            return Some(None);
        }
        let (stem, extension) = self.file_name().split_once('.')?;
        let (index, total) = name
            .strip_prefix(stem)?
            .strip_prefix("-shard-")?
            .strip_suffix(extension)?
            .strip_suffix('.')?
            .split_once("-of-")?;
        Some(Some(Shard {
            index: index.parse().ok()?,
            total: total.parse().ok()?,
        }))
    }

    /// The kinds of a comma-separated list (`html,junit`), each once, in the order given.
    ///
    /// # Errors
    /// An unknown name, named in the error.
    pub fn parse_list(list: &str) -> Result<Vec<ReportKind>, UnknownReportKind> {
        let mut kinds = Vec::new();
        for name in list
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
        {
            let kind = name.parse()?;
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
        Ok(kinds)
    }
}

impl fmt::Display for ReportKind {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            ReportKind::Html => "html",
            ReportKind::Junit => "junit",
            ReportKind::Json => "json",
        })
    }
}

/// A report kind nobody knows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown report `{0}` (expected html, junit or json)")]
pub struct UnknownReportKind(pub String);

impl FromStr for ReportKind {
    type Err = UnknownReportKind;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name.trim().to_ascii_lowercase().as_str() {
            "html" => Ok(ReportKind::Html),
            "junit" | "xml" => Ok(ReportKind::Junit),
            "json" => Ok(ReportKind::Json),
            _ => Err(UnknownReportKind(name.to_owned())),
        }
    }
}

/// Why a report could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A file could not be written or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A `report.json` is not a suite report.
    #[error("{}: not a retrace suite report: {message}", path.display())]
    BadReport {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the field.
        message: String,
    },
    /// A `report.json` of a version this retrace does not read.
    #[error(
        "{}: suite report version {found}, this retrace reads version {supported} (written by another retrace: merge with the same version that wrote it)",
        path.display()
    )]
    UnknownVersion {
        /// The file.
        path: PathBuf,
        /// Its version.
        found: u64,
        /// The version read here.
        supported: u32,
    },
    /// The report could not be rendered (a bug: the data always fits its template).
    #[error("could not render the {kind} report: {message}")]
    Render {
        /// Which report.
        kind: ReportKind,
        /// Why.
        message: String,
    },
}

impl ReportError {
    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ReportError + '_ {
        move |source| ReportError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

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

/// Writes `bytes` to a temporary file beside `path`, flushes it to disk, and renames it over
/// `path`: readers see the old file or the new one, never part of one.
///
/// # Errors
/// The file could not be written or renamed (the temporary file is removed).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    retrace_files::write_atomic(path, bytes).map_err(ReportError::io(path))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn kinds_parse_and_print_by_their_names() {
        for kind in ReportKind::ALL {
            assert_eq!(kind.to_string().parse::<ReportKind>(), Ok(kind));
        }
        assert_eq!(
            ReportKind::parse_list("html, junit,json,html").unwrap(),
            [ReportKind::Html, ReportKind::Junit, ReportKind::Json]
        );
        let error = ReportKind::parse_list("html,pdf").unwrap_err();
        assert_eq!(
            error.to_string(),
            "unknown report `pdf` (expected html, junit or json)"
        );
    }

    #[test]
    fn a_shard_report_is_named_after_its_shard() {
        let shard = Some(Shard { index: 2, total: 4 });
        let names = ReportKind::ALL.map(|kind| kind.file_name_for(shard));
        assert_eq!(
            names,
            [
                "report-shard-2-of-4.json",
                "junit-shard-2-of-4.xml",
                "report-shard-2-of-4.html"
            ]
        );
        assert_eq!(ReportKind::Json.file_name_for(None), "report.json");
        for (kind, name) in ReportKind::ALL.into_iter().zip(&names) {
            assert!(kind.is_file_name(name), "{name}");
            assert!(kind.is_file_name(kind.file_name()));
        }
        // A shard's report is written under those names.
        let dir = tempfile::tempdir().unwrap();
        let mix = sample::Mix {
            tests: 2,
            failed: 1,
            error: 0,
            flaky: 0,
            skipped: 0,
        };
        let mut report = sample::report(dir.path(), mix);
        report.shard = shard;
        let written = write_reports(&report, &ReportKind::ALL, dir.path()).unwrap();
        let written: Vec<_> = written
            .iter()
            .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(written, names);
        for other in [
            "report-shard-2-of-4.html",
            "report-shard-x-of-4.json",
            "report-shard-2.json",
            "report.json.bak",
            "xreport.json",
        ] {
            assert!(!ReportKind::Json.is_file_name(other), "{other}");
        }
    }

    #[test]
    fn an_atomic_write_replaces_the_file_whole_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.json");
        std::fs::write(&path, "old").unwrap();
        write_atomically(&path, b"new and longer").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new and longer");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["report.json"]);
        // A directory where the file should go: an error naming it, the old content untouched.
        let blocked = dir.path().join("blocked");
        std::fs::create_dir(&blocked).unwrap();
        let error = write_atomically(&blocked, b"x").unwrap_err();
        assert!(error.to_string().contains("blocked"), "{error}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }
}
