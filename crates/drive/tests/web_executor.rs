//! The web executor end to end: real headless Chromium (`/usr/bin/chromium`) driving the real
//! demo app (retrace-demo) on 127.0.0.1, plus the pixels the demo's `v2` layout changes.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use std::sync::Arc;

use retrace_drive::backend::PageFactory;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::tool::Tool;
use retrace_drive::tool::ToolError;
use retrace_drive::web::WebError;
use retrace_drive::web::WebExecutor;
use retrace_drive::web::WebExecutorConfig;
use retrace_drive::web::WebExecutorTool;
use retrace_test_support::demo::DemoConfig;
use retrace_test_support::demo::Latency;
use retrace_test_support::demo::start_demo;
use serde_json::Value;
use serde_json::json;

async fn browser() -> Arc<ChromiumBrowser> {
    Arc::new(
        retrace_test_support::chromium::started(&retrace_test_support::chromium::config(1280, 800))
            .await,
    )
}

/// An executor whose element waits give up after `timeout_ms`.
fn executor(browser: &Arc<ChromiumBrowser>, timeout_ms: u64) -> WebExecutor {
    let factory: Arc<dyn PageFactory> = browser.clone();
    WebExecutor::new(
        factory,
        WebExecutorConfig {
            element_timeout_ms: timeout_ms,
            ..WebExecutorConfig::default()
        },
    )
}

/// Runs one command in the wire form and returns its outcome's data.
async fn run(executor: &WebExecutor, session: &str, action: &str, parameters: Value) -> Value {
    let command = json!({"sessionId": session, "action": action, "parameters": parameters});
    let outcome = executor
        .execute_json(&command)
        .await
        .unwrap_or_else(|e| panic!("{command}: {e}"));
    assert_eq!(outcome.action, action);
    assert_eq!(outcome.session, session);
    outcome.data.unwrap_or(Value::Null)
}

async fn run_err(
    executor: &WebExecutor,
    session: &str,
    action: &str,
    parameters: Value,
) -> WebError {
    let command = json!({"sessionId": session, "action": action, "parameters": parameters});
    executor.execute_json(&command).await.unwrap_err()
}

/// Signs in with the demo account through web executor commands only.
async fn log_in(executor: &WebExecutor, session: &str, url: &str, password: &str) {
    run(executor, session, "OPEN_PAGE", json!({"url": url})).await;
    run(
        executor,
        session,
        "INPUT_TEXT",
        json!({"selector": "#username", "text": "demo"}),
    )
    .await;
    run(
        executor,
        session,
        "INPUT_TEXT",
        json!({"selector": "input[name='password']", "text": password}),
    )
    .await;
    run(
        executor,
        session,
        "CLICK_ELEMENT",
        json!({"selector": "#sign-in"}),
    )
    .await;
}

#[tokio::test]
async fn logs_in_to_the_demo_app_and_saves_the_welcome_text() {
    retrace_test_support::require!(Chromium);
    // Real latency on the login submit: SAVE_VARIABLE has to wait for the dashboard.
    let demo = start_demo(DemoConfig {
        latency: Latency::Range {
            min_ms: 300,
            max_ms: 600,
        },
        ..DemoConfig::default()
    })
    .await;
    let browser = browser().await;
    let executor = executor(&browser, 10_000);
    let session = executor.open_session(Some("alice")).await.unwrap();
    assert_eq!(session, "alice");

    log_in(&executor, "alice", &demo.url(), "retrace-demo-pw").await;
    let saved = run(
        &executor,
        "alice",
        "SAVE_VARIABLE",
        json!({"selector": "#welcome", "variableName": "welcome_text"}),
    )
    .await;
    assert_eq!(saved["value"], "Welcome back, demo");
    assert_eq!(
        executor
            .variables("alice")
            .unwrap()
            .get("welcome_text")
            .map(String::as_str),
        Some("Welcome back, demo")
    );
    let page = executor.page("alice").unwrap();
    assert!(page.current_url().await.unwrap().ends_with("/dashboard"));

    // The search box filters the table as typed text arrives.
    run(
        &executor,
        "alice",
        "INPUT_TEXT",
        json!({"selector": "#search", "text": "lantern"}),
    )
    .await;
    let count = run(
        &executor,
        "alice",
        "SAVE_VARIABLE",
        json!({"selector": "#invoice-count", "variableName": "count"}),
    )
    .await;
    assert_eq!(count["value"], "Showing 1 of 8 invoices");
    // INPUT_TEXT replaces what was there.
    run(
        &executor,
        "alice",
        "INPUT_TEXT",
        json!({"selector": "#search", "text": "inv-104"}),
    )
    .await;
    let count = run(
        &executor,
        "alice",
        "SAVE_VARIABLE",
        json!({"selector": "#invoice-count", "variableName": "count"}),
    )
    .await;
    assert_eq!(count["value"], "Showing 8 of 8 invoices");

    // GET_DOM: interactive elements with usable selectors, roles, text and boxes.
    let dom = run(&executor, "alice", "GET_DOM", json!({})).await;
    let elements = dom["elements"].as_array().unwrap();
    let report = elements
        .iter()
        .find(|e| e["selector"] == "#generate-report")
        .unwrap();
    assert_eq!(report["text"], "Generate report");
    assert!(report["box"]["width"].as_f64().unwrap() > 100.0);
    let search = elements
        .iter()
        .find(|e| e["selector"] == "#search")
        .unwrap();
    assert_eq!(search["role"], "search");
    assert!(dom.to_string().len() <= WebExecutorConfig::default().max_dom_chars);
    // The modal is closed, so nothing inside it is listed.
    assert!(!elements.iter().any(|e| e["selector"] == "#modal-close"));
}

#[tokio::test]
async fn waits_for_usable_elements_and_names_command_selector_and_session_in_errors() {
    retrace_test_support::require!(Chromium);
    let demo = start_demo(DemoConfig::default()).await;
    let browser = browser().await;
    let executor = executor(&browser, 600);
    executor.open_session(Some("s1")).await.unwrap();

    // Wrong password: the error message is there to read.
    log_in(&executor, "s1", &demo.url(), "not-the-password").await;
    let error = run(
        &executor,
        "s1",
        "SAVE_VARIABLE",
        json!({"selector": "#login-error", "variableName": "error"}),
    )
    .await;
    assert_eq!(error["value"], "Wrong username or password.");

    // Missing element.
    let missing = run_err(
        &executor,
        "s1",
        "CLICK_ELEMENT",
        json!({"selector": "#no-such-button"}),
    )
    .await;
    let message = missing.to_string();
    assert!(
        matches!(missing, WebError::ElementNotFound { .. }),
        "{message}"
    );
    for needle in ["CLICK_ELEMENT", "#no-such-button", "`s1`", "600 ms"] {
        assert!(message.contains(needle), "{needle} not in: {message}");
    }
    // Invalid CSS fails at once with the browser's complaint.
    let bad = run_err(
        &executor,
        "s1",
        "INPUT_TEXT",
        json!({"selector": "##", "text": "x"}),
    )
    .await;
    assert!(matches!(bad, WebError::BadSelector { .. }), "{bad}");
    assert!(bad.to_string().contains("INPUT_TEXT") && bad.to_string().contains("`##`"));

    // javascript: URLs are refused before anything reaches the page.
    let refused = run_err(
        &executor,
        "s1",
        "OPEN_PAGE",
        json!({"url": "javascript:alert(1)"}),
    )
    .await;
    assert!(matches!(refused, WebError::UrlRefused { .. }), "{refused}");
    assert!(refused.to_string().contains("javascript") && refused.to_string().contains("`s1`"));
    let file = run_err(
        &executor,
        "s1",
        "OPEN_PAGE",
        json!({"url": "file:///etc/passwd"}),
    )
    .await;
    assert!(file.to_string().contains("`file` is not allowed"), "{file}");

    // A modal covers the page: clicks behind it wait, then fail saying what covers them.
    log_in(&executor, "s1", &demo.url(), "retrace-demo-pw").await;
    run(
        &executor,
        "s1",
        "CLICK_ELEMENT",
        json!({"selector": "#new-invoice"}),
    )
    .await;
    let covered = run_err(
        &executor,
        "s1",
        "CLICK_ELEMENT",
        json!({"selector": "#generate-report"}),
    )
    .await;
    assert!(
        matches!(covered, WebError::NotActionable { .. }),
        "{covered}"
    );
    assert!(
        covered.to_string().contains("covered by div#modal"),
        "{covered}"
    );
    run(
        &executor,
        "s1",
        "CLICK_ELEMENT",
        json!({"selector": "#modal-close"}),
    )
    .await;
    run(
        &executor,
        "s1",
        "CLICK_ELEMENT",
        json!({"selector": "#generate-report"}),
    )
    .await;
    // Hidden elements are not clickable; the state is named.
    let hidden = run_err(
        &executor,
        "s1",
        "CLICK_ELEMENT",
        json!({"selector": "#modal-save"}),
    )
    .await;
    assert!(hidden.to_string().contains("is hidden"), "{hidden}");

    // Unknown sessions list the open ones.
    let unknown = run_err(&executor, "bob", "GET_DOM", json!({})).await;
    assert_eq!(
        unknown.to_string(),
        "GET_DOM: there is no session `bob`; open sessions: s1"
    );
}

#[tokio::test]
async fn sessions_are_separate_pages_with_their_own_variables() {
    retrace_test_support::require!(Chromium);
    let demo = start_demo(DemoConfig::default()).await;
    let browser = browser().await;
    let executor = Arc::new(executor(&browser, 5_000));
    let tool = WebExecutorTool::new(Arc::clone(&executor));
    assert_eq!(tool.name(), "web_executor");
    assert!(tool.cacheable());

    // Without sessionId the tool works in the "default" session, opened on first use.
    let opened = tool
        .call(json!({"action": "OPEN_PAGE", "parameters": {"url": demo.url()}}))
        .await
        .unwrap();
    assert!(opened.text.unwrap().starts_with("Opened http://127.0.0.1:"));
    let second = tool
        .call(json!({"action": "OPEN_SESSION", "sessionId": "second"}))
        .await
        .unwrap();
    assert_eq!(second.text.as_deref(), Some("Opened session `second`"));
    tool.call(json!({"action": "OPEN_PAGE", "sessionId": "second",
        "parameters": {"url": format!("{}?layout=v2", demo.url())}}))
        .await
        .unwrap();
    for (session, selector, name) in [("default", "#sign-in", "label"), ("second", "h1", "title")] {
        tool.call(json!({"action": "SAVE_VARIABLE", "sessionId": session,
            "parameters": {"selector": selector, "variableName": name}}))
            .await
            .unwrap();
    }
    assert_eq!(
        executor
            .variables("default")
            .unwrap()
            .into_iter()
            .collect::<Vec<_>>(),
        vec![("label".to_owned(), "Sign in".to_owned())]
    );
    assert_eq!(
        executor
            .variables("second")
            .unwrap()
            .into_iter()
            .collect::<Vec<_>>(),
        vec![("title".to_owned(), "Sign in".to_owned())]
    );

    let listed = tool.call(json!({"action": "LIST_SESSIONS"})).await.unwrap();
    let listed: Value = serde_json::from_str(&listed.text.unwrap()).unwrap();
    let ids: Vec<&str> = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["default", "second"]);
    assert!(
        listed["sessions"][1]["url"]
            .as_str()
            .unwrap()
            .ends_with("?layout=v2")
    );

    tool.call(json!({"action": "CLOSE_SESSION", "sessionId": "second"}))
        .await
        .unwrap();
    assert_eq!(executor.session_ids(), ["default"]);

    // Model mistakes come back as text the model can act on.
    let ToolError::ForModel(message) = tool
        .call(json!({"action": "GET_DOM", "sessionId": "second"}))
        .await
        .unwrap_err()
    else {
        panic!("a closed session is the model's mistake, not a fatal error")
    };
    assert!(message.contains("no session `second`"), "{message}");
    let ToolError::ForModel(message) = tool.call(json!({"action": "SCROLL"})).await.unwrap_err()
    else {
        panic!("unknown actions are for the model")
    };
    assert!(message.contains("OPEN_PAGE, CLICK_ELEMENT"), "{message}");
}

/// The demo's `v2` layout moves the Sign in button 40 px right and 24 px down (crate docs of
/// retrace-demo): the region around the old button centre must look different, and a hash
/// search near the old point must find the button at the documented offset.
#[tokio::test]
async fn v2_layout_renders_different_pixels_at_the_old_button_position() {
    retrace_test_support::require!(Chromium);
    use retrace_vision::Method;

    let demo = start_demo(DemoConfig::default()).await;
    let browser = browser().await;
    let executor = executor(&browser, 5_000);
    // One page, navigated between the layouts: the page screenshotted is always the one in
    // front.
    executor.open_session(Some("s")).await.unwrap();
    let page = executor.page("s").unwrap();
    let mut shots = Vec::new();
    let mut boxes = Vec::new();
    for query in ["", "?layout=v2", ""] {
        let url = format!("{}{query}", demo.url());
        run(&executor, "s", "OPEN_PAGE", json!({ "url": url })).await;
        boxes.push(page.query_selector("#sign-in").await.unwrap().unwrap());
        let png = page.screenshot().await.unwrap().png;
        shots.push(retrace_vision::decode_png(&png).unwrap());
    }
    let (v1_box, v2_box) = (boxes[0], boxes[1]);
    assert_eq!(
        (v1_box.x, v1_box.y, v1_box.width, v1_box.height),
        (481.0, 445.0, 140.0, 44.0)
    );
    assert_eq!((v2_box.x - v1_box.x, v2_box.y - v1_box.y), (40.0, 24.0));
    let (v1, v2, v1_again) = (&shots[0], &shots[1], &shots[2]);
    let old_point = (551, 467);
    let region = retrace_vision::action_region(old_point, 100, 1280, 800);
    let recorded = retrace_vision::region_hash(v1, region, Method::Phash, 8).unwrap();
    let at_old_point = retrace_vision::region_hash(v2, region, Method::Phash, 8).unwrap();
    let distance = recorded.distance(&at_old_point).unwrap();
    assert!(
        distance > 10,
        "v2 looks like v1 at the old button position (distance {distance})"
    );

    // Pixel level too: the button's blue is gone from its old top-left corner in v2.
    let gray_at = |image: &retrace_vision::Image, x: u32, y: u32| {
        let region = retrace_vision::Region::new(x, y, x + 1, y + 1);
        retrace_vision::gray_region(image, region).unwrap()
    };
    assert_ne!(gray_at(v1, 490, 450), gray_at(v2, 490, 450));

    let hit =
        retrace_vision::search_near(v2, &recorded, Method::Phash, old_point, 100, 60).unwrap();
    assert!(
        hit.distance <= 10,
        "moved button not found near the old point: {hit:?}"
    );
    // pHash is coarse: a pixel or two either way can hash the same.
    let (dx, dy) = hit.offset;
    assert!(
        (dx - 40).abs() <= 4 && (dy - 24).abs() <= 4,
        "found at {hit:?}, moved by (40, 24)"
    );

    // Same layout, same pixels: loading v1 again renders the same region hash.
    let again = retrace_vision::region_hash(v1_again, region, Method::Phash, 8).unwrap();
    assert_eq!(recorded.distance(&again).unwrap(), 0);
}
