//! A browser farm at capacity: busy answers are retried with backoff, and every retry is
//! reported. A stand-in farm: a real one cannot be made to answer busy a set number of times.

use pretty_assertions::assert_eq;
use retrace_drive::DriveError;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::chromium::ConnectOptions;
use retrace_drive::chromium::remote::ConnectEvent;
use retrace_test_support::remote_browser::farm::FarmStandIn;

use crate::support;

#[tokio::test]
async fn a_busy_farm_is_retried_until_it_has_a_browser_and_each_retry_is_reported() {
    let server = support::serve_pages();
    let chromium = support::local_browser().await;
    let farm = FarmStandIn::start(chromium.ws_url(), 2);

    let (observer, events) = support::recording_observer();
    let mut options = ConnectOptions::parse(&farm.url()).unwrap();
    options.retry = support::quick_retries();
    options.observer = Some(observer);
    let browser = ChromiumBrowser::connect_with(&options, 640, 480)
        .await
        .unwrap();
    let page = support::drive(&browser, &server).await;

    assert_eq!((farm.discoveries(), farm.busy_answers()), (3, 2));
    // The farm reported its browser on an internal host; we reached it through the farm.
    assert_eq!(farm.websocket_sessions(), 1);
    assert!(
        browser
            .ws_url()
            .starts_with(&farm.url().replace("http://", "ws://"))
    );
    let retries: Vec<(String, u32, String)> = events
        .lock()
        .unwrap()
        .iter()
        .map(|event| match event {
            ConnectEvent::Retrying {
                step,
                retry,
                reason,
                ..
            } => (step.clone(), *retry, reason.clone()),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    let reason = "HTTP 429 to DevTools discovery (/json/version): all browsers are busy";
    assert_eq!(
        retries,
        vec![
            ("discovery".to_owned(), 1, reason.to_owned()),
            ("discovery".to_owned(), 2, reason.to_owned()),
        ]
    );
    drop(page);
    browser.close().await.unwrap();
}

#[tokio::test]
async fn a_farm_busy_through_every_retry_is_a_retryable_busy_error() {
    let chromium = support::local_browser().await;
    let farm = FarmStandIn::start(chromium.ws_url(), 100);
    let mut options = ConnectOptions::parse(&farm.url()).unwrap();
    options.retry = support::quick_retries();
    let error = ChromiumBrowser::connect_with(&options, 640, 480)
        .await
        .unwrap_err();
    assert!(
        matches!(error, DriveError::Busy { retries: 4, .. }),
        "{error:?}"
    );
    assert!(error.is_retryable() && error.is_infrastructure());
    assert_eq!(farm.discoveries(), 5);
    assert!(
        error
            .to_string()
            .starts_with(&format!("{}/ stayed busy after 4 retries", farm.url()))
    );
}
