//! Per-turn overhead of the agent loop, everything but the model's own latency: building the
//! context view of a 60-message history with 20 screenshots, the request, and the Anthropic
//! request body bytes. Screenshots are base64-encoded once, when they enter the history; a
//! turn only shares them (`Arc<str>`), so the cost does not grow with the image data kept out
//! of the view.

#![allow(clippy::expect_used)] // a benchmark: missing vectors should stop it loudly

use std::hint::black_box;

use criterion::Criterion;
use criterion::criterion_group;
use criterion::criterion_main;
use retrace_agent::context::ContextPolicy;
use retrace_llm::MessageRequest;
use retrace_llm::ToolSpec;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::ToolResultBlock;
use retrace_protocol::ToolUseBlock;
use serde_json::json;

/// A 60-message history: the goal, then 29 tool calls with their results, 20 of which carry
/// a real 1280x800 screenshot (base64 of a PNG from the shared vectors), plus a final
/// assistant message.
fn history() -> Vec<Message> {
    let png = std::fs::read(
        retrace_test_support::vectors_dir().join("images/screens/rust_std_index_1280x800.png"),
    )
    .expect("the shared vectors are beside the checkout");
    let base64 = base64_encode(&png);
    let mut messages = vec![Message::user_text("Log in and open the invoices page")];
    for turn in 0..29 {
        let id = format!("toolu_{turn:03}");
        messages.push(Message::assistant(vec![
            ContentBlock::text("Clicking the next control."),
            ContentBlock::ToolUse(ToolUseBlock::new(
                id.clone(),
                "computer",
                json!({"action": "left_click", "coordinate": [100 + turn, 200]}),
            )),
        ]));
        let mut blocks = vec![ContentBlock::text("done")];
        if turn >= 9 {
            blocks.push(ContentBlock::png_base64(base64.clone()));
        }
        messages.push(Message::user(vec![ContentBlock::ToolResult(
            ToolResultBlock::new(id, blocks, false),
        )]));
    }
    messages.push(Message::assistant(vec![ContentBlock::text(
        "Checking the result.",
    )]));
    assert_eq!(messages.len(), 60);
    assert_eq!(retrace_agent::context::count_images(&messages), 20);
    messages
}

fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn turn(history: &[Message], policy: ContextPolicy) -> Vec<u8> {
    let request = MessageRequest::new(policy.view(history), 4096)
        .with_system(retrace_agent::DEFAULT_SYSTEM_PROMPT)
        .with_tools(vec![ToolSpec::computer(1280, 800)]);
    let body = retrace_llm::anthropic::wire::request_body("claude-sonnet-4-5", &request);
    serde_json::to_vec(&body).expect("a JSON value serialises")
}

fn bench(c: &mut Criterion) {
    let history = history();
    let mut group = c.benchmark_group("agent_turn_overhead");
    group.bench_function(
        "60 messages, 20 screenshots, 3 kept as images (default)",
        |b| b.iter(|| black_box(turn(black_box(&history), ContextPolicy::default()))),
    );
    group.bench_function("60 messages, 20 screenshots, all 20 kept as images", |b| {
        b.iter(|| {
            black_box(turn(
                black_box(&history),
                ContextPolicy {
                    max_images: 20,
                    max_messages: None,
                },
            ))
        })
    });
    group.bench_function("context view only", |b| {
        b.iter(|| black_box(ContextPolicy::default().view(black_box(&history))))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
