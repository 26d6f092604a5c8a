//! Adding a computer action is one entry in the catalogue: the test-only action
//! `test_submit` (declared only in `crates/protocol/src/computer_actions/catalog.rs`, behind
//! retrace-protocol's `test-action` feature, which this crate's tests turn on) reaches the
//! model's tool description, the OpenAI function schema, the askui export, `retrace cache
//! check`, replay's plan and the computer tool's dispatch on a real headless Chromium, with
//! no other file naming it.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use retrace_cache::CacheFile;
use retrace_cache::CacheMetadata;
use retrace_protocol::ToolUseBlock;
use retrace_protocol::computer_actions;
use retrace_protocol::computer_actions::ActionKind;
use retrace_protocol::computer_actions::Askui;
use retrace_protocol::tool_names::base_name;
use retrace_replay::ReplayRequest;
use retrace_replay::plan::Plan;
use serde_json::Value;
use serde_json::json;

/// The test-only action's name.
const NAME: &str = "test_submit";

fn file_of(inputs: &[Value]) -> CacheFile {
    let at = retrace_cache::parse_timestamp("2026-01-01T00:00:00Z").unwrap();
    let steps = inputs
        .iter()
        .enumerate()
        .map(|(i, input)| ToolUseBlock::new(format!("toolu_{i}"), "computer", input.clone()))
        .collect();
    CacheFile::new(CacheMetadata::new(at, None), steps)
}

#[test]
fn the_catalogue_holds_it_with_its_kind_and_askui_name() {
    let spec = computer_actions::spec(NAME).expect("the test-action feature is on");
    assert_eq!(spec.kind, ActionKind::Keyboard);
    assert!(computer_actions::COMPUTER_ACTIONS.contains(&NAME));
}

#[test]
fn it_reaches_the_model_tool_description_and_the_openai_schema() {
    let description = retrace_protocol::computer_tool::description();
    assert!(
        description.contains("test_submit (presses Return"),
        "{description}"
    );
    let schema = retrace_protocol::computer_tool::input_schema();
    assert!(
        schema["properties"]["action"]["enum"]
            .as_array()
            .unwrap()
            .contains(&json!(NAME))
    );
    let function = retrace_llm::openai::computer::computer_function(1280, 800);
    let function = &function["function"];
    assert!(
        function["description"]
            .as_str()
            .unwrap()
            .contains("test_submit (presses Return")
    );
    assert!(
        function["parameters"]["properties"]["action"]["enum"]
            .as_array()
            .unwrap()
            .contains(&json!(NAME))
    );
}

#[test]
fn it_reaches_the_askui_export_under_the_catalogues_askui_name() {
    let exported =
        retrace_cache::export_askui(&file_of(&[json!({"action": NAME, "repeat": 2})])).unwrap();
    let names: Vec<&str> = exported
        .file
        .trajectory
        .iter()
        .map(|step| base_name(&step.name).split("_tags_").next().unwrap_or(""))
        .collect();
    let Askui::Tools(askui) = computer_actions::spec(NAME).unwrap().askui else {
        panic!("the test action exports as askui tools");
    };
    assert_eq!(names, [askui[0], askui[0]]);
    let enter =
        retrace_cache::export_askui(&file_of(&[json!({"action": "key", "text": "Return"})]))
            .unwrap();
    assert_eq!(
        exported.file.trajectory[0].input,
        enter.file.trajectory[0].input
    );
}

#[test]
fn it_reaches_cache_check_and_replays_plan() {
    let good = file_of(&[
        json!({"action": NAME}),
        json!({"action": NAME, "repeat": 3}),
    ]);
    assert!(
        retrace_cache::check(&good).is_empty(),
        "{:?}",
        retrace_cache::check(&good)
    );
    let bad = file_of(&[json!({"action": NAME, "repeat": 0})]);
    let problems: Vec<String> = retrace_cache::check(&bad)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("step 1: trajectory[0].input.repeat:")),
        "{problems:?}"
    );

    let plan = Plan::from_file(&ReplayRequest::new("flow.json"), &good).unwrap();
    assert_eq!(plan.steps.len(), 2);
    assert!(
        plan.steps[0].acts_on_focus(),
        "keyboard input acts on the focus"
    );
    assert!(!plan.steps[0].observe_only);
    assert_eq!(plan.steps[0].describe(), NAME);
}

/// The end-to-end tier: the action dispatched on a real browser.
#[cfg(feature = "e2e")]
mod on_a_real_browser {
    use std::sync::Arc;

    use retrace_drive::BrowserBackend;
    use retrace_drive::computer::ComputerTool;
    use retrace_drive::computer::ComputerToolConfig;
    use retrace_drive::tool::Tool;
    use serde_json::json;

    use super::NAME;

    /// A page whose field has the focus and logs every key it receives.
    const PAGE: &str = r#"<!doctype html><html><body>
<input id="field" autofocus>
<script>
window.keys = [];
document.getElementById('field').addEventListener('keydown', e => window.keys.push(e.key));
document.getElementById('field').focus();
</script></body></html>"#;

    #[tokio::test]
    async fn it_reaches_the_dispatch_on_a_real_browser() {
        let server = retrace_test_support::html_server::serve_html(&[("/", PAGE)]);
        let browser = retrace_test_support::chromium!();
        let page = Arc::new(browser.open_page().await.unwrap());
        page.navigate(&server.url("/")).await.unwrap();
        let tool = ComputerTool::new(page.clone(), ComputerToolConfig::default())
            .await
            .unwrap();
        assert!(tool.description().contains(NAME));

        let output = tool
            .call(json!({"action": NAME, "repeat": 2}))
            .await
            .unwrap();

        assert!(output.screenshot.is_some(), "it answers like every action");
        assert_eq!(
            page.evaluate("window.keys").await.unwrap(),
            json!(["Enter", "Enter"])
        );
        let refused = tool.call(json!({"action": NAME, "repeat": 0})).await;
        assert!(
            refused.is_err_and(|e| e.to_string().contains("`repeat` of `test_submit`")),
            "the catalogue's parser refuses it for the model"
        );
    }
}
