//! One browser context per run on a shared browser, disposed when the run ends.

use pretty_assertions::assert_eq;
use retrace_drive::BrowserBackend;
use retrace_drive::chromium::ChromiumBrowser;

use crate::support;

#[tokio::test]
async fn concurrent_runs_get_their_own_contexts_and_each_is_disposed_at_its_end() {
    let server = support::serve_pages();
    let chromium = support::local_browser().await;
    let observer = support::Observer::connect(chromium.ws_url()).await;
    assert_eq!(observer.contexts().await, Vec::<String>::new());

    // Two runs on two connections, concurrently, and a third sharing the first's connection.
    let (first, second) = tokio::join!(
        ChromiumBrowser::connect(chromium.ws_url(), 640, 480),
        ChromiumBrowser::connect(chromium.ws_url(), 640, 480),
    );
    let (first, second) = (first.unwrap(), second.unwrap());
    let third = first.new_run();
    let (first_page, second_page, third_page) = tokio::join!(
        support::drive(&first, &server),
        support::drive(&second, &server),
        support::drive(&third, &server),
    );
    let ids = [
        first.context_id().unwrap(),
        second.context_id().unwrap(),
        third.context_id().unwrap(),
    ];
    assert!(
        ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2],
        "{ids:?}"
    );
    let mut listed = observer.contexts().await;
    listed.sort();
    let mut expected = ids.to_vec();
    expected.sort();
    assert_eq!(listed, expected);

    // A cookie set in one run is not seen by another.
    first_page
        .evaluate("document.cookie = 'run=first; path=/'")
        .await
        .unwrap();
    let seen = second_page.evaluate("document.cookie").await.unwrap();
    assert_eq!(seen, serde_json::json!(""));

    // The third run ends while its connection stays open (the first run still uses it): its
    // context is disposed by us, not by Chromium dropping a closed connection's contexts.
    drop(third_page);
    third.close().await.unwrap();
    let remaining = observer.contexts().await;
    assert!(!remaining.contains(&ids[2]), "{remaining:?}");
    assert!(
        remaining.contains(&ids[0]) && remaining.contains(&ids[1]),
        "{remaining:?}"
    );
    // Its pages went with it; the first run's page still works.
    first_page.evaluate("1 + 1").await.unwrap();

    // The first run closes; the second is only dropped: both contexts go.
    drop(first_page);
    first.close().await.unwrap();
    drop(second_page);
    drop(second);
    support::poll_until("every run's context is disposed", || async {
        observer.contexts().await.is_empty()
    })
    .await;
}

#[tokio::test]
async fn a_dropped_run_disposes_its_context_while_the_connection_lives_on() {
    let server = support::serve_pages();
    let chromium = support::local_browser().await;
    let observer = support::Observer::connect(chromium.ws_url()).await;
    let browser = ChromiumBrowser::connect(chromium.ws_url(), 640, 480)
        .await
        .unwrap();
    let run = browser.new_run();
    let page = support::drive(&run, &server).await;
    let id = run.context_id().unwrap();
    assert_eq!(observer.contexts().await, vec![id.clone()]);
    drop(page);
    drop(run);
    support::poll_until("the dropped run's context is disposed", || async {
        !observer.contexts().await.contains(&id)
    })
    .await;
    // The connection is still there for the other run.
    browser.open_page().await.unwrap();
}
