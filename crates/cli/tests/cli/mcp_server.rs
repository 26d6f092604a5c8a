//! `retrace mcp` driven by the official MCP Python SDK (`mcp` from PyPI) as a coding agent's
//! client would, over stdio and over Streamable HTTP with a bearer token: the tools and their
//! schemas; `check` PASS and FAIL with its diff image; `replay` of the demo flow passing and
//! failing on v2 at step 7; `run` with a progress notification per test, cancelled with no
//! browser of it left; `replay` with a progress notification per step, cancelled with the
//! server still serving; `screenshot` and `check` cancelled while their page is held back by
//! its server, the page closed, no browser left beyond the warm one and the next call
//! answered; bad arguments as tool errors while the server stays up;
//! `list_trajectories`, `screenshot` and `approve`; the demo password (a secret parameter) in
//! no result, notification or log line (the server logs at debug). Over HTTP, requests
//! without the token, or with another, get 401. The real binary, the real demo app, real
//! headless Chromium; the checks themselves are in `tests/mcp/client.py`. The MCP Inspector's
//! CLI mode (npm `@modelcontextprotocol/inspector`) lists the same tools.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering;
use std::time::Duration;

use retrace_runner::demo::DEMO_RECORDING;
use retrace_test_support::demo::DemoConfig;
use retrace_test_support::demo::DemoThread;
use retrace_test_support::demo::Variant;
use retrace_test_support::html_server::HeldResponse;
use retrace_test_support::html_server::serve_html_holding;

/// The client SDK, pinned.
const MCP_SDK: &[&str] = &["mcp==2.3.0"];

/// Copies of the demo flow in `flows/`: the run cancelled after the first.
const SUITE_SIZE: usize = 4;

/// The server's folder: the demo flow, a broken copy, and a suite of copies.
fn work_dir(dir: &Path) {
    std::fs::write(dir.join("flow.json"), DEMO_RECORDING).unwrap();
    let mut broken: serde_json::Value = serde_json::from_str(DEMO_RECORDING).unwrap();
    broken["trajectory"][1]["input"]["action"] = "fly_to".into();
    std::fs::write(dir.join("broken.json"), broken.to_string()).unwrap();
    std::fs::create_dir(dir.join("flows")).unwrap();
    for n in 1..=SUITE_SIZE {
        std::fs::write(
            dir.join("flows").join(format!("flow-{n}.json")),
            DEMO_RECORDING,
        )
        .unwrap();
    }
}

/// The page the held server answers with, once released.
const HELD_PAGE: &str = "<!doctype html><title>held</title><p>held back</p>";

/// Writes how many requests for the held page have arrived and how many are still held
/// (`ARRIVED WAITING`) into `file` as they change, until `stop`: how the client script
/// (another process) sees that a call is waiting on the page, and that its page was closed.
fn report_requests(
    held: HeldResponse,
    file: PathBuf,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let partial = file.with_extension("partial");
        let mut written = None;
        retrace_test_support::cli::poll(Duration::from_secs(3600), || {
            let now = (held.requests(), held.waiting());
            if written != Some(now) {
                std::fs::write(&partial, format!("{} {}", now.0, now.1)).unwrap();
                std::fs::rename(&partial, &file).unwrap();
                written = Some(now);
            }
            stop.load(Ordering::SeqCst).then_some(())
        });
    })
}

/// Runs the client script over `transport`; panics with its output unless it succeeds.
fn drive(transport: &str) {
    retrace_test_support::require!(Chromium);
    let Some(python) = retrace_test_support::python::venv(MCP_SDK) else {
        return;
    };
    let demo = DemoThread::start(DemoConfig::default());
    let baseline = DemoThread::variant(Variant::Baseline);
    let shifted = DemoThread::variant(Variant::Shift);
    // Answers the sign-in after a minute: a replay of the demo flow there is still running
    // when it is cancelled after its first step.
    let slow = DemoThread::start(DemoConfig {
        latency: retrace_demo::Latency::Fixed(60_000),
        ..DemoConfig::default()
    });
    // Holds its page back: a screenshot or check of it is still loading when cancelled.
    let (held_site, held) = serve_html_holding(&[], "/held", "text/html", HELD_PAGE);
    let work = tempfile::tempdir().unwrap();
    work_dir(work.path());
    let held_count = work.path().join("held-requests");
    let stop = Arc::new(AtomicBool::new(false));
    let reporter = report_requests(held.clone(), held_count.clone(), Arc::clone(&stop));
    let log = work.path().join("server.log");
    let config = serde_json::json!({
        "binary": env!("CARGO_BIN_EXE_retrace"),
        "work": work.path(),
        "demo": demo.url(),
        "baseline": baseline.url(),
        "shifted": shifted.url(),
        "slow": slow.url(),
        "held": held_site.url(""),
        "held_count": held_count,
        "password": retrace_demo::DEMO_PASSWORD,
        "log": log,
        "transport": transport,
        "token": "mcp-test-token-81f3",
    });
    let script = retrace_test_support::package_dir().join("tests/mcp/client.py");
    let output = Command::new(python)
        .arg(script)
        .arg(config.to_string())
        .output()
        .unwrap();
    stop.store(true, Ordering::SeqCst);
    reporter.join().unwrap();
    held.release();
    let server_log = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        output.status.success(),
        "client: {}\nstdout: {}\nstderr: {}\nserver log (end): {}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
        &server_log[server_log.len().saturating_sub(4000)..]
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("none with the password"), "{stdout}");
}

#[test]
fn the_python_sdk_drives_every_tool_over_stdio() {
    drive("stdio");
}

#[test]
fn the_python_sdk_drives_every_tool_over_http_with_the_token() {
    drive("http");
}

/// The MCP Inspector, pinned.
const INSPECTOR: &str = "@modelcontextprotocol/inspector@2.12.0";

#[test]
fn the_mcp_inspector_cli_lists_the_tools() {
    let Some(inspector) = retrace_test_support::npm::npm_bin(INSPECTOR, "mcp-inspector") else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let output = Command::new(inspector)
        .args([
            "--cli",
            env!("CARGO_BIN_EXE_retrace"),
            "mcp",
            "--method",
            "tools/list",
        ])
        .current_dir(work.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listed: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let mut names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "approve",
            "check",
            "list_trajectories",
            "replay",
            "run",
            "screenshot"
        ]
    );
    for tool in listed["tools"].as_array().unwrap() {
        assert_eq!(tool["outputSchema"]["type"], "object", "{tool}");
    }
}
