//! The HTML report in real headless Chromium (`/usr/bin/chromium`), opened from `file://`
//! as a user opens it: no network request of any kind, failures before passes in the document,
//! and every failure's expected and actual crops decoded (the data URIs are real images).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;

use chromiumoxide::cdp::browser_protocol::network::EnableParams;
use chromiumoxide::cdp::browser_protocol::network::EventRequestWillBeSent;
use futures::StreamExt;
use retrace_drive::BrowserBackend;
use retrace_drive::chromium::ChromiumConfig;
use retrace_report::suite::ReportKind;
use retrace_report::suite::write_reports;
use retrace_test_support::suite_report as sample;
use serde_json::Value;

/// Where each test sits, what it shows: read from the live DOM.
const INSPECT_JS: &str = r#"(() => {
  const tests = [...document.querySelectorAll("details.test")];
  return {
    statuses: tests.map(t => t.dataset.status),
    failures: tests.filter(t => t.dataset.status === "failed").map(t => ({
      expected: t.querySelector("img.crop.expected")?.naturalWidth ?? 0,
      actual: t.querySelector("img.crop.actual")?.naturalWidth ?? 0,
      diff: t.querySelector("img.crop.diff")?.naturalWidth ?? 0,
      screenshot: t.querySelector("img.screenshot")?.naturalWidth ?? 0,
    })),
  };
})()"#;

/// The page has loaded and every image has finished (decoded or failed).
const LOADED_JS: &str =
    "document.readyState === 'complete' && [...document.images].every(image => image.complete)";

async fn wait_for(page: &impl BrowserBackend, expression: &str) {
    let started = Instant::now();
    loop {
        let answer = page.evaluate(expression).await;
        if matches!(&answer, Ok(Value::Bool(true))) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "`{expression}` never became true (last answer: {answer:?})"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_report_opens_offline_with_failures_first_and_their_crops_decoded() {
    retrace_test_support::require!(Chromium);
    let dir = tempfile::tempdir().unwrap();
    let report = sample::report(
        dir.path(),
        sample::Mix {
            tests: 12,
            failed: 3,
            error: 1,
            flaky: 1,
            skipped: 1,
        },
    );
    let written = write_reports(&report, &[ReportKind::Html], dir.path()).unwrap();
    let url = format!("file://{}", written[0].display());

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
    wait_for(&page, LOADED_JS).await;
    let inspected = page.evaluate(INSPECT_JS).await.unwrap();

    // Failures before errors, flaky, passes, skipped: the document order a reader scrolls.
    let statuses: Vec<&str> = inspected["statuses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|status| status.as_str().unwrap())
        .collect();
    let mut expected_order = vec!["failed"; 3];
    expected_order.extend(["error", "flaky"]);
    expected_order.extend(vec!["passed"; 6]);
    expected_order.push("skipped");
    assert_eq!(statuses, expected_order);

    // Each failure's crops decoded (96 px squares) and so did its final screenshot.
    let failures = inspected["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 3);
    for failure in failures {
        assert_eq!(failure["expected"], 96, "{failure}");
        assert_eq!(failure["actual"], 96, "{failure}");
        assert_eq!(failure["diff"], 96, "{failure}");
        assert_eq!(failure["screenshot"], 1280, "{failure}");
    }

    // The slider's script runs (inline scripts are allowed by the page's own policy).
    let moved = page
        .evaluate(
            "(() => { const range = document.querySelector('input.slider-range'); \
             range.value = 20; range.dispatchEvent(new Event('input')); \
             return range.parentNode.querySelector('.slider .top').style.width; })()",
        )
        .await
        .unwrap();
    assert_eq!(moved, "20%");

    // Nothing but the document itself and its inline data was requested.
    let requests = requests.lock().unwrap().clone();
    let fetched: Vec<&String> = requests
        .iter()
        .filter(|requested| **requested != url && !requested.starts_with("data:"))
        .collect();
    assert!(
        requests.contains(&url),
        "the network listener saw no request at all: {requests:?}"
    );
    assert!(fetched.is_empty(), "the report fetched {fetched:?}");

    listener.abort();
    browser.close().await.unwrap();
}
