//! Per-turn overhead of the agent loop, measured as a real turn against the local fake
//! servers: one `Conversation` step with the [`AgentSpeaker`] — context view, request, body,
//! a real reqwest POST to `FakeAnthropic` / `FakeOpenAi` on 127.0.0.1, the response parsed,
//! the tool call dispatched to a cheap tool, its result appended. The fake answers at once,
//! so everything measured is overhead: nothing is subtracted.
//!
//! The history is the goal and 30 tool turns (61 messages: the 60-message history
//! rounded to whole turns, so that it ends with a tool result as a real turn does), 20 of
//! whose results carry a real 1280x800 screenshot (~220 KB of base64 each). Each iteration
//! starts from that history with its newest turn fresh (a new tool call id and a newly
//! allocated screenshot), as in a real run, where every turn brings one message the loop has
//! not sent before. Screenshots are base64-encoded once, when they enter the history.
//!
//! Cases, for both protocols: the default context policy (3 screenshots sent as images) and
//! all 20 sent. Two reference groups split the figure: `client_side` builds the request body
//! with no HTTP at all, and `transport_floor` POSTs an already-built body of the same size
//! to the same fake server with a bare reqwest client (HTTP on loopback plus the fake's own
//! work: it parses and records every request), which is not the loop's overhead.
//!
//! Run: `cargo bench -p retrace-agent --bench turn_overhead`.

#![allow(clippy::expect_used, clippy::unwrap_used)] // a benchmark: a broken setup stops it loudly

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use criterion::BatchSize;
use criterion::Criterion;
use criterion::criterion_group;
use criterion::criterion_main;
use retrace_agent::AgentSettings;
use retrace_agent::AgentSpeaker;
use retrace_agent::Conversation;
use retrace_agent::RunStatus;
use retrace_agent::context::ContextPolicy;
use retrace_drive::tool::Tool;
use retrace_drive::tool::ToolError;
use retrace_drive::tool::ToolOutput;
use retrace_drive::tool::ToolSpec;
use retrace_drive::tool::Toolbox;
use retrace_llm::ApiKey;
use retrace_llm::MessageRequest;
use retrace_llm::VlmProvider;
use retrace_llm::anthropic::AnthropicClient;
use retrace_llm::anthropic::AnthropicConfig;
use retrace_llm::openai::OpenAiClient;
use retrace_llm::openai::OpenAiConfig;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::ToolResultBlock;
use retrace_protocol::ToolUseBlock;
use retrace_protocol::events::Events;
use retrace_test_support::fake_model::FakeAnthropic;
use retrace_test_support::fake_model::FakeOpenAi;
use retrace_test_support::fake_model::ScriptStep;
use serde_json::Value;
use serde_json::json;

const SCREENSHOTS: usize = 20;
const TOOL_TURNS: usize = 30;

/// The computer tool as the model sees it, doing nothing: the cheapest possible dispatch.
struct NoopComputer;

#[async_trait]
impl Tool for NoopComputer {
    fn name(&self) -> &str {
        "computer"
    }
    fn description(&self) -> &str {
        "does nothing (benchmark)"
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
        Ok(ToolOutput::text("ok"))
    }
}

fn screenshot_base64() -> String {
    use base64::Engine;
    let png = std::fs::read(
        retrace_test_support::vectors_dir().join("images/screens/rust_std_index_1280x800.png"),
    )
    .expect("the shared vectors are beside the checkout");
    base64::engine::general_purpose::STANDARD.encode(png)
}

/// One tool turn: the assistant's call and the user message with its result.
fn tool_turn(id: &str, x: usize, screenshot: Option<Arc<str>>) -> [Message; 2] {
    let call = Message::assistant(vec![
        ContentBlock::text("Clicking the next control."),
        ContentBlock::ToolUse(ToolUseBlock::new(
            id,
            "computer",
            json!({"action": "left_click", "coordinate": [100 + x, 200]}),
        )),
    ]);
    let mut blocks = vec![ContentBlock::text("done")];
    if let Some(data) = screenshot {
        blocks.push(ContentBlock::png_base64(data));
    }
    let result = Message::user(vec![ContentBlock::ToolResult(ToolResultBlock::new(
        id, blocks, false,
    ))]);
    [call, result]
}

/// The goal and the first 29 tool turns (the newest turn is added fresh per iteration).
fn older_history(screenshot: &Arc<str>) -> Vec<Message> {
    let mut messages = vec![Message::user_text("Log in and open the invoices page")];
    for turn in 0..TOOL_TURNS - 1 {
        let with_image = turn >= TOOL_TURNS - SCREENSHOTS;
        messages.extend(tool_turn(
            &format!("toolu_{turn:03}"),
            turn,
            with_image.then(|| Arc::clone(screenshot)),
        ));
    }
    messages
}

/// The history a turn starts from: the older turns shared, the newest one fresh.
fn history(older: &[Message], screenshot: &str, iteration: usize) -> Vec<Message> {
    let mut messages = older.to_vec();
    messages.extend(tool_turn(
        &format!("toolu_new_{iteration}"),
        iteration,
        Some(Arc::from(screenshot)),
    ));
    debug_assert_eq!(messages.len(), 1 + 2 * TOOL_TURNS);
    messages
}

fn settings(policy: ContextPolicy) -> AgentSettings {
    AgentSettings {
        context: policy,
        ..AgentSettings::default()
    }
}

fn all_images() -> ContextPolicy {
    ContextPolicy {
        max_images: SCREENSHOTS,
        max_messages: None,
        image_batch: 1,
    }
}

fn next_step() -> ScriptStep {
    ScriptStep::tool_use(
        "computer",
        json!({"action": "left_click", "coordinate": [10, 20]}),
    )
}

/// A conversation of one model speaker over `provider` that stops after one step.
fn conversation(provider: Arc<dyn VlmProvider>, policy: ContextPolicy) -> Conversation {
    let speaker = AgentSpeaker::new(provider, settings(policy));
    let toolbox = Toolbox::new().with(Arc::new(NoopComputer));
    Conversation::new(vec![Box::new(speaker)], toolbox, Events::none())
        .expect("one speaker")
        .with_max_steps(1)
}

/// The fake behind a provider: push a script step, forget recorded requests.
trait Fake {
    fn push(&self, step: ScriptStep);
    fn clear(&self);
    fn last_image_count(&self) -> usize;
}

impl Fake for FakeAnthropic {
    fn push(&self, step: ScriptStep) {
        FakeAnthropic::push(self, step);
    }
    fn clear(&self) {
        self.clear_requests();
    }
    fn last_image_count(&self) -> usize {
        self.requests().last().map_or(0, |r| r.images().len())
    }
}

impl Fake for FakeOpenAi {
    fn push(&self, step: ScriptStep) {
        FakeOpenAi::push(self, step);
    }
    fn clear(&self) {
        self.clear_requests();
    }
    fn last_image_count(&self) -> usize {
        self.requests().last().map_or(0, |r| r.images().len())
    }
}

struct Setup {
    runtime: tokio::runtime::Runtime,
    anthropic: FakeAnthropic,
    openai: FakeOpenAi,
    screenshot: String,
    older: Vec<Message>,
}

fn setup() -> Setup {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let (anthropic, openai) = runtime.block_on(async {
        (
            FakeAnthropic::start(Vec::new()).await,
            FakeOpenAi::start(Vec::new()).await,
        )
    });
    let screenshot = screenshot_base64();
    let older = older_history(&Arc::from(screenshot.as_str()));
    Setup {
        runtime,
        anthropic,
        openai,
        screenshot,
        older,
    }
}

fn anthropic_provider(fake: &FakeAnthropic) -> Arc<dyn VlmProvider> {
    let config = AnthropicConfig::new(ApiKey::new("bench-key"), "claude-sonnet-4-5")
        .with_base_url(fake.base_url());
    Arc::new(AnthropicClient::new(config).expect("a client"))
}

fn openai_provider(fake: &FakeOpenAi) -> Arc<dyn VlmProvider> {
    Arc::new(OpenAiClient::new(OpenAiConfig::new(fake.base_url(), "qwen2.5-vl")).expect("a client"))
}

/// Runs one turn and checks it did what is measured: one model call, the tool dispatched,
/// `images` screenshots sent.
fn check_one_turn(setup: &Setup, conversation: &mut Conversation, fake: &dyn Fake, images: usize) {
    fake.clear();
    fake.push(next_step());
    let report = setup
        .runtime
        .block_on(conversation.run("goal", history(&setup.older, &setup.screenshot, 0), None))
        .expect("one turn runs");
    assert_eq!(report.status, RunStatus::MaxSteps(1));
    assert_eq!(
        report.history.len(),
        1 + 2 * TOOL_TURNS + 2,
        "call and result appended"
    );
    assert_eq!(fake.last_image_count(), images, "images sent");
    fake.clear();
}

fn bench_turns(c: &mut Criterion, setup: &Setup) {
    let mut group = c.benchmark_group("agent_turn");
    group.measurement_time(Duration::from_secs(8));
    let cases: [(&str, Arc<dyn VlmProvider>, &dyn Fake); 2] = [
        (
            "anthropic",
            anthropic_provider(&setup.anthropic),
            &setup.anthropic,
        ),
        ("openai", openai_provider(&setup.openai), &setup.openai),
    ];
    for (protocol, provider, fake) in cases {
        for (label, policy, images) in [
            (
                "default policy (3 images sent)",
                ContextPolicy::default(),
                3,
            ),
            ("all 20 images sent", all_images(), SCREENSHOTS),
        ] {
            let mut conversation = conversation(Arc::clone(&provider), policy);
            check_one_turn(setup, &mut conversation, fake, images);
            let mut iteration = 0;
            group.bench_function(format!("{protocol}: {label}"), |b| {
                b.iter_batched(
                    || {
                        iteration += 1;
                        fake.clear();
                        fake.push(next_step());
                        history(&setup.older, &setup.screenshot, iteration)
                    },
                    |history| {
                        setup
                            .runtime
                            .block_on(conversation.run("goal", history, None))
                            .expect("one turn runs")
                    },
                    BatchSize::PerIteration,
                )
            });
        }
    }
    group.finish();
}

/// Reference: the request body built with no HTTP (what the old bench measured).
fn bench_client_side(c: &mut Criterion, setup: &Setup) {
    let mut group = c.benchmark_group("client_side");
    let history = history(&setup.older, &setup.screenshot, 0);
    for (label, policy) in [
        ("default policy", ContextPolicy::default()),
        ("all 20 images", all_images()),
    ] {
        group.bench_function(format!("context view + anthropic body: {label}"), |b| {
            b.iter(|| {
                let request = MessageRequest::new(policy.view(black_box(&history)), 4096)
                    .with_system(retrace_agent::DEFAULT_SYSTEM_PROMPT);
                let body = retrace_llm::anthropic::wire::request_body("claude", &request);
                black_box(serde_json::to_vec(&body).expect("serialises").len())
            })
        });
    }
    group.finish();
}

/// Reference: HTTP on loopback and the fake server's own work, for a body of the same size
/// as the all-20 turn, posted ready-made with a bare reqwest client.
fn bench_transport_floor(c: &mut Criterion, setup: &Setup) {
    let history = history(&setup.older, &setup.screenshot, 0);
    let request = MessageRequest::new(all_images().view(&history), 4096)
        .with_system(retrace_agent::DEFAULT_SYSTEM_PROMPT);
    let body = bytes_of(&retrace_llm::anthropic::wire::request_body(
        "claude", &request,
    ));
    let client = reqwest::Client::new();
    let url = format!("{}/v1/messages", setup.anthropic.base_url());
    let mut group = c.benchmark_group("transport_floor");
    group.measurement_time(Duration::from_secs(8));
    group.bench_function(
        format!("POST {} KB to the fake anthropic", body.len() / 1024),
        |b| {
            b.iter_batched(
                || {
                    setup.anthropic.clear_requests();
                    setup.anthropic.push(next_step());
                },
                |()| {
                    setup.runtime.block_on(async {
                        let response = client
                            .post(&url)
                            .header("content-type", "application/json")
                            .body(body.clone())
                            .send()
                            .await
                            .expect("sent");
                        response.bytes().await.expect("read").len()
                    })
                },
                BatchSize::PerIteration,
            )
        },
    );
    group.finish();
}

fn bytes_of(value: &Value) -> bytes::Bytes {
    bytes::Bytes::from(serde_json::to_vec(value).expect("serialises"))
}

fn bench(c: &mut Criterion) {
    let setup = setup();
    bench_turns(c, &setup);
    bench_client_side(c, &setup);
    bench_transport_floor(c, &setup);
}

criterion_group!(benches, bench);
criterion_main!(benches);
