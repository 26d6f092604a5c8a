use std::sync::Arc;

use pretty_assertions::assert_eq;
use retrace_drive::BrowserBackend;
use retrace_drive::chromium::ChromiumPage;
use retrace_drive::computer::ComputerTool;
use retrace_drive::computer::ComputerToolConfig;
use retrace_drive::tool::Tool;
use retrace_drive::tool::ToolError;
use serde_json::Value;
use serde_json::json;

use crate::common;

async fn tool_on(page: &Arc<ChromiumPage>, config: ComputerToolConfig) -> ComputerTool {
    ComputerTool::new(page.clone(), config).await.unwrap()
}

async fn act(tool: &ComputerTool, input: Value) {
    tool.call(input.clone())
        .await
        .unwrap_or_else(|e| panic!("{input} failed: {e}"));
}

async fn events(page: &ChromiumPage) -> Vec<Value> {
    page.evaluate("window.events")
        .await
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

async fn active_id(page: &ChromiumPage) -> Value {
    page.evaluate("document.activeElement.id").await.unwrap()
}

/// The screenshot an action returns (the one a recording stores as the action's effect) shows
/// where a form submission led, even when the page's main thread started that navigation long
/// after the click was delivered and the network had been quiet for a while.
#[tokio::test]
async fn a_click_that_submits_a_form_late_returns_the_page_it_led_to() {
    retrace_test_support::require!(Chromium);
    let server = common::serve_pages();
    let (_browser, page) = common::page_at(&server.url("/slow-submit")).await;
    let tool = tool_on(&page, ComputerToolConfig::default()).await;

    let after = tool
        .call(json!({"action": "left_click", "coordinate": [150, 215]}))
        .await
        .unwrap();

    assert_eq!(
        banner_colour(&after),
        vec![0, 170, 0],
        "the screenshot shows the dashboard's green banner"
    );
}

/// The RGB at (640, 10) of an action's screenshot: in the dashboard's banner, if it shows.
fn banner_colour(output: &retrace_drive::tool::ToolOutput) -> Vec<u8> {
    let png = &output.screenshot.as_ref().unwrap().png;
    let image = retrace_vision::decode_png(png).unwrap();
    let rgba = image.to_rgba();
    let at = ((10 * image.width() + 640) * 4) as usize;
    rgba[at..at + 3].to_vec()
}

/// The acceptance scenario on a local login page: clicks at coordinates, typing,
/// Tab and Return only.
#[tokio::test]
async fn logs_in_with_clicks_typing_tab_and_return_only() {
    retrace_test_support::require!(Chromium);
    let server = common::serve_pages();
    let (_browser, page) = common::page_at(&server.url("/login")).await;
    let tool = tool_on(&page, ComputerToolConfig::default()).await;

    let before = tool.call(json!({"action": "screenshot"})).await.unwrap();
    act(
        &tool,
        json!({"action": "left_click", "coordinate": [200, 115]}),
    )
    .await;
    act(&tool, json!({"action": "type", "text": "demo"})).await;
    act(&tool, json!({"action": "key", "text": "Tab"})).await;
    act(&tool, json!({"action": "type", "text": "s3cret!"})).await;
    let after = tool
        .call(json!({"action": "key", "text": "Return"}))
        .await
        .unwrap();

    assert_eq!(
        page.current_url().await.unwrap(),
        server.url("/dashboard?user=demo&password=s3cret%21")
    );
    common::wait_for_js(
        &page,
        "document.getElementById('welcome').textContent === 'Welcome, demo'",
    )
    .await;
    // The green banner of the dashboard is in the screenshot the last action returned.
    assert_eq!(banner_colour(&before), vec![255, 255, 255]);
    assert_eq!(banner_colour(&after), vec![0, 170, 0]);
}

#[tokio::test]
async fn typing_and_keys_behave_like_a_keyboard() {
    retrace_test_support::require!(Chromium);
    let server = common::serve_pages();
    let (_browser, page) = common::page_at(&server.url("/input")).await;
    let tool = tool_on(
        &page,
        ComputerToolConfig {
            screenshot_after_action: false,
            ..ComputerToolConfig::default()
        },
    )
    .await;
    let value = |id: &str| format!("document.getElementById('{id}').value");

    act(
        &tool,
        json!({"action": "left_click", "coordinate": [200, 115]}),
    )
    .await;
    assert_eq!(active_id(&page).await, "b");
    act(&tool, json!({"action": "type", "text": "Hi there: A+B=C?"})).await;
    assert_eq!(
        page.evaluate(&value("b")).await.unwrap(),
        "Hi there: A+B=C?"
    );
    act(&tool, json!({"action": "key", "text": "ctrl+a"})).await;
    act(&tool, json!({"action": "type", "text": "x"})).await;
    assert_eq!(page.evaluate(&value("b")).await.unwrap(), "x");
    act(&tool, json!({"action": "key", "text": "BackSpace"})).await;
    assert_eq!(page.evaluate(&value("b")).await.unwrap(), "");

    act(&tool, json!({"action": "key", "text": "shift+Tab"})).await;
    assert_eq!(active_id(&page).await, "a");
    act(&tool, json!({"action": "key", "text": "Tab"})).await;
    act(&tool, json!({"action": "key", "text": "Tab"})).await;
    assert_eq!(active_id(&page).await, "c");

    act(
        &tool,
        json!({"action": "hold_key", "text": "shift", "duration": 0.05}),
    )
    .await;
    act(&tool, json!({"action": "key", "text": "Escape"})).await;
    act(&tool, json!({"action": "key", "text": "F2"})).await;
    let keys: Vec<Value> = events(&page)
        .await
        .into_iter()
        .filter(|e| e["type"] == "keydown")
        .map(|e| json!([e["key"], e["code"]]))
        .collect();
    assert_eq!(
        &keys[keys.len() - 3..],
        &[
            json!(["Shift", "ShiftLeft"]),
            json!(["Escape", "Escape"]),
            json!(["F2", "F2"])
        ]
    );
}

#[tokio::test]
async fn clicks_carry_their_button_count_and_held_modifiers() {
    retrace_test_support::require!(Chromium);
    let server = common::serve_pages();
    let (_browser, page) = common::page_at(&server.url("/input")).await;
    let tool = tool_on(
        &page,
        ComputerToolConfig {
            screenshot_after_action: false,
            ..ComputerToolConfig::default()
        },
    )
    .await;

    act(
        &tool,
        json!({"action": "double_click", "coordinate": [500, 150]}),
    )
    .await;
    act(
        &tool,
        json!({"action": "right_click", "coordinate": [510, 160]}),
    )
    .await;
    act(
        &tool,
        json!({"action": "left_click", "coordinate": [520, 170], "text": "ctrl"}),
    )
    .await;
    act(
        &tool,
        json!({"action": "triple_click", "coordinate": [530, 180]}),
    )
    .await;
    act(
        &tool,
        json!({"action": "middle_click", "coordinate": [540, 190]}),
    )
    .await;

    let seen: Vec<Value> = events(&page)
        .await
        .into_iter()
        .filter(|e| {
            ["dblclick", "contextmenu", "click", "auxclick"].contains(&e["type"].as_str().unwrap())
        })
        .map(|e| {
            json!([
                e["type"],
                e["x"],
                e["y"],
                e["button"],
                e["detail"],
                e["ctrl"]
            ])
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            json!(["click", 500, 150, 0, 1, false]),
            json!(["click", 500, 150, 0, 2, false]),
            json!(["dblclick", 500, 150, 0, 2, false]),
            json!(["contextmenu", 510, 160, 2, 0, false]),
            json!(["auxclick", 510, 160, 2, 1, false]),
            json!(["click", 520, 170, 0, 1, true]),
            json!(["click", 530, 180, 0, 1, false]),
            json!(["click", 530, 180, 0, 2, false]),
            json!(["dblclick", 530, 180, 0, 2, false]),
            json!(["click", 530, 180, 0, 3, false]),
            json!(["auxclick", 540, 190, 1, 1, false]),
        ]
    );
}

#[tokio::test]
async fn drags_moves_and_raw_button_presses_reach_the_page() {
    retrace_test_support::require!(Chromium);
    let server = common::serve_pages();
    let (_browser, page) = common::page_at(&server.url("/input")).await;
    let tool = tool_on(
        &page,
        ComputerToolConfig {
            screenshot_after_action: false,
            ..ComputerToolConfig::default()
        },
    )
    .await;

    act(&tool, json!({"action": "left_click_drag", "start_coordinate": [450, 100], "coordinate": [550, 200]})).await;
    act(
        &tool,
        json!({"action": "mouse_move", "coordinate": [420, 60]}),
    )
    .await;
    act(&tool, json!({"action": "left_mouse_down"})).await;
    act(&tool, json!({"action": "left_mouse_up"})).await;
    let presses: Vec<Value> = events(&page)
        .await
        .into_iter()
        .filter(|e| e["type"] == "mousedown" || e["type"] == "mouseup")
        .map(|e| json!([e["type"], e["x"], e["y"]]))
        .collect();
    assert_eq!(
        presses,
        vec![
            json!(["mousedown", 450, 100]),
            json!(["mouseup", 550, 200]),
            json!(["mousedown", 420, 60]),
            json!(["mouseup", 420, 60]),
        ]
    );
    let position = tool
        .call(json!({"action": "cursor_position"}))
        .await
        .unwrap();
    assert_eq!(position.text.as_deref(), Some("X=420,Y=60"));
    assert_eq!(position.screenshot, None);
}

#[tokio::test]
async fn scroll_and_page_down_move_the_page() {
    retrace_test_support::require!(Chromium);
    let server = common::serve_pages();
    let (_browser, page) = common::page_at(&server.url("/input")).await;
    let tool = tool_on(&page, ComputerToolConfig::default()).await;

    act(&tool, json!({"action": "scroll", "coordinate": [640, 400], "scroll_direction": "down", "scroll_amount": 3})).await;
    common::wait_for_js(&page, "window.scrollY === 300").await;
    act(&tool, json!({"action": "scroll", "coordinate": [640, 400], "scroll_direction": "up", "scroll_amount": 1})).await;
    common::wait_for_js(&page, "window.scrollY === 200").await;
    act(
        &tool,
        json!({"action": "left_click", "coordinate": [1000, 700]}),
    )
    .await;
    act(&tool, json!({"action": "key", "text": "Page_Down"})).await;
    common::wait_for_js(&page, "window.scrollY > 600").await;
}

#[tokio::test]
async fn coordinates_and_screenshots_scale_between_model_and_display() {
    retrace_test_support::require!(Chromium);
    let server = common::serve_pages();
    let (_browser, page) = common::page_at(&server.url("/input")).await;
    let tool = tool_on(
        &page,
        ComputerToolConfig {
            model_size: Some((640, 400)),
            ..ComputerToolConfig::default()
        },
    )
    .await;
    assert_eq!(tool.api_definition()["display_width_px"], 640);

    let output = tool
        .call(json!({"action": "left_click", "coordinate": [250, 75]}))
        .await
        .unwrap();
    let shot = output.screenshot.unwrap();
    assert_eq!((shot.width, shot.height), (640, 400));
    let image = retrace_vision::decode_png(&shot.png).unwrap();
    assert_eq!((image.width(), image.height()), (640, 400));
    // The red target (display 400..600 x 50..250) is at model 200..300 x 25..125.
    let rgba = image.to_rgba();
    let at = ((75 * 640 + 250) * 4) as usize;
    assert_eq!(&rgba[at..at + 3], &[204, 0, 0]);

    let clicks: Vec<Value> = events(&page)
        .await
        .into_iter()
        .filter(|e| e["type"] == "click")
        .map(|e| json!([e["x"], e["y"]]))
        .collect();
    assert_eq!(clicks, vec![json!([500, 150])]);
    let position = tool
        .call(json!({"action": "cursor_position"}))
        .await
        .unwrap();
    assert_eq!(position.text.as_deref(), Some("X=250,Y=75"));
    let error = tool
        .call(json!({"action": "left_click", "coordinate": [700, 10]}))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("0..640"), "{error}");
}

/// `zoom` answers with the region at the display's full resolution: a model seeing the page
/// at half size gets the region's display pixels, equal to the same region of a display
/// screenshot, not an upscaled copy of what it already saw.
#[tokio::test]
async fn zoom_returns_the_region_at_full_resolution() {
    retrace_test_support::require!(Chromium);
    let server = common::serve_pages();
    let (_browser, page) = common::page_at(&server.url("/input")).await;
    let tool = tool_on(
        &page,
        ComputerToolConfig {
            model_size: Some((640, 400)),
            ..ComputerToolConfig::default()
        },
    )
    .await;
    // Model region 180..320 x 10..140 is display 360..640 x 20..280: the red target's edges.
    let zoomed = tool
        .call(json!({"action": "zoom", "region": [180, 10, 320, 140]}))
        .await
        .unwrap()
        .screenshot
        .unwrap();
    assert_eq!((zoomed.width, zoomed.height), (280, 260));
    let display = retrace_drive::Backend::screenshot(page.as_ref())
        .await
        .unwrap();
    let full = retrace_vision::decode_png(&display.png)
        .unwrap()
        .to_rgba()
        .into_owned();
    let zoom = retrace_vision::decode_png(&zoomed.png)
        .unwrap()
        .to_rgba()
        .into_owned();
    for y in 0..260_usize {
        let row = ((20 + y) * display.width as usize + 360) * 4;
        assert_eq!(
            &zoom[y * 280 * 4..(y + 1) * 280 * 4],
            &full[row..row + 280 * 4],
            "row {y}"
        );
    }
    // The target (display 400..600 x 50..250) starts 40 px into the zoom, as on the display.
    let at = ((40 * 280) + 40) * 4;
    assert_eq!(&zoom[at..at + 3], &[204, 0, 0]);
    let outside = tool
        .call(json!({"action": "zoom", "region": [600, 0, 700, 10]}))
        .await
        .unwrap_err();
    assert!(
        outside.to_string().contains("leaves the 640x400"),
        "{outside}"
    );
    let malformed = tool
        .call(json!({"action": "zoom", "region": [10, 10, 5, 20]}))
        .await
        .unwrap_err();
    assert!(malformed.to_string().contains("x0 < x1"), "{malformed}");
}

/// `key` presses `repeat` times.
#[tokio::test]
async fn key_repeats_as_asked() {
    retrace_test_support::require!(Chromium);
    let server = common::serve_pages();
    let (_browser, page) = common::page_at(&server.url("/input")).await;
    let tool = tool_on(&page, ComputerToolConfig::default()).await;
    let before = events(&page).await.len();
    act(&tool, json!({"action": "key", "text": "Tab", "repeat": 3})).await;
    let tabs = events(&page)
        .await
        .into_iter()
        .skip(before)
        .filter(|e| e["type"] == "keydown" && e["key"] == "Tab")
        .count();
    assert_eq!(tabs, 3);
    let error = tool
        .call(json!({"action": "key", "text": "Tab", "repeat": 0}))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("`repeat`"), "{error}");
}

#[tokio::test]
async fn bad_input_is_an_error_the_model_can_read_and_the_page_lives_on() {
    retrace_test_support::require!(Chromium);
    let server = common::serve_pages();
    let (_browser, page) = common::page_at(&server.url("/input")).await;
    let tool = tool_on(&page, ComputerToolConfig::default()).await;

    let cases = [
        (
            json!({"action": "fly"}),
            "unknown action `fly`; valid actions: screenshot, left_click",
        ),
        (json!({"coordinate": [1, 2]}), "missing `action`"),
        (json!("left_click"), "must be a JSON object"),
        (json!({"action": "type"}), "`type` needs `text`"),
        (
            json!({"action": "key", "text": "ctrl+Hyperdrive"}),
            "unknown key `Hyperdrive`",
        ),
        (
            json!({"action": "mouse_move"}),
            "`mouse_move` needs `coordinate`",
        ),
        (
            json!({"action": "left_click", "coordinate": [5000, 10]}),
            "coordinate (5000, 10) is off screen",
        ),
        (
            json!({"action": "left_click", "coordinate": [-1, 10]}),
            "two non-negative integers",
        ),
        (
            json!({"action": "left_click", "coordinate": "10,20"}),
            "must be [x, y]",
        ),
        (
            json!({"action": "left_click_drag", "coordinate": [1, 2]}),
            "needs `start_coordinate`",
        ),
        (
            json!({"action": "left_mouse_down", "coordinate": [1, 2]}),
            "does not take `coordinate`",
        ),
        (
            json!({"action": "scroll", "scroll_direction": "sideways", "scroll_amount": 1}),
            "one of up, down, left, right",
        ),
        (
            json!({"action": "scroll", "scroll_direction": "up"}),
            "needs `scroll_amount`",
        ),
        (json!({"action": "wait", "duration": 500}), "too long"),
        (
            json!({"action": "hold_key", "text": "shift"}),
            "needs `duration`",
        ),
    ];
    for (input, expected) in cases {
        match tool.call(input.clone()).await {
            Err(ToolError::ForModel(message)) => {
                assert!(
                    message.contains(expected),
                    "{input}: `{message}` lacks `{expected}`"
                );
            }
            other => panic!("{input}: expected a ForModel error, got {other:?}"),
        }
    }
    let shot = tool.call(json!({"action": "screenshot"})).await.unwrap();
    assert_eq!(
        shot.screenshot.map(|s| (s.width, s.height)),
        Some((1280, 800))
    );
}

#[tokio::test]
async fn wait_waits_and_actions_answer_with_screenshots_unless_configured_off() {
    retrace_test_support::require!(Chromium);
    let server = common::serve_pages();
    let (_browser, page) = common::page_at(&server.url("/input")).await;
    let with = tool_on(&page, ComputerToolConfig::default()).await;
    let without = tool_on(
        &page,
        ComputerToolConfig {
            screenshot_after_action: false,
            ..ComputerToolConfig::default()
        },
    )
    .await;

    let started = std::time::Instant::now();
    let output = with
        .call(json!({"action": "wait", "duration": 0.3}))
        .await
        .unwrap();
    assert!(started.elapsed() >= std::time::Duration::from_millis(300));
    assert!(output.screenshot.is_some());
    let output = without
        .call(json!({"action": "mouse_move", "coordinate": [10, 10]}))
        .await
        .unwrap();
    assert_eq!(output.screenshot, None);
    assert!(
        without
            .call(json!({"action": "screenshot"}))
            .await
            .unwrap()
            .screenshot
            .is_some()
    );
    assert!(with.cacheable());
}
