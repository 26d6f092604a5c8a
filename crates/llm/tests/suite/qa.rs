//! Image question answering and element location through real clients and fake servers.

use base64::Engine;
use retrace_llm::RetryingProvider;
use retrace_llm::openai::OpenAiClient;
use retrace_llm::openai::OpenAiConfig;
use retrace_llm::qa;
use retrace_llm::qa::BoundingBox;
use retrace_llm::qa::ElementLocation;
use retrace_llm::qa::Point;
use retrace_llm::qa::QaError;
use retrace_protocol::StopReason;
use retrace_test_support::fake_model::FakeAnthropic;
use retrace_test_support::fake_model::FakeOpenAi;
use retrace_test_support::fake_model::ScriptStep;
use serde_json::json;

use super::anthropic_client;
use super::quick_policy;
use super::screenshot_png;

fn title_schema() -> serde_json::Value {
    json!({
        "type": "object",
        "properties": {"title": {"type": "string"}, "has_login_form": {"type": "boolean"}},
        "required": ["title", "has_login_form"],
        "additionalProperties": false,
    })
}

#[tokio::test]
async fn ask_image_reads_a_fenced_answer_and_sends_the_image_and_schema() {
    let fake = FakeAnthropic::start(vec![ScriptStep::text(
        "```json\n{\"title\": \"qemu-img\", \"has_login_form\": false}\n```",
    )])
    .await;
    let png = screenshot_png();
    let answer = qa::ask_image(
        &anthropic_client(&fake.base_url()),
        &png,
        "What is the page title, and is there a login form?",
        &title_schema(),
    )
    .await
    .unwrap();
    assert_eq!(
        answer,
        json!({"title": "qemu-img", "has_login_form": false})
    );

    let requests = fake.requests();
    let sent = requests[0].body();
    assert_eq!(sent["messages"][0]["content"][0]["type"], "image");
    assert_eq!(
        sent["messages"][0]["content"][1]["text"],
        "What is the page title, and is there a login form?"
    );
    assert!(
        sent["system"][0]["text"]
            .as_str()
            .unwrap()
            .contains(&title_schema().to_string())
    );
}

#[tokio::test]
async fn ask_image_rejects_answers_that_break_the_schema_or_are_not_json() {
    let fake = FakeAnthropic::start(vec![
        ScriptStep::text(r#"{"title": 7, "has_login_form": false}"#),
        ScriptStep::text("The title is qemu-img."),
        ScriptStep::text(r#"{"title": "#).stop(StopReason::MaxTokens),
    ])
    .await;
    let client = anthropic_client(&fake.base_url());
    let png = screenshot_png();
    let schema = title_schema();
    let ask = || qa::ask_image(&client, &png, "Title?", &schema);

    let QaError::SchemaViolation { errors, .. } = ask().await.unwrap_err() else {
        panic!("expected SchemaViolation");
    };
    assert_eq!(errors.len(), 1);
    assert!(errors[0].starts_with("/title: "), "{errors:?}");
    assert!(matches!(ask().await.unwrap_err(), QaError::NotJson { .. }));
    assert!(matches!(
        ask().await.unwrap_err(),
        QaError::Incomplete {
            stop_reason: StopReason::MaxTokens,
            ..
        }
    ));
}

#[tokio::test]
async fn an_invalid_schema_fails_before_any_model_call() {
    let fake = FakeAnthropic::start(vec![ScriptStep::text("{}")]).await;
    let error = qa::ask_image(
        &anthropic_client(&fake.base_url()),
        &screenshot_png(),
        "?",
        &json!({"type": "no-such-type"}),
    )
    .await
    .unwrap_err();
    assert!(matches!(error, QaError::InvalidSchema { .. }), "{error:?}");
    assert!(fake.requests().is_empty());
}

fn openai(fake: &FakeOpenAi) -> RetryingProvider<OpenAiClient> {
    let client = OpenAiClient::new(OpenAiConfig::new(fake.base_url(), "qwen2.5-vl-7b")).unwrap();
    RetryingProvider::new(client, quick_policy(3))
}

#[tokio::test]
async fn locate_element_returns_point_box_and_confidence() {
    let answer = json!({
        "found": true,
        "point": {"x": 640, "y": 212},
        "bbox": {"left": 700, "top": 230, "right": 580, "bottom": 195},
        "confidence": 0.9,
    });
    let fake = FakeOpenAi::start(vec![
        ScriptStep::server_error(503),
        ScriptStep::text(answer.to_string()),
    ])
    .await;
    let location = qa::locate_element(&openai(&fake), &screenshot_png(), "the Search box")
        .await
        .unwrap();
    assert_eq!(
        location,
        ElementLocation {
            point: Point { x: 640, y: 212 },
            bbox: BoundingBox {
                left: 580,
                top: 195,
                right: 700,
                bottom: 230
            },
            confidence: 0.9,
        }
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    let sent = requests[1].body();
    assert_eq!(
        sent["response_format"]["json_schema"]["schema"],
        qa::location_schema()
    );
    assert!(
        sent["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("1280x800 pixels")
    );
    let image_url = sent["messages"][1]["content"][0]["image_url"]["url"]
        .as_str()
        .unwrap();
    assert!(image_url.starts_with("data:image/png;base64,iVBORw0KGgo"));
    assert_eq!(
        sent["messages"][1]["content"][1]["text"],
        "Find this element: the Search box"
    );
}

#[tokio::test]
async fn locate_element_reports_missing_and_out_of_bounds_elements() {
    let missing = json!({"found": false, "point": {"x": 0, "y": 0}, "bbox": {"left": 0, "top": 0, "right": 0, "bottom": 0}, "confidence": 0.8});
    let outside = json!({"found": true, "point": {"x": 1300, "y": 10}, "bbox": {"left": 1290, "top": 0, "right": 1310, "bottom": 20}, "confidence": 0.5});
    let fake = FakeOpenAi::start(vec![
        ScriptStep::text(missing.to_string()),
        ScriptStep::text(outside.to_string()),
    ])
    .await;
    let provider = openai(&fake);
    let png = screenshot_png();
    assert_eq!(
        qa::locate_element(&provider, &png, "the Logout button")
            .await
            .unwrap_err(),
        QaError::NotFound {
            description: "the Logout button".into()
        }
    );
    let error = qa::locate_element(&provider, &png, "the close icon")
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the model placed `the close icon` at (1300, 10), outside the 1280x800 screenshot"
    );
}

#[tokio::test]
async fn locate_element_rejects_bytes_that_are_not_a_png() {
    let fake = FakeOpenAi::start(vec![]).await;
    let error = qa::locate_element(&openai(&fake), b"GIF89a....", "anything")
        .await
        .unwrap_err();
    assert!(matches!(error, QaError::BadImage { .. }), "{error:?}");
    assert!(fake.requests().is_empty());
}

/// A 1280x12000 full-page screenshot: white, with a dark 80x40 button at page (600, 6100).
pub fn tall_page_png() -> Vec<u8> {
    let (width, height) = (1280usize, 12000usize);
    let mut rgba = vec![255u8; width * height * 4];
    for y in 6100..6140 {
        for x in 600..680 {
            rgba[(y * width + x) * 4..][..3].copy_from_slice(&[20, 40, 160]);
        }
    }
    retrace_vision::encode_png_rgba(width as u32, height as u32, &rgba).unwrap()
}

#[tokio::test]
async fn locate_element_on_a_tall_page_sends_parts_within_the_limits_and_maps_the_box_back() {
    // Part 3 of 4 shows page rows 5909-9045 at half scale: the button's box there is
    // (300, 95)-(340, 115), its centre (320, 105).
    let answer = json!({
        "found": true,
        "part": 3,
        "point": {"x": 320, "y": 105},
        "bbox": {"left": 300, "top": 95, "right": 340, "bottom": 115},
        "confidence": 0.9,
    });
    let fake = FakeAnthropic::start(vec![ScriptStep::text(answer.to_string())]).await;
    let client = anthropic_client(&fake.base_url());
    let location = qa::locate_element(&client, &tall_page_png(), "the blue button")
        .await
        .unwrap();
    assert_eq!(
        location,
        ElementLocation {
            point: Point { x: 640, y: 6119 },
            bbox: BoundingBox {
                left: 600,
                top: 6099,
                right: 680,
                bottom: 6139
            },
            confidence: 0.9,
        }
    );

    let requests = fake.requests();
    retrace_test_support::sdk_check::assert_requests_valid(&requests);
    let images = requests[0].images();
    assert_eq!(images.len(), 4, "four parts");
    for image in &images {
        let png = base64::engine::general_purpose::STANDARD
            .decode(image)
            .unwrap();
        let decoded = retrace_vision::decode_png(&png).unwrap();
        assert_eq!((decoded.width(), decoded.height()), (640, 1568));
    }
    let sent = requests[0].body().to_string();
    assert!(
        sent.contains(
            "The screenshot, part 3 of 4, page rows 5909-9045 at scale 0.5 (640x1568 px):"
        ),
        "{sent:.2000}"
    );
    let system = requests[0].body()["system"].to_string();
    assert!(system.contains("sent in 4 parts"), "{system}");
    assert!(
        system.contains("\\\"part\\\""),
        "the schema asks for the part: {system}"
    );
}
