//! Prompt caching through `retrace act`, with the production prompt and tools: the demo flow
//! (sign in, then a draft invoice through the "New invoice" modal: the model plays the
//! bundled recording's actions) against a scripted server that computes cache reads and
//! writes from the request's breakpoints as the documentation describes (minimum cacheable
//! length, four breakpoints at most, the 20-block lookback) and bills the documented tool
//! overheads (the tool-use system prompt, the computer tool's definition and system prompt).
//! Every request from the third on reads the cached prefix, the request before a batch of old
//! screenshots becomes notes writes nothing (the next one could not read it), and the run
//! costs at least half as much as the same run without caching.
//!
//! The bound is structural on a flow of 14 turns: each turn's new screenshot (1,365 tokens
//! at 1280x800) is written to the cache at 1.25x the input price before a later turn reads
//! it, while a turn without caching pays for three screenshots at 1x; the saving comes from
//! the prefix (system prompt, tools and their overheads) read at 0.1x, from the batch of 6 in
//! which old images are dropped (`retrace_agent::context::ContextPolicy`, where the other
//! batches measured are listed), and from not writing the conversation on the turn before a
//! drop. Measured: 2.0001x while every turn wrote (1.997x in a loaded CI run, where a tool
//! result carried about 34 tokens more); 2.02x since the turn before a drop stopped writing.

use retrace_test_support::fake_model::FakeAnthropic;
use retrace_test_support::fake_model::ScriptStep;
use serde_json::Value;

use super::*;

/// The model's turns: each action of the bundled demo recording, then a closing answer.
fn demo_flow_script() -> Vec<ScriptStep> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../runner/assets/demo_flow.json");
    let flow: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut script: Vec<ScriptStep> = flow["trajectory"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| {
            let mut input = step["input"].clone();
            if let Some(text) = input.get_mut("text") {
                let filled = text
                    .as_str()
                    .unwrap()
                    .replace("{{username}}", USERNAME)
                    .replace("{{password}}", PASSWORD);
                *text = Value::String(filled);
            }
            ScriptStep::tool_use("computer", input)
        })
        .collect();
    script.push(ScriptStep::text(
        "The draft invoice for Acme Corp is saved.",
    ));
    script
}

/// Records the demo flow with the default model; checks the app's own state afterwards (the
/// draft invoice saved); returns the act summary and each turn's usage from the event log.
fn record(extra: &[&str]) -> (Value, Vec<Value>) {
    let demo = DemoThread::start(DemoConfig {
        recent_drafts: true,
        ..DemoConfig::default()
    });
    let runtime = runtime();
    let script = demo_flow_script();
    let turns_expected = script.len();
    let fake = runtime.block_on(FakeAnthropic::start_with_prompt_cache(script));
    let dir = tempfile::tempdir().unwrap();
    let events = dir.path().join("events.jsonl");
    let mut args = vec!["--events", events.to_str().unwrap()];
    args.extend_from_slice(extra);
    let output = act_cached(
        "Log in as {{username}} with password {{password}}",
        demo.url(),
        "record",
        &dir.path().join("cache"),
        &args,
        &fake.base_url(),
    );
    let summary = summary_after_exit(&output, 0);
    assert_eq!(summary["act"]["model"], "claude-sonnet-5", "{summary}");
    let dashboard = demo.signed_in_dashboard();
    let saved = dashboard
        .split("id=\"recent-drafts\"")
        .nth(1)
        .is_some_and(|card| card.contains("Acme Corp"));
    assert!(saved, "the draft for Acme Corp is not saved:\n{dashboard}");
    let turns: Vec<Value> = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|event| event["type"] == "usage")
        .map(|event| event["turn_usage"].clone())
        .collect();
    assert_eq!(turns.len(), turns_expected, "one usage per model turn");
    // Every body, the breakpoints included, is one the official SDK's types accept.
    retrace_test_support::sdk_check::assert_requests_valid(&fake.requests());
    (summary, turns)
}

#[test]
fn cached_prefixes_are_read_from_the_third_turn_and_cut_the_cost() {
    retrace_test_support::require!(Chromium);
    let (cached, turns) = record(&[]);
    for (index, usage) in turns.iter().enumerate().skip(2) {
        assert!(
            usage["cache_read_input_tokens"].as_u64().unwrap() > 0,
            "turn {} read nothing from the cache: {usage}",
            index + 1
        );
    }
    // The ninth request holds eight screenshots, the most the view keeps; the tenth's ninth
    // turns the oldest six into notes, so it starts differently: the ninth writes nothing.
    let before_drop = &turns[8];
    assert_eq!(
        before_drop["cache_creation_input_tokens"], 0,
        "the turn before the drop wrote an entry nothing reads: {before_drop}"
    );
    assert!(
        turns[9]["cache_creation_input_tokens"].as_u64().unwrap() > 0,
        "{}",
        turns[9]
    );
    let (uncached, plain_turns) = record(&["--no-prompt-cache"]);
    for usage in &plain_turns {
        assert_eq!(usage["cache_read_input_tokens"], 0, "{usage}");
        assert_eq!(usage["cache_creation_input_tokens"], 0, "{usage}");
    }
    let with = cached["act"]["cost_usd"].as_f64().unwrap();
    let without = uncached["act"]["cost_usd"].as_f64().unwrap();
    eprintln!(
        "cost with caching {with:.6} USD, without {without:.6} USD: {:.4}x",
        without / with
    );
    assert!(
        with * 2.0 <= without,
        "caching should cut the cost at least 2x: {with} vs {without}\n{}\n{}",
        cached["act"]["usage"],
        uncached["act"]["usage"]
    );
}
