//! Every command whose stdout is a pipe nobody reads any more (`retrace check ... | head -1`)
//! ends quietly: exit 0, nothing on stderr, no panic. The pipe's reading end is closed before
//! the command starts, so every write meets it, whatever the speed of the machine.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// What only its end-to-end tests use is unused in the fast tier (the e2e build lints it).
#![cfg_attr(not(feature = "e2e"), allow(unused_imports, dead_code))]

use std::path::Path;
use std::process::Command;
use std::process::Stdio;

use retrace_test_support::askui_examples_dir;
use retrace_test_support::demo::DemoConfig;
use retrace_test_support::demo::DemoThread;
use retrace_test_support::suite_run;

/// Runs `retrace ARGS` in `cwd` with stdout into a pipe whose reader is gone, and asserts it
/// exits 0 with nothing on stderr.
fn assert_quiet_into_a_closed_pipe(cwd: &Path, args: &[&str]) {
    assert_quiet_reading(cwd, args, Stdio::null());
}

/// [`assert_quiet_into_a_closed_pipe`] with `stdin` as the command's input.
fn assert_quiet_reading(cwd: &Path, args: &[&str], stdin: Stdio) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut command: Command = suite_run::retrace_in(env!("CARGO_BIN_EXE_retrace"), cwd);
    let out = command
        .args(args)
        .stdin(stdin)
        .stdout(writer)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "retrace {args:?}: {stderr}");
    assert_eq!(stderr, "", "retrace {args:?}");
}

/// What an MCP client sends over stdio to list the tools: `initialize`, `initialized`, then
/// `tools/list`; then it goes (end of input).
const MCP_LIST_TOOLS: &str = concat!(
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","#,
    r#""capabilities":{},"clientInfo":{"name":"head","version":"1"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    "\n",
);

/// `retrace record` and `retrace mcp`: their help, and what `mcp` prints (the tools it lists
/// over stdio, the address it serves over HTTP), into a closed pipe.
#[test]
fn record_and_mcp_end_quietly_into_a_closed_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    for args in [["record", "--help"], ["mcp", "--help"], ["help", "record"]] {
        assert_quiet_into_a_closed_pipe(cwd, &args);
    }
    let address = [
        "mcp",
        "--http",
        "127.0.0.1:0",
        "--token",
        "t0ken",
        "--out",
        "mcp",
    ];
    assert_quiet_into_a_closed_pipe(cwd, &address);
    let requests = cwd.join("requests.jsonl");
    std::fs::write(&requests, MCP_LIST_TOOLS).unwrap();
    let stdin = Stdio::from(std::fs::File::open(&requests).unwrap());
    assert_quiet_reading(cwd, &["mcp", "--out", "mcp"], stdin);
}

#[test]
fn commands_without_a_browser_end_quietly_into_a_closed_pipe() {
    let examples = askui_examples_dir();
    let file = |name: &str| examples.join(name).to_string_lossy().into_owned();
    let (a, b) = (
        file("ownership_open_chapter.json"),
        file("std_search_error_code.json"),
    );
    let cache = tempfile::tempdir().unwrap();
    for name in ["ownership_open_chapter.json", "std_search_error_code.json"] {
        std::fs::copy(examples.join(name), cache.path().join(name)).unwrap();
    }
    let dir = cache.path().to_string_lossy().into_owned();
    for args in [
        vec!["cache", "check", &a, &b],
        vec!["cache", "check", &a, "--json"],
        vec!["cache", "show", &a],
        vec!["cache", "list", "--dir", &dir],
        vec!["--help"],
    ] {
        assert_quiet_into_a_closed_pipe(&examples, &args);
    }
}

/// `retrace check`, `replay` and `run` print as they go (a page, a step, a test at a time) and
/// once at the end; a closed pipe stops none of them with a panic.
#[cfg(feature = "e2e")] // the end-to-end tier: real Chromium
#[test]
fn check_replay_and_run_end_quietly_into_a_closed_pipe() {
    retrace_test_support::require!(Chromium);
    let app = DemoThread::start(DemoConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let flow = suite_run::write_recording(
        root,
        "suite/flow.json",
        retrace_runner::demo::DEMO_RECORDING,
    );
    let flow = flow.to_string_lossy().into_owned();
    let user = format!("username={}", retrace_demo::DEMO_USERNAME);
    let password = format!("password={}", retrace_demo::DEMO_PASSWORD);
    let url = app.url();
    let params = ["--param", &user, "--param", &password];
    assert_quiet_into_a_closed_pipe(
        root,
        &[
            &["check", "--baseline", url, "--candidate", url],
            &[
                "--page",
                "/site/",
                "--page",
                "/site/pricing",
                "--out",
                "evidence",
            ][..],
        ]
        .concat(),
    );
    assert_quiet_into_a_closed_pipe(
        root,
        &[&["replay", &flow, "--url", url][..], &params].concat(),
    );
    assert_quiet_into_a_closed_pipe(
        root,
        &[
            &[
                "run", "suite", "--url", url, "--report", "junit", "--out", "out",
            ][..],
            &params,
        ]
        .concat(),
    );
}
