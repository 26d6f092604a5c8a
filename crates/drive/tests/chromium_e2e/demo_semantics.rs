use std::time::Duration;
use std::time::Instant;

use pretty_assertions::assert_eq;
use retrace_drive::Backend;
use retrace_drive::BrowserBackend;
use retrace_drive::backend::ElementInfo;
use retrace_drive::backend::MouseButton;
use retrace_drive::backend::Point;
use retrace_drive::chromium::ChromiumPage;
use retrace_drive::readiness::Condition;
use retrace_drive::readiness::ReadinessOptions;
use retrace_protocol::element::FieldValue;
use retrace_test_support::demo::DemoConfig;
use retrace_test_support::demo::start_demo;

use crate::common;

const PATIENCE: Duration = Duration::from_secs(30);

/// Signs in by cookie (the login form may be slowed down by the configured latency) and
/// opens the dashboard at `query` (`""` or `"?layout=v2"`).
async fn dashboard(page: &ChromiumPage, base: &str, query: &str) {
    page.evaluate(&format!(
        "document.cookie = '{}={}; path=/'; true",
        retrace_demo::SESSION_COOKIE,
        retrace_demo::DEMO_USERNAME
    ))
    .await
    .unwrap();
    page.navigate(&format!("{base}dashboard{query}"))
        .await
        .unwrap();
    assert_eq!(
        page.current_url().await.unwrap(),
        format!("{base}dashboard{query}")
    );
}

async fn at(page: &ChromiumPage, x: i32, y: i32) -> ElementInfo {
    page.element_at(Point { x, y }).await.unwrap().unwrap()
}

#[tokio::test]
async fn the_demo_apps_login_and_renamed_dashboard_button_read_as_elements() {
    let demo = start_demo(DemoConfig::default()).await;
    let (_browser, page) = common::page_at(&demo.url()).await;

    // v1: the sign-in button at its documented centre, the labelled fields.
    let sign_in = at(&page, 551, 467).await;
    assert_eq!(
        (
            sign_in.role.as_str(),
            sign_in.name.as_str(),
            sign_in.selector.as_str()
        ),
        ("button", "Sign in", "#sign-in")
    );
    let field = page.query_selector("#username").await.unwrap().unwrap();
    let (x, y) = field.centre();
    let username = at(&page, x as i32, y as i32).await;
    assert_eq!(
        (username.role.as_str(), username.name.as_str()),
        ("textbox", "Username")
    );
    let field = page.query_selector("#password").await.unwrap().unwrap();
    let (x, y) = field.centre();
    let password = at(&page, x as i32, y as i32).await;
    assert_eq!(
        (password.name.as_str(), password.input_type.as_deref()),
        ("Password", Some("password"))
    );

    // v2 moved the button 40 px right and 24 px down: found again by role and name.
    page.navigate(&format!("{}?layout=v2", demo.url()))
        .await
        .unwrap();
    let found = page.find_elements("button", "Sign in").await.unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].bounds.centre(), (591.0, 491.0));
    assert!(found[0].receives_events);

    // The dashboard's "New invoice" reads "Add invoice" in v2, at the same place.
    dashboard(&page, &demo.url(), "").await;
    let v1 = at(&page, 761, 203).await;
    dashboard(&page, &demo.url(), "?layout=v2").await;
    let v2 = at(&page, 761, 203).await;
    assert_eq!(
        (v1.selector.as_str(), v2.selector.as_str()),
        ("#new-invoice", "#new-invoice")
    );
    assert_eq!(
        (v1.name.as_str(), v2.name.as_str()),
        ("New invoice", "Add invoice")
    );
}

#[tokio::test]
async fn the_new_invoice_modal_focuses_its_customer_field_and_holds_what_was_typed() {
    let demo = start_demo(DemoConfig::default()).await;
    let (_browser, page) = common::page_at(&demo.url()).await;
    dashboard(&page, &demo.url(), "").await;

    page.click(Point { x: 761, y: 203 }, MouseButton::Left, 1)
        .await
        .unwrap();
    let started = Instant::now();
    let focused = loop {
        let focused = page.focused_element().await.unwrap();
        if let Some(focused) = focused.filter(|f| f.selector == "#modal-customer") {
            break focused;
        }
        assert!(
            started.elapsed() < PATIENCE,
            "the customer field never got the focus"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    };
    assert!(focused.editable && focused.focused);
    page.type_text("Acme Corp", None).await.unwrap();
    let focused = page.focused_element().await.unwrap().unwrap();
    assert_eq!(focused.value, Some(FieldValue::new("Acme Corp")));
}

/// A slow server keeps the page from settling (a request is in flight); the sync animation
/// after load ends, and then the dashboard settles.
#[tokio::test]
async fn a_slow_report_keeps_the_dashboard_busy_and_the_sync_animation_ends() {
    let demo = start_demo(DemoConfig {
        latency: "60000".parse().unwrap(),
        ..DemoConfig::default()
    })
    .await;
    let (_browser, page) = common::page_at(&demo.url()).await;
    dashboard(&page, &demo.url(), "").await;

    let settled = ReadinessOptions::settled(Duration::from_millis(300));
    let readiness = page
        .wait_until_ready(&settled.clone().with_timeout(PATIENCE))
        .await
        .unwrap();
    assert!(readiness.ready, "{readiness}");
    assert_eq!(
        page.evaluate("getComputedStyle(document.getElementById('sync-done')).opacity")
            .await
            .unwrap(),
        serde_json::json!("1")
    );

    let report = page
        .query_selector("#generate-report")
        .await
        .unwrap()
        .unwrap();
    let (x, y) = report.centre();
    page.click(
        Point {
            x: x as i32,
            y: y as i32,
        },
        MouseButton::Left,
        1,
    )
    .await
    .unwrap();
    let started = Instant::now();
    while page.page_activity().await.unwrap().requests_in_flight == 0 {
        assert!(
            started.elapsed() < PATIENCE,
            "the report request never started"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let readiness = page
        .wait_until_ready(&settled.with_timeout(Duration::from_millis(500)))
        .await
        .unwrap();
    assert_eq!(
        readiness
            .condition(Condition::NetworkQuiet)
            .map(|c| (c.held, c.detail.as_str())),
        Some((false, "1 request in flight"))
    );
}
