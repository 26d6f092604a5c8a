//! `retrace demo` and `retrace replay` end to end: the real binary, the real demo app, real
//! headless Chromium.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use serde_json::Value;

fn retrace() -> Command {
    Command::new(env!("CARGO_BIN_EXE_retrace"))
}

/// `retrace replay FILE --url URL` with the demo's sign-in parameters, `--json` and `extra`.
fn replay_demo_flow(file: &std::path::Path, url: &str, extra: &[&str]) -> std::process::Output {
    retrace()
        .args(["replay"])
        .arg(file)
        .args(["--url", url])
        .args([
            "--param",
            "username=demo",
            "--param",
            "password=retrace-demo-pw",
            "--json",
        ])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn demo_replays_repairs_the_moved_button_and_catches_the_changed_one() {
    retrace_test_support::require!(Chromium);
    let out = tempfile::tempdir().unwrap();
    let output = retrace()
        .args(["demo", "--json", "--latency-ms", "100..600", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "stdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(summary["as_expected"], true);
    assert_eq!(summary["phases"][0]["layout"], "v1");
    let v1 = &summary["phases"][0]["session"];
    assert_eq!(v1["status"], "passed");
    assert_eq!(v1["replay"]["checks_passed"]["visual"], 8);
    assert_eq!(v1["replay"]["checks_passed"]["effect"], 7);
    assert_eq!(v1["replay"]["checks_passed"]["navigation"], 1);
    assert_eq!(v1["replay"]["repairs"].as_array().unwrap().len(), 0);

    let v2 = &summary["phases"][1]["session"];
    assert_eq!(v2["status"], "failed");
    let repairs = v2["replay"]["repairs"].as_array().unwrap();
    assert_eq!(repairs.len(), 1, "{v2}");
    assert_eq!(repairs[0]["step"], 6);
    // The sign-in button moved 40 px right and 24 px down in v2.
    let offset = repairs[0]["offset"].as_array().unwrap();
    assert!(
        (offset[0].as_i64().unwrap() - 40).abs() <= 4
            && (offset[1].as_i64().unwrap() - 24).abs() <= 4,
        "{offset:?}"
    );
    let failure = &v2["replay"]["failure"];
    assert_eq!(failure["step"], 7);
    assert_eq!(failure["kind"], "mismatch");
    let message = failure["message"].as_str().unwrap();
    assert!(
        message.contains("Visual validation failed at step 7"),
        "{message}"
    );
    assert!(message.contains("> threshold: 10"), "{message}");
    // Both checks that failed are named, each with its own reason, in sentences.
    assert!(
        message.contains(
            "The semantic check failed too: expected button 'New invoice', found button 'Add invoice'."
        ),
        "{message}"
    );
    assert!(message.contains(". Replay waited "), "{message}");

    // Evidence: event logs with the checks, final screenshots, the file with its metadata.
    let evidence = std::path::PathBuf::from(summary["evidence"].as_str().unwrap());
    let files = |session: &Value| -> Vec<std::path::PathBuf> {
        session["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .map(|path| path.as_str().unwrap().into())
            .collect()
    };
    let events = std::fs::read_to_string(&files(v2)[0]).unwrap();
    assert!(
        events
            .lines()
            .any(|line| line.contains("\"check_finished\"") && line.contains("\"passed\":false"))
    );
    // The user name is no secret: paths holding it are not mangled; the password is.
    assert!(
        !events.contains("<redacted>"),
        "nothing secret was in the log to redact"
    );
    assert!(!events.contains(retrace_demo::DEMO_PASSWORD));
    for session in [v1, v2] {
        let png = std::fs::read(&files(session)[1]).unwrap();
        assert!(png.starts_with(b"\x89PNG"));
    }
    // The failed step's evidence: the crop recorded in the trajectory and the one replay saw.
    let crops: Vec<std::path::PathBuf> = files(v2)
        .into_iter()
        .filter(|path| path.to_string_lossy().contains("-step7-"))
        .collect();
    assert_eq!(crops.len(), 2, "{crops:?}");
    for crop in &crops {
        let image = retrace_vision::decode_png(&std::fs::read(crop).unwrap()).unwrap();
        assert_eq!(
            (image.width(), image.height()),
            (100, 100),
            "{}",
            crop.display()
        );
    }
    let expected = std::fs::read(&crops[0]).unwrap();
    let actual = std::fs::read(&crops[1]).unwrap();
    assert_ne!(
        expected, actual,
        "the expected crop is the recording's, not the screen's"
    );
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(evidence.join("demo_flow.json")).unwrap())
            .unwrap();
    assert_eq!(file["metadata"]["execution_attempts"], 2);
    let failures = file["metadata"]["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1);
    // The file keeps askui's 0-based numbering: index 6 is step 7.
    assert_eq!(failures[0]["step_index"], 6);
    // The parameter values were never written.
    let text = std::fs::read_to_string(evidence.join("demo_flow.json")).unwrap();
    assert!(!text.contains(retrace_demo::DEMO_PASSWORD));
}

#[test]
fn replay_names_missing_parameters_and_bad_files_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("demo.json");
    std::fs::write(&file, retrace_runner::demo::DEMO_RECORDING).unwrap();
    let output = retrace()
        .args(["replay"])
        .arg(&file)
        .args(["--url", "http://127.0.0.1:9/"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("needs values for its parameters: password, username"),
        "{stderr}"
    );

    let missing = dir.path().join("nope.json");
    let output = retrace()
        .args(["replay"])
        .arg(&missing)
        .args(["--url", "http://127.0.0.1:9/"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("nope.json"));
}

#[test]
fn replay_of_the_bundled_recording_passes_on_the_layout_it_was_recorded_on() {
    retrace_test_support::require!(Chromium);
    let demo = retrace_test_support::demo::DemoThread::start(retrace_demo::DemoConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("flow.json");
    std::fs::write(&file, retrace_runner::demo::DEMO_RECORDING).unwrap();
    let output = replay_demo_flow(&file, demo.url(), &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(summary["status"], "passed");
    assert_eq!(summary["replay"]["steps_replayed"], 12);
    assert_eq!(summary["replay"]["checks_passed"]["visual"], 8);
    // The sign-in is checked by where it leads; the other 7 steps at a point by their pixels.
    assert_eq!(summary["replay"]["checks_passed"]["effect"], 7);
    assert_eq!(summary["replay"]["checks_passed"]["navigation"], 1);
    // The run is counted beside the file (it is outside the current folder), not in it.
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        retrace_runner::demo::DEMO_RECORDING,
        "replay rewrote the trajectory"
    );
    let state: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join(".retrace_state/flow.json.state.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(state["execution_attempts"], 1, "{state}");
    assert!(state["last_executed_at"].is_string(), "{state}");
}

fn git(repo: &std::path::Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "core.autocrlf=false",
        ])
        .args(args)
        .current_dir(repo)
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {output:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// A committed recording stays as committed: replay counts its runs in `.retrace_state/`
/// (which ignores itself), and `--write-metadata` rewrites the file in its own layout, so the
/// diff is the metadata lines that changed.
#[test]
fn replaying_a_committed_trajectory_leaves_git_status_clean() {
    retrace_test_support::require!(Chromium);
    let demo = retrace_test_support::demo::DemoThread::start(retrace_demo::DemoConfig::default());
    let repo = tempfile::tempdir().unwrap();
    std::fs::create_dir(repo.path().join("flows")).unwrap();
    std::fs::write(
        repo.path().join("flows/login.json"),
        retrace_runner::demo::DEMO_RECORDING,
    )
    .unwrap();
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-q", "-m", "recording"]);
    let replay = |extra: &[&str]| {
        let output = retrace_test_support::cli::demo_replay(
            env!("CARGO_BIN_EXE_retrace"),
            "flows/login.json",
            demo.url(),
        )
        .args(extra)
        .current_dir(repo.path())
        .output()
        .unwrap();
        assert_eq!(output.status.code(), Some(0), "{output:?}");
    };

    replay(&[]);
    assert_eq!(git(repo.path(), &["status", "--porcelain"]), "");
    let state = repo
        .path()
        .join(".retrace_state/flows__login.json.state.json");
    assert!(
        state.is_file(),
        "the run is counted where `retrace run` counts it"
    );

    replay(&["--write-metadata"]);
    let diff = git(repo.path(), &["diff", "-U0", "--", "flows/login.json"]);
    // Every hunk lies in the metadata, which the file holds before its trajectory.
    let trajectory_line = |text: &str| {
        text.lines()
            .position(|line| line.trim_start().starts_with("\"trajectory\""))
            .unwrap()
            + 1
    };
    let old_end = trajectory_line(retrace_runner::demo::DEMO_RECORDING);
    let new_end =
        trajectory_line(&std::fs::read_to_string(repo.path().join("flows/login.json")).unwrap());
    let hunks: Vec<&str> = diff.lines().filter(|line| line.starts_with("@@")).collect();
    assert!(!hunks.is_empty(), "--write-metadata wrote nothing");
    for hunk in &hunks {
        let mut ranges = hunk.split_whitespace().skip(1).take(2);
        for (range, end) in [
            (ranges.next().unwrap(), old_end),
            (ranges.next().unwrap(), new_end),
        ] {
            let start: usize = range[1..].split(',').next().unwrap().parse().unwrap();
            assert!(start < end, "a change outside the metadata: {hunk}\n{diff}");
        }
    }
    let changed = diff
        .lines()
        .filter(|line| {
            line.starts_with(['+', '-']) && !line.starts_with("+++") && !line.starts_with("---")
        })
        .count();
    assert!(changed <= 12, "{diff}");
}

/// Replays the bundled recording with step `index`'s (0-based) after-action hash flipped
/// (every bit: as far from the recorded state as a hash can be); the `--json` document.
fn replay_with_flipped_after_hash(index: usize) -> (Option<i32>, Value, Value) {
    let demo = retrace_test_support::demo::DemoThread::start(retrace_demo::DemoConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("flow.json");
    let mut recording: Value = serde_json::from_str(retrace_runner::demo::DEMO_RECORDING).unwrap();
    let step = &mut recording["trajectory"][index];
    let after = step["visual_representation_after"].as_str().unwrap();
    let flipped = u64::from_str_radix(after, 16).unwrap() ^ u64::MAX;
    step["visual_representation_after"] = Value::String(format!("{flipped:016x}"));
    std::fs::write(&file, serde_json::to_string_pretty(&recording).unwrap()).unwrap();
    // The step timeout bounds every step's wait, not only the last one's: it must be generous
    // (a loaded machine can take seconds over a page load), so this test waits it out once.
    let output = replay_demo_flow(
        &file,
        demo.url(),
        &["--step-timeout", "10", "--write-metadata"],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let summary: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&output.stderr)));
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    (output.status.code(), summary, file)
}

/// The last step has no next step whose wait would show it had its effect: its recorded
/// after-action hash is checked, and a screen that never reaches it fails that step.
#[test]
fn replay_fails_when_the_last_step_does_not_reach_its_recorded_after_state() {
    retrace_test_support::require!(Chromium);
    let (code, summary, file) = replay_with_flipped_after_hash(12);
    assert_eq!(code, Some(1), "{summary}");
    let replay = &summary["replay"];
    assert_eq!(summary["status"], "failed");
    assert_eq!(replay["steps_replayed"], 13 - 1);
    assert_eq!(replay["checks_passed"]["visual"], 8);
    assert_eq!(replay["checks_passed"]["effect"], 6);
    let failure = &replay["failure"];
    assert_eq!(
        (&failure["step"], &failure["kind"]),
        (&Value::from(13), &Value::from("effect"))
    );
    let message = failure["message"].as_str().unwrap();
    assert!(
        message.contains("Effect check failed after step 13 (mouse_move at (735, 622))"),
        "{message}"
    );
    assert!(message.contains("> threshold: 10"), "{message}");
    let failures = file["metadata"]["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0]["step_index"], 12);
}

/// Every step's effect is checked, not only the last one's: a flipped after-action hash in
/// the middle of the flow (step 10, the click into the amount field) fails there, not at a
/// later step.
#[test]
fn replay_fails_at_the_step_whose_effect_is_missing() {
    retrace_test_support::require!(Chromium);
    let (code, summary, _) = replay_with_flipped_after_hash(9);
    assert_eq!(code, Some(1), "{summary}");
    let failure = &summary["replay"]["failure"];
    assert_eq!(failure["step"], 10, "{failure}");
    assert_eq!(failure["kind"], "effect", "{failure}");
    assert_eq!(
        summary["replay"]["steps_replayed"], 9,
        "nothing after step 10 ran"
    );
}

/// `--connect`: replays into a browser somebody else runs, each in a browser context of its
/// own, so sessions neither leak into that browser nor pass between runs, and no tab is left.
#[test]
fn replays_into_a_running_browser_leave_no_session_or_tab_behind() {
    retrace_test_support::require!(Chromium);
    use retrace_drive::BrowserBackend;
    use retrace_drive::chromium::ChromiumConfig;

    let demo = retrace_test_support::demo::DemoThread::start(retrace_demo::DemoConfig::default());
    let runtime = retrace_test_support::cli::runtime();
    let browser = runtime.block_on(retrace_test_support::chromium::started(
        &ChromiumConfig::default(),
    ));
    let pages_before = runtime.block_on(page_targets(browser.ws_url()));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("flow.json");
    std::fs::write(&file, retrace_runner::demo::DEMO_RECORDING).unwrap();
    for run in 0..2 {
        let output = replay_demo_flow(&file, demo.url(), &["--connect", browser.ws_url()]);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(
            output.status.code(),
            Some(0),
            "run {run}: {stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let summary: Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!(
            summary["replay"]["checks_passed"]["visual"], 8,
            "run {run}: {summary}"
        );
    }
    runtime.block_on(async {
        // The browser's own context never saw the replays' session cookie.
        let page = browser.open_page().await.unwrap();
        page.navigate(&format!("{}dashboard", demo.url()))
            .await
            .unwrap();
        let url = page.current_url().await.unwrap();
        assert!(
            !url.contains("/dashboard"),
            "signed in without logging in: {url}"
        );
        // Only this page was added: the replays' tabs went with their contexts.
        let pages = page_targets(browser.ws_url()).await;
        assert_eq!(pages, pages_before + 1, "tabs left behind");
    });
}

/// How many page targets the browser at `ws_url` has, asked over its HTTP endpoint.
async fn page_targets(ws_url: &str) -> usize {
    let authority = ws_url
        .trim_start_matches("ws://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    // The DevTools HTTP server keeps the connection open: read exactly Content-Length bytes.
    let json = tokio::task::spawn_blocking(move || {
        use std::io::BufRead;
        use std::io::Read;
        use std::io::Write;
        let mut stream = std::net::TcpStream::connect(&authority).unwrap();
        write!(
            stream,
            "GET /json/list HTTP/1.1\r\nHost: {authority}\r\n\r\n"
        )
        .unwrap();
        let mut reader = std::io::BufReader::new(stream);
        let mut length = 0;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        String::from_utf8(body).unwrap()
    })
    .await
    .unwrap();
    let targets: Value = serde_json::from_str(&json).unwrap();
    targets
        .as_array()
        .unwrap()
        .iter()
        .filter(|target| target["type"] == "page")
        .count()
}
