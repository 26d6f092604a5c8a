//! Screenshots over many turns, through the real clients and the fake model servers: each
//! screenshot is base64-encoded once, when its tool call returns, and serialised to JSON once,
//! when it is first sent; every later turn sends the same text again without re-encoding it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::Mutex;

use async_trait::async_trait;
use pretty_assertions::assert_eq;
use retrace_agent::AgentSettings;
use retrace_agent::AgentSpeaker;
use retrace_agent::Conversation;
use retrace_agent::RunReport;
use retrace_agent::RunStatus;
use retrace_agent::context::ContextPolicy;
use retrace_drive::backend::Screenshot;
use retrace_drive::tool::Tool;
use retrace_drive::tool::ToolError;
use retrace_drive::tool::ToolOutput;
use retrace_drive::tool::ToolSpec;
use retrace_drive::tool::Toolbox;
use retrace_llm::ApiKey;
use retrace_llm::VlmProvider;
use retrace_llm::anthropic::AnthropicClient;
use retrace_llm::anthropic::AnthropicConfig;
use retrace_llm::openai::OpenAiClient;
use retrace_llm::openai::OpenAiConfig;
use retrace_protocol::ImageSource;
use retrace_protocol::Message;
use retrace_protocol::events::Events;
use retrace_test_support::fake_model::FakeAnthropic;
use retrace_test_support::fake_model::FakeOpenAi;
use retrace_test_support::fake_model::RecordedRequest;
use retrace_test_support::fake_model::ScriptStep;
use serde_json::Value;
use serde_json::json;

/// A computer tool whose every call returns a new screenshot (a real PNG with the call
/// number appended), encoded the way the drive tools are; it keeps each encoded text.
#[derive(Clone, Default)]
struct Screenshots {
    encoded: Arc<Mutex<Vec<Arc<str>>>>,
}

#[async_trait]
impl Tool for Screenshots {
    fn name(&self) -> &str {
        "computer"
    }
    fn description(&self) -> &str {
        "takes screenshots"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn spec(&self) -> ToolSpec {
        ToolSpec::computer(1280, 800)
    }
    fn cacheable(&self) -> bool {
        true
    }
    async fn call(&self, _input: Value) -> Result<ToolOutput, ToolError> {
        let mut encoded = self.encoded.lock().unwrap();
        let mut png = std::fs::read(
            retrace_test_support::vectors_dir().join("images/screens/qemu_img_1280x800.png"),
        )
        .unwrap();
        png.push(u8::try_from(encoded.len()).unwrap());
        let output = ToolOutput {
            text: Some("taken".into()),
            screenshot: Some(Screenshot {
                png,
                width: 1280,
                height: 800,
            }),
            switch_to: None,
        };
        encoded.extend(base64_of(&output.content_blocks()));
        Ok(output)
    }
}

fn base64_of<'a>(
    blocks: impl IntoIterator<Item = &'a retrace_protocol::ContentBlock>,
) -> Vec<Arc<str>> {
    blocks
        .into_iter()
        .filter_map(|block| match block {
            retrace_protocol::ContentBlock::Image {
                source: ImageSource::Base64 { data, .. },
                ..
            } => Some(Arc::clone(data)),
            _ => None,
        })
        .collect()
}

/// The screenshots in a recorded history, in order.
fn history_images(history: &[Message]) -> Vec<Arc<str>> {
    history
        .iter()
        .flat_map(Message::tool_results)
        .flat_map(|result| match &result.content {
            retrace_protocol::ToolResultContent::Blocks(blocks) => base64_of(blocks),
            retrace_protocol::ToolResultContent::Text(_) => Vec::new(),
        })
        .collect()
}

fn script(screenshots: usize) -> Vec<ScriptStep> {
    let mut script: Vec<ScriptStep> = (0..screenshots)
        .map(|_| ScriptStep::tool_use("computer", json!({"action": "screenshot"})))
        .collect();
    script.push(ScriptStep::text("All done."));
    script
}

async fn run(provider: Arc<dyn VlmProvider>, tool: &Screenshots, max_images: usize) -> RunReport {
    let settings = AgentSettings {
        context: ContextPolicy {
            max_images,
            max_messages: None,
            image_batch: 1,
        },
        ..AgentSettings::default()
    };
    let toolbox = Toolbox::new().with(Arc::new(tool.clone()));
    let mut conversation = Conversation::new(
        vec![Box::new(AgentSpeaker::new(provider, settings))],
        toolbox,
        Events::none(),
    )
    .unwrap();
    let goal = "Take screenshots";
    conversation
        .run(goal, vec![Message::user_text(goal)], None)
        .await
        .unwrap()
}

/// Checks what the fake received: request `r` (0-based) carries the newest
/// `min(r, max_images)` screenshots, each exactly the text the tool encoded.
fn check_requests(requests: &[RecordedRequest], encoded: &[Arc<str>], max_images: usize) {
    for (index, request) in requests.iter().enumerate() {
        let taken = &encoded[..index];
        let expected: Vec<String> = taken[taken.len().saturating_sub(max_images)..]
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(request.images(), expected, "images of request {index}");
    }
}

/// Messages serialised over a run of `shots` screenshots and a final answer: the goal once,
/// each call and result once, and each result once more when its image turns into a note.
fn expected_serialisations(shots: usize, max_images: usize) -> u64 {
    let distinct = 1 + 2 * shots;
    let turned_to_notes = shots.saturating_sub(max_images);
    u64::try_from(distinct + turned_to_notes).unwrap()
}

async fn anthropic_run(shots: usize, max_images: usize) {
    let fake = FakeAnthropic::start(script(shots)).await;
    let client = Arc::new(
        AnthropicClient::new(
            AnthropicConfig::new(ApiKey::new("test-key"), "claude-test")
                .with_base_url(fake.base_url()),
        )
        .unwrap(),
    );
    let tool = Screenshots::default();
    let report = run(
        Arc::clone(&client) as Arc<dyn VlmProvider>,
        &tool,
        max_images,
    )
    .await;
    assert_eq!(report.status, RunStatus::Done);
    let encoded = tool.encoded.lock().unwrap().clone();
    assert_eq!(encoded.len(), shots);
    check_requests(&fake.requests(), &encoded, max_images);
    assert_same_text(&report.history, &encoded);
    assert_eq!(
        client.messages_serialised(),
        expected_serialisations(shots, max_images)
    );
}

async fn openai_run(shots: usize, max_images: usize) {
    let fake = FakeOpenAi::start(script(shots)).await;
    let client =
        Arc::new(OpenAiClient::new(OpenAiConfig::new(fake.base_url(), "qwen2.5-vl")).unwrap());
    let tool = Screenshots::default();
    let report = run(
        Arc::clone(&client) as Arc<dyn VlmProvider>,
        &tool,
        max_images,
    )
    .await;
    assert_eq!(report.status, RunStatus::Done);
    let encoded = tool.encoded.lock().unwrap().clone();
    assert_eq!(encoded.len(), shots);
    check_requests(&fake.requests(), &encoded, max_images);
    assert_same_text(&report.history, &encoded);
    assert_eq!(
        client.messages_serialised(),
        expected_serialisations(shots, max_images)
    );
}

/// The recorded history holds the text of each screenshot the tool took, in order: no
/// turn changed or re-encoded a screenshot.
fn assert_same_text(history: &[Message], encoded: &[Arc<str>]) {
    let recorded = history_images(history);
    assert_eq!(recorded.len(), encoded.len());
    for (index, (recorded, encoded)) in recorded.iter().zip(encoded).enumerate() {
        assert!(recorded == encoded, "screenshot {index} changed");
    }
}

#[tokio::test]
async fn anthropic_sends_every_screenshot_each_turn_serialising_it_once() {
    anthropic_run(5, 20).await;
}

#[tokio::test]
async fn anthropic_with_older_screenshots_as_notes_serialises_each_change_once() {
    anthropic_run(6, 3).await;
}

#[tokio::test]
async fn openai_sends_every_screenshot_each_turn_serialising_it_once() {
    openai_run(5, 20).await;
}

#[tokio::test]
async fn openai_with_older_screenshots_as_notes_serialises_each_change_once() {
    openai_run(6, 3).await;
}
