//! The structured loop's browser side against real headless Chromium and the real demo app:
//! the resolving `web_executor` tool on a page that is already open, and the page observer.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use std::sync::Arc;

use retrace_agent::structured::ExecutorObserver;
use retrace_agent::structured::PageObserver;
use retrace_agent::structured::ResolvingWebTool;
use retrace_agent::structured::executor_on_page;
use retrace_drive::BrowserBackend;
use retrace_drive::tool::Tool;
use retrace_drive::web::DEFAULT_SESSION;
use retrace_drive::web::WebExecutorConfig;
use retrace_test_support::demo::start_default_demo;
use serde_json::Value;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_run_on_the_open_page_and_resolve_saved_variables() {
    let demo = start_default_demo().await;
    let browser = Arc::new(retrace_test_support::chromium!(1280, 800));
    let page: Arc<dyn BrowserBackend> = Arc::new(browser.open_page().await.unwrap());
    page.navigate(&demo.url()).await.unwrap();
    let executor = executor_on_page(page.clone(), browser.clone(), WebExecutorConfig::default());
    let tool = ResolvingWebTool::new(executor.clone());
    let call = |input: Value| {
        let tool = &tool;
        async move {
            let reply = tool.call(input).await.unwrap();
            reply.text.unwrap_or_default()
        }
    };

    // The default session is the page already open: no OPEN_PAGE needed.
    call(json!({"action": "SAVE_VARIABLE", "parameters": {"selector": "#sign-in", "variableName": "label"}})).await;
    let typed = call(
        json!({"action": "INPUT_TEXT", "parameters": {"selector": "#username", "text": "${label} now"}}),
    )
    .await;
    assert_eq!(typed, "Typed 11 characters into `#username`");
    let value = page
        .evaluate("document.querySelector('#username').value")
        .await
        .unwrap();
    assert_eq!(value, json!("Sign in now"));
    assert_eq!(executor.session_ids(), vec![DEFAULT_SESSION.to_owned()]);

    // The observer sees the same page: URL, title, elements, variables, a screenshot.
    let state = ExecutorObserver::new(executor.clone(), DEFAULT_SESSION, true)
        .observe()
        .await;
    assert_eq!(state.problem, None);
    assert_eq!(state.url.as_deref(), Some(demo.url().as_str()));
    assert!(state.title.is_some_and(|title| !title.is_empty()));
    let dom = state.dom.unwrap();
    assert!(
        dom.contains("#password") && dom.contains("#sign-in"),
        "{dom}"
    );
    assert_eq!(
        state.variables.get("label").map(String::as_str),
        Some("Sign in")
    );
    let png = state.screenshot_png.unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");

    // A second session is a new page of the same browser.
    let opened = call(json!({"action": "OPEN_SESSION", "sessionId": "second"})).await;
    assert_eq!(opened, "Opened session `second`");
    let second = executor.page("second").unwrap();
    assert_eq!(second.current_url().await.unwrap(), "about:blank");
    assert_eq!(page.current_url().await.unwrap(), demo.url());
}
