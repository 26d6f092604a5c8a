//! `retrace check` reports and stored baselines end to end: two demo servers (baseline and a
//! candidate with the 4 px shift), real headless Chromium. A FAIL's HTML report, opened from
//! `file://` in Chromium, requests nothing and shows both screenshots, the diff, the boxes,
//! the difference types and the thresholds; JUnit says failure for FAIL and error for ERROR;
//! a stored baseline approved from the candidate then passes; a changed fingerprint is ERROR.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;

use chromiumoxide::cdp::browser_protocol::network::EnableParams;
use chromiumoxide::cdp::browser_protocol::network::EventRequestWillBeSent;
use futures::StreamExt;
use retrace_drive::BrowserBackend;
use retrace_drive::chromium::ChromiumConfig;
use retrace_test_support::cli::run_retrace;
use retrace_test_support::demo::DemoThread;
use retrace_test_support::require;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_retrace");

fn check(args: &[&str]) -> std::process::Output {
    let mut all = vec!["check", "--retries", "0"];
    all.extend_from_slice(args);
    run_retrace(BIN, &all, None)
}

fn describe(output: &std::process::Output) -> String {
    format!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// What the failed test of the report shows, read from the live DOM.
const INSPECT_JS: &str = r#"(() => {
  const test = document.querySelector('details.test[data-status="failed"]');
  if (!test) return null;
  const width = selector => test.querySelector(selector)?.naturalWidth ?? 0;
  return {
    baseline: width("img.shot.baseline"),
    candidate: width("img.shot.candidate"),
    diff: width("img.shot.diff"),
    boxes: test.querySelectorAll(".shot-frame .box").length,
    box_width: test.querySelector(".shot-frame .box")?.getBoundingClientRect().width ?? 0,
    text: test.innerText,
  };
})()"#;

/// Opens `file` from `file://` in headless Chromium; what [`INSPECT_JS`] finds and every
/// URL the page requested.
fn open_offline(file: &Path) -> (Value, Vec<String>, String) {
    let url = format!("file://{}", file.display());
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (inspected, requests) = runtime.block_on(async {
        let browser = retrace_test_support::chromium::started(&ChromiumConfig::default()).await;
        let page = browser.open_page().await.unwrap();
        let cdp = page.cdp_page().clone();
        cdp.execute(EnableParams::default()).await.unwrap();
        let requests = Arc::new(Mutex::new(Vec::<String>::new()));
        let mut events = cdp
            .event_listener::<EventRequestWillBeSent>()
            .await
            .unwrap();
        let seen = Arc::clone(&requests);
        let listener = tokio::spawn(async move {
            while let Some(event) = events.next().await {
                seen.lock().unwrap().push(event.request.url.clone());
            }
        });
        page.navigate(&url).await.unwrap();
        let started = Instant::now();
        let loaded = "document.readyState === 'complete' && \
                      [...document.images].every(image => image.complete)";
        while !matches!(page.evaluate(loaded).await, Ok(Value::Bool(true))) {
            assert!(started.elapsed() < Duration::from_secs(60), "never loaded");
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        let inspected = page.evaluate(INSPECT_JS).await.unwrap();
        listener.abort();
        browser.close().await.unwrap();
        let requests = requests.lock().unwrap().clone();
        (inspected, requests)
    });
    (inspected, requests, url)
}

#[test]
fn a_fail_is_reported_offline_with_both_shots_the_diff_the_boxes_and_the_thresholds() {
    require!(Chromium);
    let baseline = DemoThread::variant(retrace_demo::Variant::Baseline);
    let candidate = DemoThread::variant(retrace_demo::Variant::Shift);
    let out = tempfile::tempdir().unwrap();
    let output = check(&[
        "--baseline",
        baseline.url(),
        "--candidate",
        candidate.url(),
        "--page",
        "/site/pricing",
        "--page",
        "/site/about",
        "--out",
        out.path().to_str().unwrap(),
        "--report",
        "html,junit,json",
        // Matches nothing on the page: only the rerun command shows it.
        "--mask",
        r#".ad [data-x="1"]"#,
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));

    let junit = std::fs::read_to_string(out.path().join("junit.xml")).unwrap();
    assert_eq!(junit.matches("<failure").count(), 1, "{junit}");
    assert!(junit.contains("type=\"visual_difference\""), "{junit}");
    let json: Value =
        serde_json::from_slice(&std::fs::read(out.path().join("report.json")).unwrap()).unwrap();
    assert_eq!(json["totals"]["failed"], 1, "{json:#}");
    assert_eq!(json["totals"]["passed"], 1, "{json:#}");
    let failed = &json["tests"][0];
    assert_eq!(failed["check"]["verdict"], "FAIL", "{failed:#}");
    // Evidence paths are relative to the report's folder, so it can move whole.
    let evidence = failed["check"]["evidence"][0].as_str().unwrap();
    assert!(out.path().join(evidence).is_file(), "{evidence}");
    // The rerun reproduces this page's check: its mask (quoted for a shell) and no retries.
    let rerun = failed["rerun"].as_str().unwrap();
    let page_flags = "--page /site/pricing --viewport 1280x720";
    let expected = format!(
        "retrace check --baseline {} --candidate {} {page_flags} \
         --mask '.ad [data-x=\"1\"]' --retries 0",
        baseline.url(),
        candidate.url()
    );
    assert_eq!(rerun, expected, "{failed:#}");

    let (inspected, requests, url) = open_offline(&out.path().join("report.html"));
    assert!(inspected.is_object(), "no failed test in the report");
    for image in ["baseline", "candidate", "diff"] {
        assert_eq!(inspected[image], 1280, "{image}: {inspected:#}");
    }
    assert!(inspected["boxes"].as_u64().unwrap() >= 2, "{inspected:#}");
    assert!(
        inspected["box_width"].as_f64().unwrap() > 0.0,
        "{inspected:#}"
    );
    let text = inspected["text"].as_str().unwrap();
    assert!(text.contains("layout"), "the difference type: {text}");
    assert!(
        text.contains("thresholds used") && text.contains("pixel_threshold 0.1"),
        "{text}"
    );
    assert!(text.contains(rerun), "the rerun command: {text}");
    let fetched: Vec<&String> = requests
        .iter()
        .filter(|requested| **requested != url && !requested.starts_with("data:"))
        .collect();
    assert!(
        requests.contains(&url),
        "no request seen at all: {requests:?}"
    );
    assert!(fetched.is_empty(), "the report fetched {fetched:?}");
}

#[test]
fn a_stored_baseline_fails_until_approved_and_another_environment_is_an_error() {
    require!(Chromium);
    let baseline = DemoThread::variant(retrace_demo::Variant::Baseline);
    let candidate = DemoThread::variant(retrace_demo::Variant::Shift);
    let dir = tempfile::tempdir().unwrap();
    let shots = dir.path().join("shots");
    let shots = shots.to_str().unwrap();
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    let page = ["--page", "/site/pricing"];

    // The baseline site's shots stored: the shifted candidate fails against them.
    let mut args = vec![
        "approve",
        "--baseline",
        shots,
        "--candidate",
        baseline.url(),
    ];
    args.extend(page);
    let output = check(&args);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    assert!(Path::new(shots).join("site_pricing@1280x720.png").is_file());
    for stored in ["elements", "accessibility"] {
        let file = Path::new(shots).join(format!("site_pricing@1280x720.{stored}.json"));
        assert!(file.is_file(), "{file:?}");
    }
    assert!(Path::new(shots).join("fingerprint.json").is_file());
    let mut args = vec![
        "--baseline",
        shots,
        "--candidate",
        candidate.url(),
        "--out",
        out,
    ];
    args.extend(page);
    let output = check(&args);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("FAIL  /site/pricing"), "{stdout}");
    // Typed as against the live baseline: the stored elements say what moved.
    assert!(stdout.contains("layout/shift at 472,"), "{stdout}");

    // The candidate approved: it passes against its own shots.
    let mut approve = vec![
        "approve",
        "--baseline",
        shots,
        "--candidate",
        candidate.url(),
    ];
    approve.extend(page);
    let output = check(&approve);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let output = check(&args);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("PASS  /site/pricing"));

    // Shots from another browser are not compared: an ERROR naming what differs.
    let fingerprint = Path::new(shots).join("fingerprint.json");
    let mut stored: Value = serde_json::from_slice(&std::fs::read(&fingerprint).unwrap()).unwrap();
    stored["browser"] = Value::from("HeadlessChrome/1.0.0.0");
    std::fs::write(&fingerprint, stored.to_string()).unwrap();
    args.extend(["--report", "junit"]);
    let output = check(&args);
    assert_eq!(output.status.code(), Some(2), "{}", describe(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("ERROR /site/pricing")
            && stdout.contains("browser: stored HeadlessChrome/1.0.0.0"),
        "{stdout}"
    );
    let junit = std::fs::read_to_string(Path::new(out).join("junit.xml")).unwrap();
    assert!(
        junit.contains("<error") && !junit.contains("<failure"),
        "{junit}"
    );
}
