//! `retrace report merge` end to end: the real binary merging three shards' reports into the
//! reports of the whole run, and refusing a bad one by name.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;
use std::process::Output;

use pretty_assertions::assert_eq;
use retrace_protocol::events::Shard;
use retrace_protocol::events::SuiteReport;
use retrace_protocol::events::Totals;
use retrace_test_support::suite_report as sample;
use serde_json::Value;

fn retrace(args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_retrace"))
        .args(args)
        .output()
        .unwrap()
}

fn write_json(dir: &Path, report: &SuiteReport) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("report.json"),
        serde_json::to_string_pretty(report).unwrap(),
    )
    .unwrap();
}

#[test]
fn merging_three_shards_writes_the_reports_of_the_whole_run() {
    let root = tempfile::tempdir().unwrap();
    let whole = sample::report(
        root.path(),
        sample::Mix {
            tests: 12,
            failed: 3,
            error: 1,
            flaky: 1,
            skipped: 1,
        },
    );
    // The shards share one directory for their evidence here: each report.json sits beside it.
    let mut args = vec![
        Path::new("report").to_owned(),
        Path::new("merge").to_owned(),
    ];
    for index in 1..=3_u32 {
        let tests: Vec<_> = whole
            .tests
            .iter()
            .skip(index as usize - 1)
            .step_by(3)
            .cloned()
            .collect();
        let shard = SuiteReport {
            shard: Some(Shard { index, total: 3 }),
            totals: Totals::of(&tests),
            tests,
            ..whole.clone()
        };
        let path = root.path().join(format!("shard-{index}.json"));
        std::fs::write(&path, serde_json::to_string(&shard).unwrap()).unwrap();
        args.push(path);
    }
    let out = root.path().join("merged");
    args.extend([Path::new("--out").to_owned(), out.clone()]);
    let args: Vec<&Path> = args.iter().map(std::path::PathBuf::as_path).collect();
    let output = retrace(&args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains(
            "merged 3 reports: 12 tests, 6 passed, 3 failed, 1 error, 1 flaky, 1 skipped"
        ),
        "{stdout}"
    );

    let merged: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(
        merged["totals"],
        serde_json::to_value(whole.totals).unwrap()
    );
    let mut ids: Vec<&str> = merged["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|test| test["id"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    let mut whole_ids: Vec<&str> = whole.tests.iter().map(|test| test.id.as_str()).collect();
    whole_ids.sort_unstable();
    assert_eq!(ids, whole_ids);
    assert_eq!(merged["shards"].as_array().unwrap().len(), 3);
    let junit = std::fs::read_to_string(out.join("junit.xml")).unwrap();
    assert_eq!(junit.matches("<testcase ").count(), 12);
    assert_eq!(junit.matches("<failure ").count(), 3);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert_eq!(html.matches("class=\"crop expected\"").count(), 3);
}

#[test]
fn a_report_of_an_unknown_version_exits_2_naming_the_file() {
    let root = tempfile::tempdir().unwrap();
    let good = root.path().join("good");
    write_json(
        &good,
        &sample::report(
            &good,
            sample::Mix {
                tests: 2,
                ..sample::Mix::default()
            },
        ),
    );
    let future = root.path().join("future");
    std::fs::create_dir_all(&future).unwrap();
    std::fs::write(future.join("report.json"), r#"{"version": 9, "tests": []}"#).unwrap();
    let out = root.path().join("out");
    let output = retrace(&[
        Path::new("report"),
        Path::new("merge"),
        &good,
        &future,
        Path::new("--out"),
        &out,
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&future.join("report.json").display().to_string()),
        "{stderr}"
    );
    assert!(stderr.contains("version 9"), "{stderr}");
    assert!(
        !out.join("report.html").exists(),
        "nothing is written from a bad merge"
    );

    let output = retrace(&[
        Path::new("report"),
        Path::new("merge"),
        &good,
        Path::new("--out"),
        &out,
        Path::new("--report"),
        Path::new("html,pdf"),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("unknown report `pdf`"), "{stderr}");
}
