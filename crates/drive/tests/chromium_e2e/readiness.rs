use std::time::Duration;
use std::time::Instant;

use pretty_assertions::assert_eq;
use retrace_drive::BrowserBackend;
use retrace_drive::chromium::ChromiumPage;
use retrace_drive::readiness::Condition;
use retrace_drive::readiness::DocumentActivity;
use retrace_drive::readiness::PageActivity;
use retrace_drive::readiness::Readiness;
use retrace_drive::readiness::ReadinessOptions;
use retrace_test_support::html_server::HeldResponse;

use crate::common;
use crate::element_pages;

/// A deadline generous enough for a loaded machine.
const PATIENCE: Duration = Duration::from_secs(30);

/// Polls `page_activity` until `want` holds (30 s at most) and returns that activity.
async fn activity_until(
    page: &ChromiumPage,
    what: &str,
    want: impl Fn(&PageActivity) -> bool,
) -> PageActivity {
    let started = Instant::now();
    loop {
        let activity = page.page_activity().await.unwrap();
        if want(&activity) {
            return activity;
        }
        assert!(
            started.elapsed() < PATIENCE,
            "never saw {what}; last: {activity:?}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

async fn until_requested(held: &HeldResponse) {
    let started = Instant::now();
    while held.requests() == 0 {
        assert!(
            started.elapsed() < PATIENCE,
            "the held path was never asked for"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Whether a condition was required and held, and its detail.
fn report(readiness: &Readiness, condition: Condition) -> (bool, String) {
    let report = readiness
        .condition(condition)
        .unwrap_or_else(|| panic!("{condition:?} was not judged: {readiness:?}"));
    (report.held, report.detail.clone())
}

/// The page's own report, polled until the page answers (a loaded machine may keep it from
/// answering one probe in time).
async fn answered(page: &ChromiumPage) -> (PageActivity, DocumentActivity) {
    let activity = activity_until(page, "an answer from the page", |a| a.document.is_ok()).await;
    let document = activity.document.clone().unwrap();
    (activity, document)
}

#[tokio::test]
async fn a_script_arriving_after_load_keeps_the_page_not_ready_until_it_lands() {
    let (server, held) = retrace_test_support::html_server::serve_html_holding(
        &[("/late", element_pages::LATE_SCRIPT_HTML)],
        "/late.js",
        "text/javascript",
        element_pages::LATE_JS,
    );
    let (_browser, page) = common::page_at(&server.url("/late")).await;
    until_requested(&held).await;

    // The load event has fired, but the script is in flight (held: no timing involved).
    let activity = page.page_activity().await.unwrap();
    assert!(activity.requests_in_flight >= 1, "{activity:?}");
    let (_, document) = answered(&page).await;
    assert_eq!(document.ready_state, "complete");
    let options = ReadinessOptions::ready_to_act().with_timeout(Duration::from_millis(300));
    let readiness = page.wait_until_ready(&options).await.unwrap();
    assert!(!readiness.ready, "{readiness}");
    assert!(readiness.waited_ms >= 300, "{readiness}");
    assert_eq!(
        report(&readiness, Condition::NetworkQuiet),
        (false, "1 request in flight".to_owned())
    );
    assert!(
        readiness.to_string().contains("1 request in flight"),
        "{readiness}"
    );

    held.release();
    let readiness = page
        .wait_until_ready(&ReadinessOptions::ready_to_act().with_timeout(PATIENCE))
        .await
        .unwrap();
    assert!(readiness.ready, "{readiness}");
    assert_eq!(
        page.evaluate("window.lateArrived === true").await.unwrap(),
        serde_json::json!(true)
    );
}

#[tokio::test]
async fn a_still_page_settles_and_says_why() {
    let server =
        retrace_test_support::html_server::serve_html(&[("/still", element_pages::STILL_HTML)]);
    let (_browser, page) = common::page_at(&server.url("/still")).await;
    let options = ReadinessOptions::settled(Duration::from_millis(300)).with_timeout(PATIENCE);
    let readiness = page.wait_until_ready(&options).await.unwrap();
    assert!(readiness.ready, "{readiness}");
    let held: Vec<Condition> = readiness.conditions.iter().map(|c| c.condition).collect();
    assert_eq!(
        held,
        vec![
            Condition::Responsive,
            Condition::NetworkQuiet,
            Condition::NoNavigation,
            Condition::RenderingSettled
        ]
    );
    let (activity, before) = answered(&page).await;
    assert_eq!(before.ready_state, "complete");
    assert!(before.fonts_ready && before.animations_running == 0);
    assert!(!activity.navigation_pending);

    // A change made now is seen (counted: no timing involved).
    page.evaluate("document.body.append('more'); true")
        .await
        .unwrap();
    let (_, after) = answered(&page).await;
    assert!(
        after.dom_mutations > before.dom_mutations,
        "{before:?} then {after:?}"
    );
}

#[tokio::test]
async fn a_running_css_animation_keeps_the_page_unsettled_until_it_stops() {
    let server =
        retrace_test_support::html_server::serve_html(&[("/spinner", element_pages::SPINNER_HTML)]);
    let (_browser, page) = common::page_at(&server.url("/spinner")).await;
    let (activity, document) = answered(&page).await;
    assert_eq!(document.animations_running, 1, "{activity:?}");
    assert_eq!(document.animations, vec!["spin on div#spinner".to_owned()]);

    let options = ReadinessOptions::settled(Duration::from_millis(200));
    assert_eq!(
        report(
            &Readiness::assess(&activity, &options),
            Condition::RenderingSettled
        ),
        (
            false,
            "an animation is running (spin on div#spinner)".to_owned()
        )
    );
    let readiness = page
        .wait_until_ready(&options.clone().with_timeout(Duration::from_millis(300)))
        .await
        .unwrap();
    assert!(!readiness.ready, "{readiness}");
    // Ready to act all the same: an animation does not hold up acting.
    assert!(
        page.wait_until_ready(&ReadinessOptions::ready_to_act())
            .await
            .unwrap()
            .ready
    );

    page.evaluate("stopSpinning()").await.unwrap();
    let readiness = page
        .wait_until_ready(&options.with_timeout(PATIENCE))
        .await
        .unwrap();
    assert!(readiness.ready, "{readiness}");
}

#[tokio::test]
async fn a_navigation_to_a_slow_page_is_pending_until_the_page_arrives() {
    let (server, held) = retrace_test_support::html_server::serve_html_holding(
        &[("/still", element_pages::STILL_HTML)],
        "/slow-page",
        "text/html",
        "<!doctype html><title>Slow</title><p>Finally</p>",
    );
    let (_browser, page) = common::page_at(&server.url("/still")).await;
    page.evaluate("document.getElementById('slow').click(); true")
        .await
        .unwrap();
    until_requested(&held).await;
    let activity = activity_until(&page, "the navigation pending", |a| a.navigation_pending).await;
    assert!(activity.requests_in_flight >= 1, "{activity:?}");
    let readiness = page
        .wait_until_ready(
            &ReadinessOptions::ready_to_act().with_timeout(Duration::from_millis(200)),
        )
        .await
        .unwrap();
    assert!(!readiness.ready);
    assert_eq!(
        report(&readiness, Condition::NoNavigation),
        (false, "a navigation is pending".to_owned())
    );

    held.release();
    let readiness = page
        .wait_until_ready(&ReadinessOptions::ready_to_act().with_timeout(PATIENCE))
        .await
        .unwrap();
    assert!(readiness.ready, "{readiness}");
    assert_eq!(page.current_url().await.unwrap(), server.url("/slow-page"));
}

/// A navigation away that the document starts is announced by the document (the `navigate`
/// event: a form submitted, a link followed) before the browser reports loading it, and the page
/// counts as navigating from then (see `activity.rs` for how the two are put together:
/// which comes first, the browser's report or a probe's answer, is a race, so only the
/// document's side is shown here, where the browser begins and drops the navigation at once:
/// a form the page's policy forbids). One that stays in the document (a fragment, a form or
/// link the page cancels, one it routes itself, a dialog's form) is not announced.
#[tokio::test]
async fn a_navigation_the_document_starts_is_announced_and_one_that_stays_is_not() {
    let (server, held) = retrace_test_support::html_server::serve_html_holding(
        &[
            ("/leaving", element_pages::LEAVING_HTML),
            ("/forbidden", element_pages::FORBIDDEN_FORM_HTML),
        ],
        "/slow-page",
        "text/html",
        "<!doctype html><title>Slow</title><p>Arrived</p>",
    );
    let (_browser, page) = common::page_at(&server.url("/forbidden")).await;
    page.evaluate("document.getElementById('send').click(); true")
        .await
        .unwrap();
    let (activity, document) = answered(&page).await;
    assert!(document.leaving_for.is_some(), "{activity:?}");
    // Begun and dropped by the browser: the page is not held for it.
    let activity = activity_until(&page, "the dropped navigation over", |a| {
        !a.navigation_pending && a.document.is_ok()
    })
    .await;
    assert_eq!(held.requests(), 0, "{activity:?}");

    page.navigate(&server.url("/leaving")).await.unwrap();
    for id in ["fragment", "handled", "dialog", "cancelled", "routed"] {
        page.evaluate(&format!("document.getElementById('{id}').click(); true"))
            .await
            .unwrap();
        let (activity, document) = answered(&page).await;
        assert_eq!(document.leaving_for, None, "after #{id}: {activity:?}");
        assert!(!activity.navigation_pending, "after #{id}: {activity:?}");
    }
    page.evaluate("document.getElementById('send').click(); true")
        .await
        .unwrap();
    activity_until(&page, "the navigation pending", |a| a.navigation_pending).await;
    until_requested(&held).await;
    held.release();
    let (activity, document) = answered(&page).await;
    assert_eq!(page.current_url().await.unwrap(), server.url("/slow-page?"));
    assert_eq!(document.leaving_for, None, "{activity:?}");
}

/// Fake timers, a frozen clock and a dummy MutationObserver in the page's world do not
/// blind the activity probe, which runs in an isolated world.
#[tokio::test]
async fn page_globals_cannot_fool_the_activity_probe() {
    let server = element_pages::serve_element_pages();
    let (_browser, page) = common::page_at(&server.url("/hostile")).await;
    // The page's clock is frozen: a probe in its world would never see time pass.
    let settled = page
        .wait_until_ready(
            &ReadinessOptions::settled(Duration::from_millis(200)).with_timeout(PATIENCE),
        )
        .await
        .unwrap();
    assert!(settled.ready, "{settled}");
    let (_, before) = answered(&page).await;
    page.evaluate("document.getElementById('real').textContent = 'Changed'; true")
        .await
        .unwrap();
    let (_, after) = answered(&page).await;
    assert!(
        after.dom_mutations > before.dom_mutations,
        "{before:?} then {after:?}"
    );
}

/// A page with an inner scroller and a canvas: a scroll changes the picture with no DOM
/// change, and a canvas paints unseen by the DOM.
const SCROLLER_HTML: &str = r#"<!doctype html><html><body>
<div id="box" style="height: 60px; overflow: auto"><div style="height: 600px">Tall</div></div>
<canvas width="40" height="40"></canvas></body></html>"#;

/// What the frame reuse of replay trusts: an inner element's scroll (no DOM mutation) is
/// seen as a repaint, and a canvas is counted as a painter the DOM cannot see.
#[tokio::test]
async fn a_scroll_without_a_dom_change_counts_as_a_repaint_and_a_canvas_as_opaque() {
    let server = retrace_test_support::html_server::serve_html(&[("/scroller", SCROLLER_HTML)]);
    let (_browser, page) = common::page_at(&server.url("/scroller")).await;
    let (_, quiet) = answered(&page).await;
    assert_eq!(quiet.opaque_painters, 1, "{quiet:?}");
    page.evaluate("document.getElementById('box').scrollTop = 200; true")
        .await
        .unwrap();
    // The scroll event comes with the next frame: the repaint is newer than the last DOM
    // change, and the DOM did not change (ordering and counts, no timing).
    let activity = activity_until(&page, "the scroll seen as a repaint", |a| {
        a.document
            .as_ref()
            .is_ok_and(|d| d.render_quiet_for < d.dom_quiet_for)
    })
    .await;
    let scrolled = activity.document.unwrap();
    assert_eq!(scrolled.dom_mutations, quiet.dom_mutations, "{scrolled:?}");

    let server =
        retrace_test_support::html_server::serve_html(&[("/still", element_pages::STILL_HTML)]);
    page.navigate(&server.url("/still")).await.unwrap();
    let (_, still) = answered(&page).await;
    assert_eq!(still.opaque_painters, 0, "{still:?}");
}

/// A document that has committed but not drawn (its first script holds the main thread: here
/// a synchronous request the test holds) is captured once it draws: Chromium refuses a
/// capture until then ("Unable to capture screenshot"), which is not the page's last word.
/// Found under load, where a page's first frame can come long after its navigation.
#[tokio::test]
async fn a_screenshot_of_a_page_that_has_not_drawn_yet_waits_for_its_first_frame() {
    let blocked = "<!doctype html><title>Blocked</title><script>\
        var gate = new XMLHttpRequest(); gate.open('GET', '/gate', false); gate.send();\
        </script><p>Drawn</p>";
    let (server, held) = retrace_test_support::html_server::serve_html_holding(
        &[("/still", element_pages::STILL_HTML), ("/blocked", blocked)],
        "/gate",
        "text/plain",
        "open",
    );
    let (_browser, page) = common::page_at(&server.url("/still")).await;
    page.evaluate("location.href = '/blocked'; true")
        .await
        .unwrap();
    // The new document has committed, and its main thread waits for the gate.
    until_requested(&held).await;
    let capture = page.capture(false);
    tokio::pin!(capture);
    // While the page cannot draw, the capture waits (it is not an error); the wait only gives
    // a capture that would fail the time to do so.
    let early = tokio::time::timeout(Duration::from_secs(3), &mut capture).await;
    // Released before any assertion: the server's shutdown waits for the held request.
    held.release();
    if let Ok(early) = early {
        panic!("captured a page that has not drawn: {early:?}");
    }
    let shot = tokio::time::timeout(PATIENCE, capture)
        .await
        .expect("the capture ended once the page drew")
        .unwrap();
    assert_eq!((shot.width, shot.height), (1280, 800));
    assert_eq!(page.evaluate("document.title").await.unwrap(), "Blocked");
}
