//! A suite's reports: the [`SuiteReport`] of a run written as people and machines read it.
//!
//! - [`json`]: the versioned JSON document (`report.json`, its schema committed beside the
//!   crate), and reading one back;
//! - [`junit`]: `junit.xml` for CI services;
//! - [`html`]: `report.html`, one self-contained file that opens offline;
//! - [`merge`]: shards' `report.json` added up into one report;
//! - [`check_tests::CheckTests`]: a visual check's pages collected as a suite's tests;
//! - [`sink::SuiteReportSink`]: the event stream's `TestFinished`/`SuiteFinished` collected
//!   into the report (and, when asked, the reports written as the suite finishes).
//!
//! [`write_reports`] writes the kinds asked for into one directory, named after the shard the
//! report covers when it covers one (`report-shard-2-of-4.json`, `junit-shard-2-of-4.xml`,
//! `report-shard-2-of-4.html`), so the shards' reports can be collected into one directory
//! and merged from there. Every file is written to a
//! temporary file beside it and renamed into place, so a report is whole or absent, never
//! half-written. Artefact paths in the report are relative to that directory.

pub mod check_tests;
mod error;
pub mod html;
mod html_images;
pub mod json;
pub mod junit;
mod kind;
pub mod merge;
mod outcome;
pub mod sink;
mod write;

#[cfg(test)]
use retrace_test_support::suite_report as sample;

pub use error::ReportError;
pub use error::write_atomically;
pub use kind::ReportKind;
pub use kind::UnknownReportKind;
pub use merge::merge;
pub use merge::merge_dirs;
pub use sink::SuiteReportSink;
pub use write::write_reports;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use retrace_protocol::events::Shard;

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
