use std::sync::Arc;

use pretty_assertions::assert_eq;
use retrace_drive::computer::ComputerTool;
use retrace_drive::computer::ComputerToolConfig;
use retrace_drive::tool::Tool;
use retrace_drive::tool::ToolSpec;
use retrace_drive::tool::Toolbox;

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
async fn every_schema_is_valid_json_schema_and_the_computer_is_offered_as_computer_use() {
    retrace_test_support::require!(Chromium);
    let (_browser, tools) = all_tools().await;
    let toolbox = tools
        .iter()
        .fold(Toolbox::new(), |toolbox, tool| toolbox.with(tool.clone()));
    for tool in toolbox.iter() {
        assert!(
            jsonschema::meta::is_valid(&tool.input_schema()),
            "the schema of `{}` is not valid JSON Schema",
            tool.name()
        );
        assert!(!tool.description().is_empty());
    }
    assert_eq!(toolbox.names(), retrace_protocol::tool_names::COMPUTER);
    assert_eq!(toolbox.specs(), vec![ToolSpec::computer(640, 480)]);

    let twice = toolbox.with(tools[0].clone());
    assert_eq!(twice.names(), retrace_protocol::tool_names::COMPUTER);
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
async fn the_toolbox_finds_tools_by_name_and_nothing_else() {
    retrace_test_support::require!(Chromium);
    let (_browser, tools) = all_tools().await;
    let toolbox = Toolbox::new().with(tools[0].clone());
    assert!(toolbox.get("browser").is_none());
    let output = toolbox
        .get("computer")
        .unwrap()
        .call(serde_json::json!({"action": "screenshot"}))
        .await
        .unwrap();
    assert_eq!(output.screenshot.map(|s| s.width), Some(640));
}
