//! Selenium Grid 4: sessions created, kept alive past the Grid's idle limit, deleted at the
//! end; a session the Grid kills is a lost session; `max_sessions` holds across runs. A
//! stand-in Grid: these need a session killed when the test says, an idle limit of a fraction
//! of a second and an exact count of sessions alive at once, which a real Grid does not give
//! (its session timeout is whole seconds, swept on its own schedule). A real Grid 4 is
//! `crates/cli/tests/cli/real_farms.rs`.

use std::num::NonZeroUsize;
use std::time::Duration;

use pretty_assertions::assert_eq;
use retrace_drive::Backend;
use retrace_drive::BrowserBackend;
use retrace_drive::DriveError;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::chromium::ConnectOptions;
use retrace_drive::chromium::remote::ConnectEvent;
use retrace_test_support::processes::wait_until_no_process_contains;
use retrace_test_support::remote_browser::grid::GridStandIn;

use crate::support;

#[tokio::test]
async fn a_grid_session_outlives_the_idle_limit_and_is_deleted_at_the_end() {
    let server = support::serve_pages();
    let chromium = support::local_browser().await;
    let marker = chromium.dir().display().to_string();
    let idle_limit = Duration::from_secs(3);
    let grid = GridStandIn::start(chromium.ws_url(), Some(idle_limit));

    let mut options = ConnectOptions::parse(&grid.endpoint()).unwrap();
    options.selenium.keepalive_period = Duration::from_millis(200);
    let browser = ChromiumBrowser::connect_with(&options, 640, 480)
        .await
        .unwrap();
    let report = grid.report();
    assert_eq!(report.created.len(), 1);
    let id = report.created[0].clone();
    let capabilities = &report.requests[0]["capabilities"]["alwaysMatch"];
    assert_eq!(capabilities["browserName"], "chrome");
    let arguments = capabilities["goog:chromeOptions"]["args"]
        .as_array()
        .unwrap();
    assert!(
        arguments.contains(&serde_json::json!("--headless=new")),
        "{arguments:?}"
    );

    // CDP through the hub (se:cdp named an internal node; we went through the hub's address),
    // and the run goes on past twice the idle limit, with CDP traffic only.
    let page = support::drive(&browser, &server).await;
    support::poll_until("the session is older than twice the idle limit", || async {
        page.evaluate("document.title").await.unwrap();
        grid.session_age(&id).is_none_or(|age| age > idle_limit * 2)
    })
    .await;
    let report = grid.report();
    assert_eq!(
        report.expired,
        Vec::<String>::new(),
        "the Grid killed the session"
    );
    assert!(report.keepalives > 0);
    page.screenshot().await.unwrap();

    drop(page);
    browser.close().await.unwrap();
    let report = grid.report();
    assert_eq!(report.deleted, vec![id]);
    assert_eq!(report.live, 0);

    drop(chromium);
    let left = wait_until_no_process_contains(&marker, Duration::from_secs(20)).await;
    assert_eq!(left, Vec::<u32>::new(), "chromium outlived the test");
}

#[tokio::test]
async fn a_session_the_grid_kills_is_a_lost_session_and_a_failed_run_still_deletes() {
    let server = support::serve_pages();
    let chromium = support::local_browser().await;
    let grid = GridStandIn::start(chromium.ws_url(), None);
    let options = ConnectOptions::parse(&grid.endpoint()).unwrap();
    let browser = ChromiumBrowser::connect_with(&options, 640, 480)
        .await
        .unwrap();
    let page = browser.open_page().await.unwrap();
    page.navigate(&server.url("/button")).await.unwrap();

    // The Grid kills the session mid-run (its session timeout, a node going away).
    let id = grid.report().created[0].clone();
    assert!(grid.kill_session(&id));
    let error = page.screenshot().await.unwrap_err();
    assert!(matches!(error, DriveError::SessionLost { .. }), "{error:?}");
    assert!(error.is_retryable());
    assert!(error.to_string().contains(&grid.endpoint()), "{error}");
    drop(page);
    drop(browser);

    // A run that fails before it starts (its page never opens) still deletes its session.
    let healthy = GridStandIn::start(chromium.ws_url(), None);
    let options = ConnectOptions::parse(&healthy.endpoint()).unwrap();
    let browser = ChromiumBrowser::connect_with(&options, 640, 480)
        .await
        .unwrap();
    assert_eq!(healthy.report().live, 1);
    drop(browser);
    let report = healthy.report();
    assert_eq!(report.deleted, report.created);
    assert_eq!(report.deleted.len(), 1);
}

#[tokio::test]
async fn max_sessions_keeps_concurrent_runs_to_the_limit_on_one_endpoint() {
    let server = support::serve_pages();
    let chromium = support::local_browser().await;
    let grid = GridStandIn::start(chromium.ws_url(), None);
    let (observer, events) = support::recording_observer();
    let mut options = ConnectOptions::parse(&grid.endpoint()).unwrap();
    options.max_sessions = NonZeroUsize::new(1);
    options.observer = Some(observer);

    let first = ChromiumBrowser::connect_with(&options, 640, 480)
        .await
        .unwrap();
    let first_page = support::drive(&first, &server).await;
    let second = tokio::spawn({
        let options = options.clone();
        async move { ChromiumBrowser::connect_with(&options, 640, 480).await }
    });
    support::poll_until("the second run waits for a session slot", || async {
        events
            .lock()
            .unwrap()
            .iter()
            .any(|e| matches!(e, ConnectEvent::WaitingForSession { limit: 1, .. }))
    })
    .await;
    // The first run carries on while the second waits; the Grid still has one session.
    first_page.screenshot().await.unwrap();
    assert_eq!(grid.report().live, 1);
    assert!(!second.is_finished());

    drop(first_page);
    first.close().await.unwrap();
    let second = tokio::time::timeout(Duration::from_secs(60), second)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let second_page = support::drive(&second, &server).await;
    drop(second_page);
    second.close().await.unwrap();

    let report = grid.report();
    assert_eq!(report.created.len(), 2);
    assert_eq!(report.deleted, report.created);
    assert_eq!(report.max_live, 1, "two sessions at once on one endpoint");
}
