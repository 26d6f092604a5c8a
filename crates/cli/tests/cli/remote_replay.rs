//! `retrace replay --connect` end to end: the bundled recording replayed into a real local
//! Chromium behind a real nginx that wants a bearer token, as a browser farm does. Without the
//! header the run is an infrastructure error (exit 2) that never shows the token; with
//! `--connect-header`, `RETRACE_CONNECT_HEADERS` or `?token=` it replays and passes. A farm
//! that answers "busy" twice is retried, each retry told on the console and in the event log: a stand-in farm, because a real
//! one cannot be made to answer 429 a set number of times. Replays and runs through a real
//! Selenium Grid 4 and a real browserless are in `real_farms.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;
use std::process::Output;
use std::time::Duration;

use retrace_drive::chromium::process::BrowserProcess;
use retrace_test_support::demo::DemoThread;
use retrace_test_support::nginx::Nginx;
use retrace_test_support::nginx::PROXY_TOKEN;
use retrace_test_support::remote_browser::farm::FarmStandIn;

fn replay(file: &Path, url: &str, connect: &str, extra: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_retrace"))
        .arg("replay")
        .arg(file)
        .args(["--url", url, "--connect", connect])
        .args(["--param", "username=demo", "--param"])
        .arg(format!("password={}", retrace_demo::DEMO_PASSWORD))
        .args(extra)
        .env_remove("RETRACE_CONNECT_HEADERS")
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

fn explain(output: &Output) -> String {
    format!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A local Chromium for a remote endpoint to stand in front of, on `runtime`.
fn local_chromium(runtime: &tokio::runtime::Runtime) -> BrowserProcess {
    runtime.block_on(async {
        BrowserProcess::spawn(
            Path::new("/usr/bin/chromium"),
            1280,
            800,
            Duration::from_secs(60),
        )
        .await
        .unwrap()
    })
}

/// The bundled recording, written to a file in a new temporary directory.
fn demo_recording() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("flow.json");
    std::fs::write(&file, retrace_runner::demo::DEMO_RECORDING).unwrap();
    (dir, file)
}

#[test]
fn a_busy_farm_is_retried_and_each_retry_is_told_on_the_console_and_in_the_event_log() {
    retrace_test_support::require!(Chromium);
    let runtime = retrace_test_support::cli::runtime();
    let chromium = local_chromium(&runtime);
    let farm = FarmStandIn::start(chromium.ws_url(), 2);
    let demo = DemoThread::start(retrace_demo::DemoConfig::default());
    let (dir, file) = demo_recording();
    let log = dir.path().join("events.jsonl");

    let output = replay(
        &file,
        demo.url(),
        &farm.url(),
        &["--events", log.to_str().unwrap()],
        &[],
    );
    assert_eq!(output.status.code(), Some(0), "{}", explain(&output));
    assert_eq!((farm.discoveries(), farm.busy_answers()), (3, 2));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let retries: Vec<&str> = stdout
        .lines()
        .filter(|line| line.contains("answered HTTP 429"))
        .collect();
    assert_eq!(retries.len(), 2, "{}", explain(&output));
    for (retry, line) in retries.iter().enumerate() {
        assert!(line.starts_with("  note ("), "{line}");
        assert!(line.contains(&format!("retry {} in", retry + 1)), "{line}");
    }
    let notices: Vec<serde_json::Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|event| event["type"] == "target_notice")
        .collect();
    assert_eq!(notices.len(), 2, "{notices:?}");
    for notice in &notices {
        assert!(
            notice["message"]
                .as_str()
                .unwrap()
                .contains("answered HTTP 429"),
            "{notice}"
        );
    }
}

#[test]
fn a_replay_reaches_a_token_guarded_browser_only_with_its_credentials() {
    retrace_test_support::require!(Chromium);
    let runtime = retrace_test_support::cli::runtime();
    let chromium = local_chromium(&runtime);
    let upstream = retrace_test_support::nginx::devtools_authority(chromium.ws_url());
    let proxy = runtime.block_on(Nginx::auth_proxy(&upstream));
    let demo = DemoThread::start(retrace_demo::DemoConfig::default());
    let (_dir, file) = demo_recording();
    let endpoint = proxy.http_url();

    let refused = replay(&file, demo.url(), &endpoint, &[], &[]);
    assert_eq!(refused.status.code(), Some(2), "{}", explain(&refused));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("401"), "the refusal is named: {stderr}");

    let header = format!("Authorization: Bearer {PROXY_TOKEN}");
    let with_flag = replay(
        &file,
        demo.url(),
        &endpoint,
        &["--connect-header", &header],
        &[],
    );
    assert_eq!(with_flag.status.code(), Some(0), "{}", explain(&with_flag));

    let with_env = replay(
        &file,
        demo.url(),
        &endpoint,
        &[],
        &[("RETRACE_CONNECT_HEADERS", header.as_str())],
    );
    assert_eq!(with_env.status.code(), Some(0), "{}", explain(&with_env));

    let with_token = replay(
        &file,
        demo.url(),
        &format!("{endpoint}/?token={PROXY_TOKEN}"),
        &[],
        &[],
    );
    assert_eq!(
        with_token.status.code(),
        Some(0),
        "{}",
        explain(&with_token)
    );

    for output in [&refused, &with_flag, &with_env] {
        let shown = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(!shown.contains(PROXY_TOKEN), "the token leaked: {shown}");
    }
}
