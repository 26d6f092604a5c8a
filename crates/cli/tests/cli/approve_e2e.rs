//! `retrace approve` end to end: the bundled demo recording run as a suite against the `v2`
//! layout (whose relabelled "New invoice" button fails it at step 7), approved from that
//! run's evidence, and run again: the real binary, the real demo app, real headless Chromium.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::process::Output;

use retrace_runner::demo::CAUGHT_STEP;
use retrace_runner::demo::DEMO_RECORDING;
use retrace_test_support::demo::DemoConfig;
use retrace_test_support::demo::DemoThread;
use serde_json::Value;

fn retrace(cwd: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_retrace"));
    command
        .current_dir(cwd)
        .env_remove("RETRACE_URL")
        .env_remove("RETRACE_JOBS")
        .env("RETRACE_PARAM_PASSWORD", retrace_demo::DEMO_PASSWORD);
    command
}

/// A suite in `dir` of the demo recording, run against the v2 layout of the app at `url`.
fn v2_suite(dir: &Path, url: &str) -> PathBuf {
    std::fs::write(
        dir.join("retrace.toml"),
        format!(
            "[defaults]\nurl = \"{url}?layout=v2\"\n# Generous: a loaded machine is slow, and a \
             failure must not come from a timeout.\nstep_timeout = 30.0\n\n[parameters]\n\
             username = \"{}\"\n",
            retrace_demo::DEMO_USERNAME
        ),
    )
    .unwrap();
    let file = dir.join("flow.json");
    std::fs::write(&file, DEMO_RECORDING).unwrap();
    file
}

/// `retrace run flow.json --json` in `dir`: the exit code and the only test's report.
fn run(dir: &Path) -> (Option<i32>, Value) {
    let output = retrace(dir)
        .args(["run", "flow.json", "--json", "--jobs", "1"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!("{error}: {}", describe(&output));
    });
    (output.status.code(), report["tests"][0].clone())
}

fn describe(output: &Output) -> String {
    format!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn approve(dir: &Path, extra: &[&str]) -> Output {
    retrace(dir)
        .args(["approve", "flow.json"])
        .args(extra)
        .output()
        .unwrap()
}

/// The kept previous versions of flow.json in `dir`.
fn previous_versions(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("flow.previous-"))
        })
        .collect();
    found.sort();
    found
}

fn step(file: &Path, number: usize) -> Value {
    let cache: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    cache["trajectory"][number - 1].clone()
}

#[test]
fn approving_the_v2_change_rerecords_step_7_and_keeps_the_old_file_beside_it() {
    retrace_test_support::require!(Chromium);
    let demo = DemoThread::start(DemoConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let file = v2_suite(dir, demo.url());

    // Nothing failed yet: nothing to approve.
    let output = approve(dir, &[]);
    assert_eq!(output.status.code(), Some(2), "{}", describe(&output));

    let (code, test) = run(dir);
    assert_eq!(code, Some(1), "{test:#}");
    assert_eq!(test["step"], CAUGHT_STEP, "{test:#}");

    // Only the step that failed can be approved.
    let output = approve(dir, &["--step", "3"]);
    assert_eq!(output.status.code(), Some(2), "{}", describe(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("flow.json")
            && stderr.contains(
                "cannot approve step 3: it did not fail in the last failed run (step 7 did)"
            ),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), DEMO_RECORDING);

    let recorded = step(&file, CAUGHT_STEP);
    let output = approve(dir, &["--step", &CAUGHT_STEP.to_string()]);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let approved = step(&file, CAUGHT_STEP);
    assert_ne!(
        approved["visual_representation"],
        recorded["visual_representation"],
        "{}",
        describe(&output)
    );
    assert_ne!(approved["visual_crop"], recorded["visual_crop"]);
    assert_eq!(approved["element"]["name"], "Add invoice", "{approved:#}");
    assert_eq!(recorded["element"]["name"], "New invoice");
    // The other steps are as recorded.
    for number in (1..=6).chain(8..=13) {
        assert_eq!(step(&file, number), {
            let original: Value = serde_json::from_str(DEMO_RECORDING).unwrap();
            original["trajectory"][number - 1].clone()
        });
    }
    let kept = previous_versions(dir);
    assert_eq!(kept.len(), 1, "{kept:?}");
    let previous: Value = serde_json::from_slice(&std::fs::read(&kept[0]).unwrap()).unwrap();
    let original: Value = serde_json::from_str(DEMO_RECORDING).unwrap();
    assert_eq!(previous["trajectory"], original["trajectory"]);
    assert_eq!(previous["metadata"]["is_valid"], false);

    // The approved file replays on v2 past step 7's check before acting.
    let (code, test) = run(dir);
    eprintln!("after approving once: exit {code:?}: {test:#}");
    assert_eq!(code, Some(0), "{test:#}");
}
