//! `retrace screenshot` and `retrace do` against the real demo app in real headless Chromium.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use std::process::Command;

use pretty_assertions::assert_eq;
use retrace_test_support::demo::DemoConfig;
use retrace_test_support::demo::start_demo;

fn retrace() -> Command {
    Command::new(env!("CARGO_BIN_EXE_retrace"))
}

fn png_size(path: &std::path::Path) -> (u32, u32) {
    let image = retrace_vision::decode_png(&std::fs::read(path).unwrap()).unwrap();
    (image.width(), image.height())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn screenshot_writes_a_png_of_the_asked_size() {
    retrace_test_support::require!(Chromium);
    let demo = start_demo(DemoConfig::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shots").join("x.png");
    let url = demo.url();
    let output = tokio::task::spawn_blocking({
        let path = path.clone();
        move || {
            retrace()
                .args(["screenshot", &url, "-o"])
                .arg(&path)
                .args(["--size", "1024x640", "--json"])
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(png_size(&path), (1024, 640));
    let line: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        (line["width"].as_u64(), line["height"].as_u64()),
        (Some(1024), Some(640))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn do_runs_actions_in_order_and_saves_a_screenshot_after_each() {
    retrace_test_support::require!(Chromium);
    let demo = start_demo(DemoConfig::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let shots = dir.path().to_path_buf();
    let url = demo.url();
    let output = tokio::task::spawn_blocking(move || {
        retrace()
            .args([
                "do",
                &url,
                r#"{"action": "mouse_move", "coordinate": [100, 100]}"#,
                r#"{"action": "cursor_position"}"#,
                r#"{"action": "screenshot"}"#,
                "--size",
                "800x600",
                "--screenshots",
            ])
            .arg(&shots)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(lines[1].ends_with("-> X=100,Y=100"), "{stdout}");
    assert_eq!(png_size(&dir.path().join("001-mouse_move.png")), (800, 600));
    assert_eq!(png_size(&dir.path().join("003-screenshot.png")), (800, 600));
    assert!(!dir.path().join("002-cursor_position.png").exists());
}

#[test]
fn do_rejects_a_bad_action_before_starting_the_browser() {
    let output = retrace()
        .args(["do", "http://127.0.0.1:9/", r#"{"action": "fly"}"#])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("action 1: unknown action `fly`"),
        "{stderr}"
    );
}
