//! What users and their tools read stays the same through refactoring: the `--json` documents,
//! the JUnit reports and the event logs of `replay`, `run` and `check` on the demo app, each
//! compared with a snapshot recorded before the house refactor (issue 38), timings, ports and
//! paths aside.
//!
//! A change to any of them is a change users see: accept a new snapshot only with a line in
//! `CHANGELOG.md` (`INSTA_UPDATE=always cargo test -p retrace-cli --test cli --features e2e
//! golden_output`, then review the `.snap` diff).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;
use std::process::Output;

use retrace_demo::DemoConfig;
use retrace_demo::Layout;
use retrace_test_support::demo::DemoThread;
use serde_json::Value;

const FLOW: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../runner/assets/demo_flow.json"
);

/// Runs `retrace ARGS` in `dir`; asserts the exit code.
fn retrace(dir: &Path, args: &[&str], exit: i32) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_retrace"))
        .current_dir(dir)
        .args(args)
        .env_remove("RETRACE_SECRET_PASSWORD")
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(exit),
        "retrace {args:?}\nstdout: {}\nstderr: {}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// What varies from run to run and machine to machine, replaced by a marker: the temporary
/// folder, ports, durations, timestamps and perceptual distances (a measurement; whether the
/// check passed stays).
fn filters(dir: &Path) -> Vec<(String, String)> {
    let dir = regex::escape(&dir.display().to_string());
    [
        (dir.as_str(), "[dir]"),
        (r"127\.0\.0\.1:\d+", "127.0.0.1:[port]"),
        (r#""(\w+_ms)": ?\d+"#, r#""$1": "[ms]""#),
        (r"\d{4}-\d\d-\d\dT[\d:.]+Z", "[time]"),
        (r#"time="[\d.]+""#, r#"time="[s]""#),
        (r#""distance": ?\d+"#, r#""distance": "[n]""#),
        (r"distance:? \d+", "distance [n]"),
        (
            r#""offset": ?\[\s*-?\d+,\s*-?\d+\s*\]"#,
            r#""offset": "[dx, dy]""#,
        ),
        (r"\d+(\.\d+)? s\b", "[t] s"),
    ]
    .into_iter()
    .map(|(pattern, replacement)| (pattern.to_owned(), replacement.to_owned()))
    .collect()
}

/// `text` as JSON pretty-printed, or as it is.
fn pretty(text: &str) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(value) => serde_json::to_string_pretty(&value).unwrap(),
        Err(_) => text.to_owned(),
    }
}

fn snapshot(dir: &Path, name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    for (pattern, replacement) in filters(dir) {
        settings.add_filter(&pattern, replacement);
    }
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

const SIGN_IN: [&str; 4] = [
    "--param",
    "username=demo",
    "--param",
    "password=retrace-demo-pw",
];

#[test]
fn replay_run_and_check_outputs_stay_as_recorded() {
    retrace_test_support::require!(Chromium);
    let v1 = DemoThread::start(DemoConfig::default());
    let v2 = DemoThread::start(DemoConfig {
        layout: Layout::V2,
        ..DemoConfig::default()
    });
    let work = tempfile::tempdir().unwrap();
    // A folder of a fixed name: the suite is named after it.
    let dir = &work.path().join("golden");
    std::fs::create_dir(dir).unwrap();
    std::fs::copy(FLOW, dir.join("flow.json")).unwrap();
    std::fs::create_dir(dir.join("suite")).unwrap();
    for name in ["login.json", "again.json"] {
        std::fs::copy(FLOW, dir.join("suite").join(name)).unwrap();
    }

    // replay: a pass on v1 and the demo's failure on v2.
    for (name, url, exit) in [("replay_pass", v1.url(), 0), ("replay_v2", v2.url(), 1)] {
        let events = format!("{name}.events.jsonl");
        let mut args = vec!["replay", "flow.json", "--url", url, "--json"];
        args.extend(SIGN_IN);
        args.extend(["--events", events.as_str()]);
        let output = retrace(dir, &args, exit);
        snapshot(dir, name, &pretty(&String::from_utf8_lossy(&output.stdout)));
        snapshot(dir, &format!("{name}_events"), &read(&dir.join(&events)));
    }

    // run: two tests, one at a time so the event logs' order is fixed.
    let mut args = vec!["run", "suite", "--url", v1.url(), "--jobs", "1"];
    args.extend(SIGN_IN);
    args.extend(["--report", "json,junit", "--out", "run", "--json"]);
    let output = retrace(dir, &args, 0);
    snapshot(
        dir,
        "run",
        &pretty(&String::from_utf8_lossy(&output.stdout)),
    );
    snapshot(
        dir,
        "run_report",
        &pretty(&read(&dir.join("run/report.json"))),
    );
    snapshot(dir, "run_junit", &read(&dir.join("run/junit.xml")));
    snapshot(
        dir,
        "run_events",
        &read(&dir.join("run/tests/suite__login.json/events.jsonl")),
    );

    // check: v2's moved button is a FAIL.
    let args = [
        "check",
        "--baseline",
        v1.url(),
        "--candidate",
        v2.url(),
        "--page",
        "/",
        "--jobs",
        "1",
        "--report",
        "json,junit",
        "--out",
        "chk",
        "--json",
    ];
    let output = retrace(dir, &args, 1);
    snapshot(
        dir,
        "check",
        &pretty(&String::from_utf8_lossy(&output.stdout)),
    );
    snapshot(dir, "check_junit", &read(&dir.join("chk/junit.xml")));
    snapshot(dir, "check_events", &read(&dir.join("chk/events.jsonl")));
}
