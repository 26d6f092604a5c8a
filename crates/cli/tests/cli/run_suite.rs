//! `retrace run` end to end: the real binary, the real demo app, real headless Chromium, on
//! suites of recordings made from the bundled demo flow.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::process::Stdio;
use std::time::Duration;
use std::time::Instant;

use retrace_runner::demo::CAUGHT_STEP;
use retrace_runner::demo::DEMO_RECORDING;
use retrace_test_support::cli::poll;
use retrace_test_support::demo::DemoConfig;
use retrace_test_support::demo::DemoThread;
use retrace_test_support::demo::Latency;
use retrace_test_support::processes;
use retrace_test_support::suite_run;
use retrace_test_support::suite_run::all_text_below;
use retrace_test_support::suite_run::stdout_json;
use serde_json::Value;

const PASSWORD: &str = retrace_demo::DEMO_PASSWORD;

fn retrace(cwd: &Path) -> Command {
    suite_run::retrace_in(env!("CARGO_BIN_EXE_retrace"), cwd)
}

fn demo_recording(root: &Path, relative: &str) -> PathBuf {
    suite_run::write_recording(root, relative, DEMO_RECORDING)
}

/// The Done-when suite: 40 recordings of the demo flow (35 against the layout they were
/// recorded on, 5 against v2, whose changed "New invoice" button fails them at its step),
/// with parameters from every source: the suite file, a per-file section, a
/// `--params-file`, and the secret password from the environment only.
#[test]
fn forty_demo_recordings_pass_35_and_fail_5_at_the_changed_button() {
    retrace_test_support::require!(Chromium);
    let app = DemoThread::start(DemoConfig {
        latency: Latency::Range {
            min_ms: 50,
            max_ms: 300,
        },
        ..DemoConfig::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path();
    for index in 1..=35 {
        let folder = if index <= 20 {
            "v1/login"
        } else {
            "v1/invoices"
        };
        demo_recording(suite, &format!("{folder}/flow-{index:02}.json"));
    }
    for index in 1..=5 {
        demo_recording(suite, &format!("v2/flow-{index:02}.json"));
    }
    let url = app.url();
    std::fs::write(
        suite.join("retrace.toml"),
        format!(
            r#"
[defaults]
url = "{url}"
step_timeout = 15.0

[parameters]
password = {{ env = "DEMO_PASSWORD" }}

[[files]]
match = "v1/login/*.json"
parameters = {{ username = "{user}" }}
tags = ["login"]

[[files]]
match = "v2/*.json"
url = "{url}?layout=v2"
tags = ["v2"]
"#,
            user = retrace_demo::DEMO_USERNAME
        ),
    )
    .unwrap();
    // The invoices and v2 flows take the user name from a parameters file.
    std::fs::write(
        suite.join("params.toml"),
        format!("username = \"{}\"\n", retrace_demo::DEMO_USERNAME),
    )
    .unwrap();
    let started = Instant::now();
    let output = retrace(suite)
        .args([
            "run",
            ".",
            "--jobs",
            "4",
            "--params-file",
            "params.toml",
            "--json",
            "--report",
            "html,junit,json",
            "--out",
            "out",
        ])
        .env("DEMO_PASSWORD", PASSWORD)
        .output()
        .unwrap();
    eprintln!(
        "40 tests with --jobs 4 took {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let report = stdout_json(&output);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{report:#}\n{stderr}");
    assert_eq!(report["totals"]["tests"], 40, "{report:#}");
    assert_eq!(report["totals"]["passed"], 35, "{report:#}");
    assert_eq!(report["totals"]["failed"], 5, "{report:#}");
    let tests = report["tests"].as_array().unwrap();
    for test in tests {
        let id = test["id"].as_str().unwrap();
        if id.starts_with("v2/") {
            assert_eq!(test["status"], "failed", "{test:#}");
            assert_eq!(test["step"], CAUGHT_STEP, "{test:#}");
            assert_eq!(test["tags"], serde_json::json!(["v2"]));
            let failed_step = test["steps"]
                .as_array()
                .unwrap()
                .iter()
                .find(|step| step["step"] == CAUGHT_STEP)
                .unwrap();
            let mismatch = failed_step["checks"]
                .as_array()
                .unwrap()
                .iter()
                .find(|check| check["check"] == "visual" && check["passed"] == false)
                .unwrap_or_else(|| panic!("no failed visual check: {failed_step:#}"));
            assert!(
                mismatch["distance"].as_u64().unwrap() > mismatch["threshold"].as_u64().unwrap(),
                "{mismatch:#}"
            );
            assert!(test["artifacts"]["expected_crop"].is_string(), "{test:#}");
            assert!(test["artifacts"]["actual_crop"].is_string(), "{test:#}");
            // A failed test keeps the screen it ended on; a passed one takes none.
            let final_screenshot = test["artifacts"]["final_screenshot"].as_str().unwrap();
            assert!(
                suite.join("out").join(final_screenshot).is_file(),
                "{test:#}"
            );
        } else {
            assert_eq!(test["status"], "passed", "{test:#}");
            assert_eq!(test["step"], Value::Null);
            assert!(test["artifacts"]["final_screenshot"].is_null(), "{test:#}");
        }
    }
    // All three reports are written; the JSON one is the same document; no secret reached
    // the report folder.
    for name in ["report.html", "junit.xml"] {
        assert!(suite.join("out").join(name).is_file(), "{name} missing");
    }
    let junit = std::fs::read_to_string(suite.join("out/junit.xml")).unwrap();
    assert_eq!(junit.matches("<failure").count(), 5, "{junit}");
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(suite.join("out/report.json")).unwrap())
            .unwrap();
    assert_eq!(written, report);
    let everything = all_text_below(&suite.join("out"));
    assert!(
        everything.contains("flow-01"),
        "the evidence folder is empty"
    );
    assert!(
        !everything.contains(PASSWORD),
        "the password reached the report folder"
    );
    assert!(!String::from_utf8_lossy(&output.stdout).contains(PASSWORD));
}

/// Ctrl-C during a 40-test run: exit 2, the report of what ran (the rest skipped as
/// interrupted), and no Chromium process of the run left.
#[test]
fn ctrl_c_stops_the_suite_writes_the_report_and_leaves_no_browser() {
    retrace_test_support::require!(Chromium);
    let app = DemoThread::start(DemoConfig {
        latency: Latency::Fixed(400),
        ..DemoConfig::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path();
    for index in 1..=40 {
        demo_recording(suite, &format!("flows/flow-{index:02}.json"));
    }
    // No suite file: everything from flags and the environment.
    let mut child = retrace(suite)
        .args(["run", "flows", "--url", app.url(), "--jobs", "4"])
        .args([
            "--param",
            "username=demo",
            "--report",
            "json",
            "--out",
            "out",
        ])
        .env("RETRACE_PARAM_PASSWORD", PASSWORD)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // Wait until the browser runs and a test has started.
    let browsers = poll(Duration::from_secs(120), || {
        assert!(
            child.try_wait().unwrap().is_none(),
            "retrace ended before it was interrupted"
        );
        let browsers = processes::children_with_cmdline_containing(pid, "chromium");
        let started = suite.join("out/tests").is_dir();
        (!browsers.is_empty() && started).then_some(browsers)
    })
    .expect("no browser started");
    let status = Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let interrupted = Instant::now();
    let exit = poll(Duration::from_secs(60), || child.try_wait().unwrap())
        .expect("retrace did not stop after SIGINT");
    eprintln!(
        "exited {:.2} s after SIGINT",
        interrupted.elapsed().as_secs_f64()
    );
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(exit.code(), Some(2), "{stderr}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(suite.join("out/report.json")).unwrap())
            .unwrap();
    assert_eq!(report["interrupted"], true);
    assert_eq!(report["totals"]["tests"], 40);
    let skipped = report["totals"]["skipped"].as_u64().unwrap();
    assert!(skipped >= 1, "{report:#}");
    for test in report["tests"].as_array().unwrap() {
        if test["status"] == "skipped" {
            assert!(
                test["skip_reason"]
                    .as_str()
                    .unwrap()
                    .starts_with("interrupted"),
                "{test:#}"
            );
        }
    }
    // Every process of the browsers' groups (the browser and its helpers) is gone.
    let group_of_browsers = || -> Vec<u32> {
        browsers
            .iter()
            .flat_map(|browser| processes::processes_in_group(*browser))
            .collect()
    };
    let gone = poll(Duration::from_secs(30), || {
        group_of_browsers().is_empty().then_some(())
    });
    assert!(
        gone.is_some(),
        "Chromium processes left: {:?}",
        group_of_browsers()
    );
}

/// Ten runs of a committed trajectory leave it byte-identical (the runs are counted in
/// `.retrace_state/`); `--write-metadata` writes into it as askui would.
#[test]
fn a_trajectory_stays_byte_identical_after_ten_runs() {
    retrace_test_support::require!(Chromium);
    let app = DemoThread::start(DemoConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path();
    let file = demo_recording(suite, "flows/login.json");
    let committed = std::fs::read(&file).unwrap();
    let run = |extra: &[&str]| {
        let output = retrace(suite)
            .args([
                "run",
                "flows",
                "--url",
                app.url(),
                "--param",
                "username=demo",
            ])
            .args(["--json", "--jobs", "1"])
            .args(extra)
            .env("RETRACE_PARAM_PASSWORD", PASSWORD)
            .output()
            .unwrap();
        let report = stdout_json(&output);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{report:#}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(report["totals"]["passed"], 1, "{report:#}");
    };
    for _ in 0..10 {
        run(&[]);
    }
    assert!(
        std::fs::read(&file).unwrap() == committed,
        "the trajectory changed"
    );
    let state: Value = serde_json::from_str(
        &std::fs::read_to_string(suite.join(".retrace_state/flows__login.json.state.json"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(state["execution_attempts"], 10, "{state:#}");
    assert_eq!(state["file"], "flows/login.json");

    run(&["--write-metadata"]);
    let updated: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(updated["metadata"]["execution_attempts"], 1, "{updated:#}");
    assert!(updated["metadata"]["last_executed_at"].is_string());
}

/// A suite outside the current folder (no suite file) keeps its run state where `retrace
/// replay` keeps a file's: in the file's own folder, not in the current one; a replay of the
/// same file then counts in the same place, and `approve` finds a failed run there.
#[test]
fn a_suite_outside_the_current_folder_keeps_its_state_beside_its_files() {
    retrace_test_support::require!(Chromium);
    let app = DemoThread::start(DemoConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let file = demo_recording(dir.path(), "elsewhere/flows/login.json");
    let cwd = dir.path().join("here");
    std::fs::create_dir(&cwd).unwrap();
    let output = retrace(&cwd)
        .arg("run")
        .arg(dir.path().join("elsewhere/flows"))
        .args(["--url", app.url(), "--param", "username=demo", "--json"])
        .env("RETRACE_PARAM_PASSWORD", PASSWORD)
        .output()
        .unwrap();
    let report = stdout_json(&output);
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    assert!(
        !cwd.join(".retrace_state").exists(),
        "the run wrote its state into the current folder"
    );
    let state_file = dir
        .path()
        .join("elsewhere/flows/.retrace_state/login.json.state.json");
    let attempts = || {
        let state: Value =
            serde_json::from_str(&std::fs::read_to_string(&state_file).unwrap()).unwrap();
        assert_eq!(state["file"], "login.json", "{state:#}");
        state["execution_attempts"].clone()
    };
    assert_eq!(attempts(), 1);
    let output =
        retrace_test_support::cli::demo_replay(env!("CARGO_BIN_EXE_retrace"), &file, app.url())
            .current_dir(&cwd)
            .output()
            .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(attempts(), 2);
    // A run that fails there (v2 relabels a button) is what `approve` finds from here.
    let output = retrace(&cwd)
        .arg("run")
        .arg(dir.path().join("elsewhere/flows"))
        .args(["--url", &format!("{}?layout=v2", app.url())])
        .args(["--param", "username=demo", "--json"])
        .env("RETRACE_PARAM_PASSWORD", PASSWORD)
        .output()
        .unwrap();
    let report = stdout_json(&output);
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    let output = retrace(&cwd).arg("approve").arg(&file).output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!cwd.join(".retrace_state").exists());
}

/// A file marked invalid is skipped with its reason (no browser needed); a bad `[[files]]`
/// section makes the tests it matches errors naming it, and a bad `[defaults]` setting stops
/// the run, both with exit 2 naming the file, the field, the value and where it is.
#[test]
fn invalid_files_are_skipped_and_bad_suite_files_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path();
    let file = demo_recording(suite, "flows/old.json");
    retrace_cache::update_file(
        &file,
        retrace_cache::DEFAULT_MAX_FILE_SIZE,
        &retrace_cache::MetadataUpdate::Invalidate {
            reason: "superseded by new.json".into(),
        },
        &retrace_cache::validators::Validators::none(),
    )
    .unwrap();
    let output = retrace(suite)
        .args(["run", "flows", "--url", "http://127.0.0.1:9/", "--json"])
        .args(["--param", "username=demo", "--param", "password=x"])
        .output()
        .unwrap();
    let report = stdout_json(&output);
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    assert_eq!(report["totals"]["skipped"], 1);
    let reason = report["tests"][0]["skip_reason"].as_str().unwrap();
    assert!(reason.contains("superseded by new.json"), "{reason}");

    std::fs::write(
        suite.join("retrace.toml"),
        "[defaults]\nurl = \"http://127.0.0.1:9/\"\n\n[[files]]\nmatch = \"flows/*.json\"\nthreshold = \"ten\"\n",
    )
    .unwrap();
    // The section spoils the tests it matches, which are errors naming it (no browser needed).
    let output = retrace(suite)
        .args(["run", "flows", "--json"])
        .args(["--param", "username=demo", "--param", "password=x"])
        .output()
        .unwrap();
    let report = stdout_json(&output);
    assert_eq!(output.status.code(), Some(2), "{report:#}");
    assert_eq!(report["totals"]["error"], 1, "{report:#}");
    assert_eq!(
        report["tests"][0]["attempts"][0]["error"],
        "flows/old.json: retrace.toml: files[0].threshold = \"ten\" (line 6, column 13, in the \
         section matching \"flows/*.json\"): invalid type: string \"ten\", expected u32",
        "{report:#}"
    );
    // A bad setting for every test stops the suite.
    std::fs::write(
        suite.join("retrace.toml"),
        "[defaults]\nthreshold = \"ten\"\n",
    )
    .unwrap();
    let output = retrace(suite).args(["run", "flows"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("retrace.toml: defaults.threshold (line 2, column 13): invalid type"),
        "{stderr}"
    );
}

/// `--list` prints each test with the url it would open, after the filters, and runs nothing.
#[test]
fn list_prints_what_would_run_with_its_url() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path();
    demo_recording(suite, "v1/a.json");
    demo_recording(suite, "v1/b.json");
    demo_recording(suite, "v2/c.json");
    std::fs::write(
        suite.join("retrace.toml"),
        "[defaults]\nurl = \"http://app/\"\n[parameters]\nusername = \"demo\"\n\n[[files]]\nmatch = \"v2/*\"\nurl = \"http://app/?layout=v2\"\ntags = [\"v2\"]\n",
    )
    .unwrap();
    let list = |extra: &[&str]| {
        let output = retrace(suite)
            .args(["run", ".", "--list"])
            .args(extra)
            .env("RETRACE_PARAM_PASSWORD", "x")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0));
        String::from_utf8(output.stdout).unwrap()
    };
    assert_eq!(
        list(&[]),
        "v1/a.json  http://app/\nv1/b.json  http://app/\nv2/c.json  http://app/?layout=v2  [v2]\n"
    );
    assert_eq!(
        list(&["--tag", "v2"]),
        "v2/c.json  http://app/?layout=v2  [v2]\n"
    );
    assert_eq!(list(&["--grep", "a\\.json$"]), "v1/a.json  http://app/\n");
    // RETRACE_URL overrides the suite file, and a flag overrides both.
    let output = retrace(suite)
        .args(["run", "v1/a.json", "--list"])
        .env("RETRACE_URL", "http://env/")
        .env("RETRACE_PARAM_PASSWORD", "x")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "v1/a.json  http://env/\n"
    );
    let output = retrace(suite)
        .args(["run", "v1/a.json", "--list", "--url", "http://flag/"])
        .env("RETRACE_URL", "http://env/")
        .env("RETRACE_PARAM_PASSWORD", "x")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "v1/a.json  http://flag/\n"
    );
}
