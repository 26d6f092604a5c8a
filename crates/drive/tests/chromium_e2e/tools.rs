use std::sync::Arc;

use pretty_assertions::assert_eq;
use retrace_drive::computer::ComputerTool;
use retrace_drive::computer::ComputerToolConfig;
use retrace_drive::tool::Tool;
use retrace_drive::tool::ToolCollection;
use retrace_drive::tool::ToolError;

use crate::common;

/// Every tool retrace-drive offers on one page.
async fn all_tools() -> (retrace_drive::chromium::ChromiumBrowser, Vec<Arc<dyn Tool>>) {
    let browser = common::launch(640, 480).await;
    let page = Arc::new(browser.open_page().await.unwrap());
    let computer = ComputerTool::new(page, ComputerToolConfig::default())
        .await
        .unwrap();
    (browser, vec![Arc::new(computer)])
}

#[tokio::test]
async fn tool_names_are_unique_and_every_schema_is_valid_json_schema() {
    retrace_test_support::require!(Chromium);
    let (_browser, tools) = all_tools().await;
    let collection = ToolCollection::new(tools.clone()).unwrap();
    let mut names = collection.names();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), tools.len());
    for spec in collection.specs() {
        assert!(
            jsonschema::meta::is_valid(&spec.input_schema),
            "the schema of `{}` is not valid JSON Schema",
            spec.name
        );
        assert!(!spec.description.is_empty());
    }
    assert_eq!(
        collection.names(),
        vec![retrace_protocol::tool_names::COMPUTER]
    );

    let duplicate = ToolCollection::new(vec![tools[0].clone(), tools[0].clone()]).unwrap_err();
    assert!(duplicate.to_string().contains("`computer`"), "{duplicate}");
}

#[tokio::test]
async fn the_computer_schema_accepts_real_actions_and_rejects_unknown_ones() {
    retrace_test_support::require!(Chromium);
    let (_browser, tools) = all_tools().await;
    let schema = tools[0].input_schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(validator.is_valid(&serde_json::json!({"action": "left_click", "coordinate": [1, 2]})));
    assert!(validator.is_valid(
        &serde_json::json!({"action": "scroll", "scroll_direction": "up", "scroll_amount": 2})
    ));
    assert!(!validator.is_valid(&serde_json::json!({"action": "fly"})));
    assert!(!validator.is_valid(&serde_json::json!({"coordinate": [1, 2]})));
}

#[tokio::test]
async fn an_unknown_tool_name_is_an_error_listing_the_valid_names() {
    retrace_test_support::require!(Chromium);
    let (_browser, tools) = all_tools().await;
    let collection = ToolCollection::new(tools).unwrap();
    let error = collection
        .call("browser", serde_json::json!({}))
        .await
        .unwrap_err();
    match error {
        ToolError::ForModel(message) => {
            assert_eq!(
                message,
                "there is no tool named `browser`; the tools are: computer"
            );
        }
        other => panic!("expected ForModel, got {other:?}"),
    }
    let output = collection
        .call("computer", serde_json::json!({"action": "screenshot"}))
        .await
        .unwrap();
    assert_eq!(output.screenshot.map(|s| s.width), Some(640));
}
