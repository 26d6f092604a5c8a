//! Faults during a run, each named: SIGTERM (like SIGINT) stopping `replay`, `run` and `act`, a
//! report folder that cannot be written, a model server closing the connection mid-answer, the
//! browser killed mid-step, and a file size limit (`ulimit -f`, SIGXFSZ ignored). Each ends
//! with exit 2, an error that names what failed and why in every place a user reads it (the
//! console, `--json`, the event log), the reports that could be written written, no browser
//! left and no half-written file where a good one was.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Child;
use std::process::Command;
use std::process::Output;
use std::process::Stdio;
use std::time::Duration;

use retrace_runner::demo::DEMO_RECORDING;
use retrace_test_support::cli::assert_not_bare;
use retrace_test_support::cli::poll;
use retrace_test_support::cli::runtime;
use retrace_test_support::demo::DemoConfig;
use retrace_test_support::demo::DemoThread;
use retrace_test_support::fake_model::FakeAnthropic;
use retrace_test_support::fake_model::ScriptStep;
use retrace_test_support::processes;
use retrace_test_support::suite_run;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_retrace");

/// The demo flow's parameters.
fn demo_params(command: &mut Command) -> &mut Command {
    let password = format!("password={}", retrace_demo::DEMO_PASSWORD);
    command.args(["--param", "username=demo", "--param", &password])
}

/// Waits (with a deadline) until `child` has a browser running and `ready` holds; the
/// browsers' process ids.
fn browsers_once(child: &mut Child, ready: impl Fn() -> bool) -> Vec<u32> {
    let pid = child.id();
    poll(Duration::from_secs(120), || {
        assert!(
            child.try_wait().unwrap().is_none(),
            "retrace ended before the fault"
        );
        let browsers = processes::children_with_cmdline_containing(pid, "chromium");
        (!browsers.is_empty() && ready()).then_some(browsers)
    })
    .expect("no browser started")
}

/// Sends `signal` (`TERM`, `KILL`) to `pid`.
fn kill(signal: &str, pid: u32) {
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -{signal} {pid}");
}

/// Waits (with a deadline) for `child` to end; its output. One that does not end is killed
/// with its `browsers` (whole process groups), so a failing test leaves nothing running.
fn finish(mut child: Child, browsers: &[u32]) -> Output {
    if poll(Duration::from_secs(120), || child.try_wait().unwrap()).is_none() {
        for browser in browsers {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{browser}")])
                .status();
        }
        let _ = child.kill();
        panic!("retrace did not stop");
    }
    child.wait_with_output().unwrap()
}

/// Asserts that no process of the browsers' groups (the browser and its helpers) is left.
fn assert_no_browser_left(browsers: &[u32]) {
    let group = || -> Vec<u32> {
        browsers
            .iter()
            .flat_map(|browser| processes::processes_in_group(*browser))
            .collect()
    };
    let gone = poll(Duration::from_secs(30), || group().is_empty().then_some(()));
    assert!(gone.is_some(), "browser processes left: {:?}", group());
}

/// The last line of an event log, a `session_finished` event: its `error`.
fn logged_error(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "session_finished", "{last:#}");
    last["error"].as_str().unwrap().to_owned()
}

/// `retrace replay` of the demo flow with `--json` and an event log, waiting `seconds` before
/// each step: a fault sent once a step is under way meets the run mid-step.
fn slow_replay(dir: &Path, url: &str, seconds: u32) -> Child {
    let flow = suite_run::write_recording(dir, "flow.json", DEMO_RECORDING);
    let mut command = suite_run::retrace_in(BIN, dir);
    command
        .arg("replay")
        .arg(&flow)
        .args(["--url", url, "--json"]);
    let wait = format!("fixed:{seconds}");
    command.args(["--events", "events.jsonl", "--wait", &wait]);
    demo_params(&mut command)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The event log of `dir` holds a step (the replay is under way).
fn a_step_started(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("events.jsonl")).is_ok_and(|log| log.contains("\"step"))
}

/// SIGINT (Ctrl-C) and SIGTERM alike: exit 2, the error naming the signal in the console,
/// `--json` and the event log (whole lines only), no browser left.
#[test]
fn sigint_and_sigterm_end_a_replay_with_exit_2_its_event_log_and_no_browser() {
    retrace_test_support::require!(Chromium);
    let app = DemoThread::start(DemoConfig::default());
    for signal in ["INT", "TERM"] {
        let dir = tempfile::tempdir().unwrap();
        let mut child = slow_replay(dir.path(), app.url(), 600);
        let browsers = browsers_once(&mut child, || a_step_started(dir.path()));
        kill(signal, child.id());
        let output = finish(child, &browsers);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "SIG{signal}: {stderr}");
        let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(summary["status"], "error");
        let error = summary["error"].as_str().unwrap();
        let named = format!("interrupted by SIG{signal}");
        assert_not_bare(error, &[&named]);
        assert_not_bare(&stderr, &[&named]);
        let log = dir.path().join("events.jsonl");
        for line in std::fs::read_to_string(&log).unwrap().lines() {
            serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        }
        assert_eq!(logged_error(&log), error);
        assert_no_browser_left(&browsers);
    }
}

#[test]
fn sigterm_ends_a_suite_run_with_exit_2_every_report_and_no_browser() {
    retrace_test_support::require!(Chromium);
    let app = DemoThread::start(DemoConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path();
    for index in 1..=3 {
        suite_run::write_recording(suite, &format!("flows/flow-{index}.json"), DEMO_RECORDING);
    }
    let mut command = suite_run::retrace_in(BIN, suite);
    command.args(["run", "flows", "--url", app.url(), "--wait", "fixed:600"]);
    command.args(["--report", "json,junit,html", "--out", "out"]);
    let mut child = demo_params(&mut command)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let browsers = browsers_once(&mut child, || suite.join("out/tests").is_dir());
    kill("TERM", child.id());
    let output = finish(child, &browsers);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    for name in ["report.json", "junit.xml", "report.html"] {
        assert!(suite.join("out").join(name).is_file(), "{name} missing");
    }
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(suite.join("out/report.json")).unwrap())
            .unwrap();
    assert_eq!(report["interrupted"], true, "{report:#}");
    assert_eq!(report["totals"]["tests"], 3, "{report:#}");
    assert_eq!(report["totals"]["skipped"], 3, "{report:#}");
    assert_no_browser_left(&browsers);
}

/// SIGTERM stops `retrace act` as it stops a replay, while the model is answering: exit 2,
/// the error naming the signal in the console, `--json` and the event log, no browser left,
/// and nothing recorded: `--cache record` leaves the trajectory already in the cache as it
/// was, with no temporary file beside it.
#[test]
fn sigterm_ends_a_model_run_with_exit_2_no_recording_and_no_browser() {
    retrace_test_support::require!(Chromium);
    let app = DemoThread::start(DemoConfig::default());
    let runtime = runtime();
    // A screenshot, then an answer that comes long after the signal.
    let fake = runtime.block_on(FakeAnthropic::start(vec![
        ScriptStep::tool_use("computer", serde_json::json!({"action": "screenshot"})),
        ScriptStep::text("Logged in.").delayed(Duration::from_secs(600)),
    ]));
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    suite_run::write_recording(&cache, "login.json", DEMO_RECORDING);
    let before = files_below(&cache);
    let log = dir.path().join("events.jsonl");
    let mut child = Command::new(BIN)
        .args([
            "act",
            "Log in to the demo app",
            "--url",
            app.url(),
            "--json",
        ])
        .args([
            "--cache",
            "record",
            "--cache-file",
            "login.json",
            "--cache-dir",
        ])
        .arg(&cache)
        .arg("--events")
        .arg(&log)
        .env_remove("OPENAI_API_KEY")
        .env("ANTHROPIC_API_KEY", "test-key")
        .env("RETRACE_ANTHROPIC_BASE_URL", fake.base_url())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let browsers = browsers_once(&mut child, || fake.requests().len() >= 2);
    kill("TERM", child.id());
    let output = finish(child, &browsers);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["status"], "error", "{summary:#}");
    let error = summary["error"].as_str().unwrap();
    assert_not_bare(error, &["interrupted by SIGTERM", "model run"]);
    assert_not_bare(&stderr, &["interrupted by SIGTERM"]);
    assert_eq!(logged_error(&log), error);
    assert_no_browser_left(&browsers);
    assert!(files_below(&cache) == before, "the cache changed");
}

/// `retrace run` with `--out` a folder nobody may write (read-only: by its mode, and for root,
/// which ignores modes, by a read-only bind mount of its own).
#[test]
fn a_report_folder_that_cannot_be_written_is_exit_2_naming_it() {
    retrace_test_support::require!(Chromium);
    let app = DemoThread::start(DemoConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path();
    suite_run::write_recording(suite, "flows/login.json", DEMO_RECORDING);
    let out = suite.join("locked");
    std::fs::create_dir(&out).unwrap();
    let mut command = read_only(&out, suite);
    command.args([
        "run",
        "flows",
        "--url",
        app.url(),
        "--report",
        "json,junit,html",
    ]);
    command.args(["--out", "locked"]);
    let output = demo_params(&mut command).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let last = stderr.lines().last().unwrap_or_default();
    assert!(last.starts_with("retrace: locked/"), "{stderr}");
    assert_not_bare(last, &["locked", "Read-only file system"]);
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0);
}

/// `retrace` in `cwd`, with `dir` read-only to it.
fn read_only(dir: &Path, cwd: &Path) -> Command {
    let is_root = std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .any(|line| line.starts_with("Uid:") && line.split_whitespace().nth(2) == Some("0"));
    if !is_root {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
        return suite_run::retrace_in(BIN, cwd);
    }
    // A mount namespace of its own, where `dir` is a read-only bind mount of itself.
    let mut command = Command::new("unshare");
    command.current_dir(cwd).args([
        "--mount",
        "sh",
        "-c",
        "mount --bind \"$0\" \"$0\" && mount -o remount,bind,ro \"$0\" \"$0\" && exec \"$@\"",
    ]);
    command.arg(dir).arg(BIN);
    for name in suite_run::INHERITED_RUN_VARIABLES {
        command.env_remove(name);
    }
    command
}

#[test]
fn a_model_server_closing_the_connection_mid_answer_is_exit_2_naming_the_cause() {
    retrace_test_support::require!(Chromium);
    let app = DemoThread::start(DemoConfig::default());
    let runtime = runtime();
    // Every attempt the client makes is cut off half way.
    let cut = ScriptStep::tool_use("computer", serde_json::json!({"action": "screenshot"}))
        .cut_mid_answer();
    let fake = runtime.block_on(FakeAnthropic::start(vec![cut; 8]));
    let dir = tempfile::tempdir().unwrap();
    let output = retrace_test_support::cli::run_retrace(
        BIN,
        &[
            "act",
            "Log in to the demo app",
            "--url",
            app.url(),
            "--json",
            "--events",
            &dir.path().join("events.jsonl").to_string_lossy(),
        ],
        Some(&fake.base_url()),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(fake.requests().len() >= 2, "the cut answer was not retried");
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    let error = summary["error"].as_str().unwrap();
    // The cause, not only "the model failed": the connection closed mid-answer.
    assert_not_bare(error, &["connection closed before message completed"]);
    assert_not_bare(&stderr, &["connection closed before message completed"]);
    assert_eq!(logged_error(&dir.path().join("events.jsonl")), error);
}

#[test]
fn a_browser_killed_mid_step_is_exit_2_naming_its_exit() {
    retrace_test_support::require!(Chromium);
    let app = DemoThread::start(DemoConfig::default());
    let dir = tempfile::tempdir().unwrap();
    // Ten seconds before each of its steps: the browser dies long before the replay could end
    // (two minutes), and the replay meets the dead browser when it next looks at the screen.
    let mut child = slow_replay(dir.path(), app.url(), 10);
    let browsers = browsers_once(&mut child, || a_step_started(dir.path()));
    kill("KILL", browsers[0]);
    let output = finish(child, &browsers);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    let error = summary["error"].as_str().unwrap();
    assert_not_bare(error, &["the browser process exited", "SIGKILL"]);
    assert_not_bare(&stderr, &["the browser process exited", "SIGKILL"]);
    assert_eq!(logged_error(&dir.path().join("events.jsonl")), error);
    assert_no_browser_left(&browsers);
}

/// `retrace report merge` under a file size limit smaller than its reports, SIGXFSZ ignored:
/// every write fails with EFBIG; the files of the merge before stay whole.
#[test]
fn a_file_size_limit_fails_with_exit_2_and_leaves_the_good_files() {
    let dir = tempfile::tempdir().unwrap();
    let shard = dir.path().join("shard");
    let mut report = retrace_test_support::suite_report::report(
        &shard,
        retrace_test_support::suite_report::Mix {
            tests: 4,
            failed: 2,
            error: 0,
            flaky: 0,
            skipped: 0,
        },
    );
    report.name = "limited".into();
    let kinds = [retrace_report::suite::ReportKind::Json];
    retrace_report::suite::write_reports(&report, &kinds, &shard).unwrap();
    let merge = |limit: Option<u64>| {
        let mut command = Command::new("sh");
        command.current_dir(dir.path()).arg("-c");
        match limit {
            Some(bytes) => command
                .arg("trap '' XFSZ; exec prlimit --fsize=\"$0\" -- \"$@\"")
                .arg(bytes.to_string()),
            None => command.arg("exec \"$@\"").arg("sh"),
        };
        command
            .args([BIN, "report", "merge", "shard", "--out", "merged"])
            .output()
            .unwrap()
    };
    let good = merge(None);
    assert_eq!(good.status.code(), Some(0), "{good:?}");
    let before = files_below(&dir.path().join("merged"));
    let sizes: Vec<(&str, usize)> = before
        .iter()
        .map(|(name, bytes)| (name.as_str(), bytes.len()))
        .collect();
    assert!(sizes.iter().any(|(_, size)| *size > 1000), "{sizes:?}");
    let limited = merge(Some(1000));
    let stderr = String::from_utf8_lossy(&limited.stderr);
    assert_eq!(limited.status.code(), Some(2), "{stderr}");
    assert_not_bare(stderr.trim(), &["merged/", "File too large"]);
    // Every file is as the good merge left it (none truncated), and no temporary is left.
    let after = files_below(&dir.path().join("merged"));
    let names = |files: &[(String, Vec<u8>)]| -> Vec<String> {
        files.iter().map(|(name, _)| name.clone()).collect()
    };
    assert_eq!(names(&after), names(&before));
    assert!(after == before, "a file changed: {sizes:?}");
}

/// Every file below `dir` (temporary ones included) with its bytes, by path.
fn files_below(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let name = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                files.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}
