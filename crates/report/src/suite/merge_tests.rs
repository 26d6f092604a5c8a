#![allow(clippy::unwrap_used, clippy::expect_used)]

use pretty_assertions::assert_eq;
use retrace_protocol::events::Artifacts;
use retrace_protocol::events::TestReport;

use super::*;
use crate::suite::write_reports;

use crate::suite::sample;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The tests with their evidence paths left out (they move into `shard-N/`).
fn without_paths(tests: &[TestReport]) -> Vec<TestReport> {
    tests
        .iter()
        .map(|test| TestReport {
            artifacts: Artifacts::default(),
            ..test.clone()
        })
        .collect()
}

#[test]
fn merging_three_shards_gives_the_totals_and_tests_of_the_whole_run() {
    let root = tempfile::tempdir().unwrap();
    let whole_dir = root.path().join("whole");
    let whole = sample::report(
        &whole_dir,
        sample::Mix {
            tests: 30,
            failed: 4,
            error: 2,
            flaky: 2,
            skipped: 1,
        },
    );
    // Shard k runs every third test, as `--shard k/3` would.
    let mut shard_dirs = Vec::new();
    let mut expected_order = Vec::new();
    for index in 1..=3_u32 {
        let tests: Vec<TestReport> = whole
            .tests
            .iter()
            .skip(index as usize - 1)
            .step_by(3)
            .cloned()
            .collect();
        expected_order.extend(tests.iter().cloned());
        let shard = SuiteReport {
            shard: Some(Shard { index, total: 3 }),
            totals: Totals::of(&tests),
            wall_ms: 20_000 + u64::from(index),
            started_at: format!("2026-11-25T14:00:0{index}Z"),
            tests,
            ..whole.clone()
        };
        let dir = root.path().join(format!("shard{index}"));
        copy_dir(&whole_dir, &dir);
        write_reports(&shard, &[ReportKind::Json], &dir).unwrap();
        shard_dirs.push(dir);
    }
    let out = root.path().join("merged");
    let merged = merge_dirs(&shard_dirs, &out).unwrap();

    assert_eq!(merged.totals, whole.totals);
    assert_eq!(merged.totals.tests, 30);
    assert_eq!(without_paths(&merged.tests), without_paths(&expected_order));
    assert_eq!(
        merged.shards,
        (1..=3)
            .map(|index| Shard { index, total: 3 })
            .collect::<Vec<_>>()
    );
    assert_eq!(merged.shard, None);
    assert_eq!(merged.name, "demo-suite");
    assert_eq!(merged.started_at, "2026-11-25T14:00:01Z");
    assert_eq!(merged.wall_ms, 20_003);

    // Every failure's evidence was copied and is found from the merged directory.
    let failures: Vec<_> = merged
        .tests
        .iter()
        .filter(|test| test.artifacts.expected_crop.is_some())
        .collect();
    assert_eq!(failures.len(), 4);
    for test in failures {
        let expected = test.artifacts.expected_crop.as_ref().unwrap();
        assert!(
            expected.to_string_lossy().starts_with("shard-"),
            "{}",
            expected.display()
        );
        assert!(
            out.join(expected).is_file(),
            "{} in {:?}",
            expected.display(),
            std::process::Command::new("find")
                .arg(&out)
                .output()
                .unwrap()
        );
    }
    let written = write_reports(&merged, &ReportKind::ALL, &out).unwrap();
    let html = std::fs::read_to_string(&written[2]).unwrap();
    assert_eq!(html.matches("class=\"crop expected\"").count(), 4);
    assert!(html.contains("merged from 3 shards"));
}

#[test]
fn a_bad_shard_report_is_named() {
    let root = tempfile::tempdir().unwrap();
    let good = root.path().join("good");
    let report = sample::report(
        &good,
        sample::Mix {
            tests: 2,
            ..sample::Mix::default()
        },
    );
    write_reports(&report, &[ReportKind::Json], &good).unwrap();
    let bad = root.path().join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(bad.join("report.json"), "{\"version\": 3}").unwrap();
    let error = merge_dirs(&[good, bad.clone()], &root.path().join("out")).unwrap_err();
    assert!(matches!(
        error,
        ReportError::UnknownVersion { found: 3, .. }
    ));
    assert!(
        error
            .to_string()
            .contains(&bad.join("report.json").display().to_string()),
        "{error}"
    );
    let missing = root.path().join("missing");
    let error = merge_dirs(std::slice::from_ref(&missing), &root.path().join("out")).unwrap_err();
    assert!(error.to_string().contains("missing"), "{error}");
}

#[test]
fn shards_collected_into_one_folder_merge_in_shard_order() {
    let root = tempfile::tempdir().unwrap();
    let collected = root.path().join("collected");
    let whole = sample::report(
        &collected,
        sample::Mix {
            tests: 12,
            failed: 2,
            error: 1,
            flaky: 0,
            skipped: 0,
        },
    );
    // Shards 10, 2 and 1 of 12 (a name sort would put 10 before 2), plus a stray JSON file.
    let mut expected = Vec::new();
    for index in [1_u32, 2, 10] {
        let tests = vec![whole.tests[index as usize - 1].clone()];
        expected.extend(tests.iter().cloned());
        let shard = SuiteReport {
            shard: Some(Shard { index, total: 12 }),
            totals: Totals::of(&tests),
            tests,
            ..whole.clone()
        };
        write_reports(&shard, &[ReportKind::Json, ReportKind::Junit], &collected).unwrap();
    }
    std::fs::write(collected.join("package.json"), "{}").unwrap();
    let merged = merge_dirs(std::slice::from_ref(&collected), &root.path().join("out")).unwrap();
    let indexes: Vec<u32> = merged.shards.iter().map(|shard| shard.index).collect();
    assert_eq!(indexes, [1, 2, 10]);
    assert_eq!(without_paths(&merged.tests), without_paths(&expected));
    assert_eq!(merged.totals.tests, 3);
}
