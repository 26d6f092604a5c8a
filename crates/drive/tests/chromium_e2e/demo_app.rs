use pretty_assertions::assert_eq;
use retrace_drive::BrowserBackend;
use retrace_drive::computer::ComputerTool;
use retrace_drive::computer::ComputerToolConfig;
use retrace_drive::tool::Tool;
use retrace_test_support::demo::DemoConfig;
use retrace_test_support::demo::start_demo;
use serde_json::json;

use crate::common;

/// The acceptance test: sign in to the real demo app with computer-tool actions only
/// (a click at the user name field's coordinates, typing, Tab, Return) and see the dashboard.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signs_in_to_the_demo_app_with_computer_actions_only() {
    retrace_test_support::require!(Chromium);
    let demo = start_demo(DemoConfig::default()).await;
    let (_browser, page) = common::page_at(&demo.url()).await;
    let tool = ComputerTool::new(page.clone(), ComputerToolConfig::default())
        .await
        .unwrap();

    // Where a model would click: the middle of the user name field on the screenshot.
    let field = page.query_selector("#username").await.unwrap().unwrap();
    let (x, y) = (
        (field.x + field.width / 2.0) as i64,
        (field.y + field.height / 2.0) as i64,
    );
    let login_screen = tool.call(json!({"action": "screenshot"})).await.unwrap();
    for input in [
        json!({"action": "left_click", "coordinate": [x, y]}),
        json!({"action": "type", "text": retrace_demo::DEMO_USERNAME}),
        json!({"action": "key", "text": "Tab"}),
        json!({"action": "type", "text": retrace_demo::DEMO_PASSWORD}),
    ] {
        tool.call(input.clone())
            .await
            .unwrap_or_else(|e| panic!("{input}: {e}"));
    }
    let dashboard_screen = tool
        .call(json!({"action": "key", "text": "Return"}))
        .await
        .unwrap();

    assert_eq!(
        page.current_url().await.unwrap(),
        format!("{}dashboard", demo.url())
    );
    common::wait_for_js(
        &page,
        &format!(
            "document.getElementById('welcome')?.textContent === 'Welcome back, {}'",
            retrace_demo::DEMO_USERNAME
        ),
    )
    .await;
    let login_png = login_screen.screenshot.unwrap().png;
    let dashboard_png = dashboard_screen.screenshot.unwrap().png;
    assert_ne!(
        login_png, dashboard_png,
        "the screen did not change after signing in"
    );
}
