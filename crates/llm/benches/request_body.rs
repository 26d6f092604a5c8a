//! Criterion benches for building a request body from a long history: 60 messages with 20
//! real screenshots (1280x800), the size the agent's per-turn budget is set for. The
//! screenshots are base64-encoded once, when the history is built; a turn only copies and
//! serialises them. Run: `cargo bench -p retrace-llm`.

use std::hint::black_box;

use base64::Engine;
use criterion::Criterion;
use criterion::criterion_group;
use criterion::criterion_main;
use retrace_llm::MessageRequest;
use retrace_llm::ToolSpec;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::ToolResultBlock;
use retrace_protocol::ToolUseBlock;
use serde_json::json;

/// 1 goal + 59 alternating assistant/tool-result messages; the first 20 results carry a
/// screenshot each.
fn long_history() -> Vec<Message> {
    let path = retrace_test_support::vectors_dir().join("images/screens/qemu_img_1280x800.png");
    let png = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let data = base64::engine::general_purpose::STANDARD.encode(png);
    let mut messages = vec![Message::user_text("Log in and open the invoices page")];
    let mut screenshots = 0;
    while messages.len() < 60 {
        let id = format!("toolu_{}", messages.len());
        let call = ToolUseBlock::new(
            id.clone(),
            "computer",
            json!({"action": "left_click", "coordinate": [640, 400]}),
        )
        .with_visual_representation("ffffff0800ffffff");
        messages.push(Message::assistant(vec![
            ContentBlock::text("Clicking."),
            ContentBlock::ToolUse(call),
        ]));
        let mut blocks = vec![ContentBlock::text("clicked")];
        if screenshots < 20 {
            blocks.push(ContentBlock::png_base64(data.clone()));
            screenshots += 1;
        }
        messages.push(Message::user(vec![ContentBlock::ToolResult(
            ToolResultBlock::new(id, blocks, false),
        )]));
    }
    messages.truncate(60);
    messages
}

fn bench(c: &mut Criterion) {
    let request = MessageRequest::new(long_history(), 1024)
        .with_system("You operate a web page.")
        .with_tools(vec![ToolSpec::computer(1280, 800)]);
    c.bench_function("anthropic_body_60_messages_20_screenshots", |b| {
        b.iter(|| {
            let body = retrace_llm::anthropic::wire::request_body("claude-test", &request);
            black_box(serde_json::to_vec(&body).map(|bytes| bytes.len()))
        })
    });
    let built = retrace_llm::anthropic::wire::request_body("claude-test", &request);
    c.bench_function("anthropic_build_only_no_serialize", |b| {
        b.iter(|| {
            black_box(retrace_llm::anthropic::wire::request_body(
                "claude-test",
                &request,
            ))
        })
    });
    c.bench_function("anthropic_serialize_only", |b| {
        b.iter(|| black_box(serde_json::to_vec(&built).map(|bytes| bytes.len())))
    });
    c.bench_function("openai_body_60_messages_20_screenshots", |b| {
        b.iter(|| {
            let body = retrace_llm::openai::wire::request_body("qwen", &request, true);
            black_box(serde_json::to_vec(&body).map(|bytes| bytes.len()))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
