//! `retrace replay s3://...` end to end: the real binary reads the trajectory from a real S3
//! server (moto, from PyPI), replays it in real headless Chromium against the demo app, and
//! counts the run in the run state beside it on S3.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::process::Output;

use retrace_runner::store::Key;
use retrace_runner::store::Location;
use retrace_runner::store::Store;
use retrace_runner::store::run_records::RunRecords;
use retrace_test_support::cli::demo_replay;
use retrace_test_support::demo::DemoThread;
use retrace_test_support::moto::Moto;

fn replay(moto: &Moto, file: &str, url: &str) -> Output {
    demo_replay(env!("CARGO_BIN_EXE_retrace"), file, url)
        .envs(moto.env())
        .output()
        .unwrap()
}

fn open(moto: &Moto, location: &str) -> Store {
    let vars = moto.env().into_iter().map(|(k, v)| (k.to_owned(), v));
    Location::parse(location).unwrap().open_with(vars).unwrap()
}

#[tokio::test]
async fn a_replay_reads_its_trajectory_from_s3_and_counts_its_run_there() {
    retrace_test_support::require!(Chromium);
    let Some(moto) = Moto::start().await else {
        return;
    };
    moto.create_bucket("retrace-qa");
    let folder = open(&moto, "s3://retrace-qa/flows");
    let trajectory = retrace_runner::demo::DEMO_RECORDING.as_bytes();
    folder
        .put_create(&Key::new("login.json").unwrap(), trajectory)
        .await
        .unwrap();
    let demo = DemoThread::start(retrace_demo::DemoConfig::default());

    // A key that leaves the bucket's prefix is refused before anything is read.
    let escaping = replay(
        &moto,
        "s3://retrace-qa/flows/../secrets/login.json",
        demo.url(),
    );
    let stderr = String::from_utf8_lossy(&escaping.stderr);
    assert_eq!(escaping.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("`..`"), "{stderr}");
    let missing = replay(&moto, "s3://retrace-qa/flows/nothing.json", demo.url());
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(missing.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("s3://retrace-qa/flows/nothing.json: no such trajectory"),
        "{stderr}"
    );

    let output = replay(&moto, "s3://retrace-qa/flows/login.json", demo.url());
    let summary = retrace_test_support::cli::json_summary(&output);
    assert_eq!(output.status.code(), Some(0), "{summary}");
    assert_eq!(summary["status"], "passed", "{summary}");
    assert_eq!(summary["replay"]["steps_replayed"], 12, "{summary}");

    let state = RunRecords::new(folder.clone())
        .load("login.json", trajectory)
        .await
        .unwrap();
    assert_eq!(state.execution_attempts, 1);
    assert!(state.failures.is_empty());
    assert!(state.last_executed_at.is_some());
    // The state is on S3 beside the trajectory, which is unchanged.
    let records = folder
        .list(Some(&Key::new(".retrace_state/login.json").unwrap()))
        .await
        .unwrap();
    assert_eq!(records.len(), 1, "{records:?}");
    let stored = folder
        .get(&Key::new("login.json").unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.bytes, trajectory);
}

#[tokio::test]
async fn a_suite_runs_from_s3_and_keeps_its_run_state_there() {
    retrace_test_support::require!(Chromium);
    let Some(moto) = Moto::start().await else {
        return;
    };
    moto.create_bucket("retrace-suites");
    let suite = open(&moto, "s3://retrace-suites/smoke");
    let trajectory = retrace_runner::demo::DEMO_RECORDING.as_bytes();
    suite
        .put_create(&Key::new("flows/login.json").unwrap(), trajectory)
        .await
        .unwrap();
    let demo = DemoThread::start(retrace_demo::DemoConfig::default());
    let cwd = tempfile::tempdir().unwrap();
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_retrace"))
            .current_dir(cwd.path())
            .args(["run", "s3://retrace-suites/smoke/", "--url", demo.url()])
            .args(["--param", "username=demo", "--json", "--jobs", "1"])
            .env("RETRACE_PARAM_PASSWORD", retrace_demo::DEMO_PASSWORD)
            .envs(moto.env())
            .output()
            .unwrap()
    };
    for _ in 0..2 {
        let output = run();
        let report: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
        assert_eq!(
            output.status.code(),
            Some(0),
            "{report:#}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(report["totals"]["passed"], 1, "{report:#}");
        assert_eq!(report["tests"][0]["id"], "flows/login.json", "{report:#}");
        assert_eq!(report["name"], "smoke", "{report:#}");
        // The report names the file where it lives, not the private copy the run read.
        let url = "s3://retrace-suites/smoke/flows/login.json";
        assert_eq!(report["tests"][0]["file"], url, "{report:#}");
        assert_eq!(report["tests"][0]["attempts"][0]["name"], url, "{report:#}");
        let rerun = report["tests"][0]["rerun"].as_str().unwrap();
        assert!(
            rerun.starts_with(&format!("retrace replay {url} --url ")),
            "{rerun}"
        );
    }
    let state = RunRecords::new(suite.clone())
        .load("flows/login.json", trajectory)
        .await
        .unwrap();
    assert_eq!(state.execution_attempts, 2);
    assert!(state.is_valid);
    // Nothing was written beside the command: the state is on S3.
    assert!(!cwd.path().join(".retrace_state").exists());
}
