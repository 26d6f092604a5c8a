use std::sync::Arc;

use pretty_assertions::assert_eq;
use retrace_cache::CacheStore;
use retrace_cache::MetadataUpdate;
use retrace_cache::Validators;
use retrace_protocol::tool_names;
use retrace_test_support::askui_examples_dir;
use serde_json::Value;
use serde_json::json;

use super::*;
use crate::ledger::ReplayLedger;
use crate::speaker::CACHE_EXECUTOR;
use retrace_drive::tool::ToolError;

const EXAMPLES: [&str; 5] = [
    "legacy_v0_24_bare_list",
    "ownership_open_chapter",
    "platform_support_long",
    "reference_replays_with_failures",
    "std_search_error_code",
];

/// A temp cache directory holding copies of the askui examples.
fn example_store() -> (tempfile::TempDir, Arc<CacheStore>) {
    let dir = tempfile::tempdir().unwrap();
    for stem in EXAMPLES {
        let name = format!("{stem}.json");
        std::fs::copy(askui_examples_dir().join(&name), dir.path().join(&name)).unwrap();
    }
    let store = Arc::new(CacheStore::new(dir.path()));
    (dir, store)
}

fn tool(store: &Arc<CacheStore>, name: &str) -> Arc<dyn Tool> {
    cache_tools(Arc::clone(store), ReplayLedger::new())
        .into_iter()
        .find(|tool| tool.name() == name)
        .unwrap()
}

/// A call's result as the conversation puts it in the history: text, whether it failed, and
/// the speaker it hands over to.
struct Reply {
    text: String,
    is_error: bool,
    switch_to: Option<retrace_drive::tool::SwitchRequest>,
}

impl Reply {
    fn text_content(&self) -> String {
        self.text.clone()
    }
}

async fn call(store: &Arc<CacheStore>, name: &str, input: Value) -> Reply {
    match tool(store, name).call(input).await {
        Ok(output) => Reply {
            text: output.text.unwrap_or_default(),
            is_error: false,
            switch_to: output.switch_to,
        },
        Err(ToolError::ForModel(text)) => Reply {
            text,
            is_error: true,
            switch_to: None,
        },
        Err(error) => panic!("a cache tool failed fatally: {error}"),
    }
}

#[test]
fn the_tools_have_askui_names_and_are_never_cached() {
    let (_dir, store) = example_store();
    let tools = cache_tools(store, ReplayLedger::new());
    let names: Vec<&str> = tools.iter().map(|tool| tool.name()).collect();
    assert_eq!(
        names,
        [
            tool_names::RETRIEVE_TRAJECTORIES,
            tool_names::INSPECT_CACHE_METADATA,
            tool_names::EXECUTE_CACHED_TRAJECTORY,
            tool_names::VERIFY_CACHE_EXECUTION
        ]
    );
    assert!(tools.iter().all(|tool| !tool.cacheable()));
    assert!(
        tools
            .iter()
            .all(|tool| tool.input_schema()["type"] == "object")
    );
    for name in names {
        assert!(
            CACHE_TOOLS_PROMPT.contains(name),
            "the prompt does not mention {name}"
        );
    }
}

#[tokio::test]
async fn listing_hides_invalid_trajectories_unless_asked() {
    let (_dir, store) = example_store();
    store
        .update(
            "ownership_open_chapter",
            &MetadataUpdate::Invalidate {
                reason: "UI redesigned".into(),
            },
            &Validators::none(),
        )
        .unwrap();
    let reply = call(&store, tool_names::RETRIEVE_TRAJECTORIES, json!({})).await;
    assert!(!reply.is_error);
    let text = reply.text_content();
    assert!(text.starts_with("4 recorded trajectories in "), "{text}");
    assert!(!text.contains("ownership_open_chapter"), "{text}");
    assert!(text.contains("1 invalidated trajectories hidden"), "{text}");
    let reference = text
        .lines()
        .find(|line| line.starts_with("- reference_replays_with_failures.json"))
        .unwrap();
    assert!(
        reference.contains("parameters: term; 12 steps; valid; 5 replays, 2 failures"),
        "{reference}"
    );
    assert!(
        reference.contains("goal \"In the Rust Reference, search for {{term}}"),
        "{reference}"
    );

    let all = call(
        &store,
        tool_names::RETRIEVE_TRAJECTORIES,
        json!({"include_invalid": true}),
    )
    .await
    .text_content();
    let invalid = all
        .lines()
        .find(|line| line.starts_with("- ownership_open_chapter.json"))
        .unwrap();
    assert!(invalid.contains("INVALID (UI redesigned)"), "{invalid}");
    assert!(!all.contains("hidden"), "{all}");

    let wrong = call(
        &store,
        tool_names::RETRIEVE_TRAJECTORIES,
        json!({"include_invalid": "yes"}),
    )
    .await;
    assert!(wrong.is_error);
}

#[tokio::test]
async fn inspect_shows_attempts_and_failures() {
    let (_dir, store) = example_store();
    let reply = call(
        &store,
        tool_names::INSPECT_CACHE_METADATA,
        json!({"trajectory_file": "reference_replays_with_failures"}),
    )
    .await;
    assert!(!reply.is_error, "{}", reply.text_content());
    let report: Value = serde_json::from_str(&reply.text_content()).unwrap();
    assert_eq!(report["metadata"]["execution_attempts"], json!(5));
    assert_eq!(report["metadata"]["failures"].as_array().unwrap().len(), 2);
    assert_eq!(
        report["metadata"]["failures"][1]["failure_count_at_step"],
        json!(2)
    );
    assert_eq!(report["metadata"]["is_valid"], json!(true));
    assert_eq!(
        report["cache_parameters"],
        json!({"term": "Parameter for term"})
    );
    assert_eq!(report["steps"], json!(12));

    let missing = call(
        &store,
        tool_names::INSPECT_CACHE_METADATA,
        json!({"trajectory_file": "nope.json"}),
    )
    .await;
    assert!(missing.is_error);
    assert!(
        missing.text_content().contains("nope.json"),
        "{}",
        missing.text_content()
    );
}

#[tokio::test]
async fn execute_switches_to_the_cache_executor_with_its_context() {
    let (dir, store) = example_store();
    let reply = call(
        &store,
        tool_names::EXECUTE_CACHED_TRAJECTORY,
        json!({"trajectory_file": "reference_replays_with_failures.json", "parameter_values": {"term": "literal"}, "start_from_step_index": 3}),
    )
    .await;
    assert!(!reply.is_error, "{}", reply.text_content());
    let switch = reply.switch_to.unwrap();
    assert_eq!(switch.speaker, CACHE_EXECUTOR);
    let path = dir.path().join("reference_replays_with_failures.json");
    let request = switch.context.get::<crate::ReplayRequest>().unwrap();
    assert_eq!(request.file, path);
    assert_eq!(request.start, 3);
    assert_eq!(
        request.parameters,
        [("term", "literal")].into_iter().collect()
    );
}

#[tokio::test]
async fn execute_names_every_missing_parameter() {
    let (_dir, store) = example_store();
    let reply = call(
        &store,
        tool_names::EXECUTE_CACHED_TRAJECTORY,
        json!({"trajectory_file": "std_search_error_code"}),
    )
    .await;
    assert!(reply.is_error);
    assert!(reply.switch_to.is_none());
    assert_eq!(
        reply.text_content(),
        "trajectory std_search_error_code needs values for these parameters: error_code; pass them in parameter_values"
    );
    let unknown = call(
        &store,
        tool_names::EXECUTE_CACHED_TRAJECTORY,
        json!({"trajectory_file": "std_search_error_code", "parameter_values": {"error_code": "E0308", "colour": "red"}}),
    )
    .await;
    assert!(unknown.is_error);
    assert!(
        unknown.text_content().contains("colour"),
        "{}",
        unknown.text_content()
    );
}

#[tokio::test]
async fn execute_refuses_names_outside_the_cache_dir_and_bad_steps() {
    let (_dir, store) = example_store();
    for name in ["../x", "../x.json", "/etc/passwd", "sub/login.json"] {
        let reply = call(
            &store,
            tool_names::EXECUTE_CACHED_TRAJECTORY,
            json!({"trajectory_file": name}),
        )
        .await;
        assert!(reply.is_error, "{name} was accepted");
        assert!(reply.switch_to.is_none());
        assert!(
            reply.text_content().contains("refused"),
            "{name}: {}",
            reply.text_content()
        );
    }
    let out_of_range = call(
        &store,
        tool_names::EXECUTE_CACHED_TRAJECTORY,
        json!({"trajectory_file": "ownership_open_chapter", "start_from_step_index": 3}),
    )
    .await;
    assert!(out_of_range.is_error);
    assert!(
        out_of_range.text_content().contains("from 0 to 2"),
        "{}",
        out_of_range.text_content()
    );
    let missing_file = call(&store, tool_names::EXECUTE_CACHED_TRAJECTORY, json!({})).await;
    assert!(missing_file.is_error);
    assert!(missing_file.text_content().contains("trajectory_file"));
}

#[tokio::test]
async fn execute_refuses_an_invalidated_trajectory() {
    let (_dir, store) = example_store();
    store
        .update(
            "ownership_open_chapter",
            &MetadataUpdate::Invalidate {
                reason: "UI redesigned".into(),
            },
            &Validators::none(),
        )
        .unwrap();
    let reply = call(
        &store,
        tool_names::EXECUTE_CACHED_TRAJECTORY,
        json!({"trajectory_file": "ownership_open_chapter"}),
    )
    .await;
    assert!(reply.is_error);
    assert!(
        reply.text_content().contains("invalidated (UI redesigned)"),
        "{}",
        reply.text_content()
    );
}

#[tokio::test]
async fn verify_writes_the_verdict_to_metadata() {
    let (_dir, store) = example_store();
    let reply = call(
        &store,
        tool_names::VERIFY_CACHE_EXECUTION,
        json!({"trajectory_file": "reference_replays_with_failures", "success": true, "notes": "grammar rule open"}),
    )
    .await;
    assert!(!reply.is_error, "{}", reply.text_content());
    assert_eq!(
        reply.text_content(),
        "Recorded a successful replay of reference_replays_with_failures (attempt 6) with your notes. The trajectory stays valid."
    );
    let file = store.read("reference_replays_with_failures").unwrap();
    assert_eq!(file.metadata.execution_attempts, 6);
    let last = file.metadata.last_executed_at.unwrap();
    assert!(jiff::Timestamp::now().duration_since(last).as_secs() < 60);
    let verdict = &file.metadata.extra[VERIFICATION_FIELD];
    assert_eq!(
        (verdict["success"].clone(), verdict["notes"].clone()),
        (json!(true), json!("grammar rule open"))
    );
}

/// A replay that ran to its end counted its attempt already: the model's verdict on it does
/// not count another; an unsuccessful verdict invalidates the file as askui does (no failure).
#[tokio::test]
async fn a_verdict_on_a_replay_already_counted_counts_no_second_attempt() {
    let (_dir, store) = example_store();
    let name = "reference_replays_with_failures";
    let before = store.read(name).unwrap();
    let ledger = ReplayLedger::new();
    let verify = VerifyCacheExecutionTool::new(Arc::clone(&store)).with_ledger(ledger.clone());

    ledger.completed(&store.resolve(name).unwrap());
    let reply = verify
        .call(json!({"trajectory_file": name, "success": true}))
        .await
        .unwrap();
    assert!(reply.text.is_some());
    let after = store.read(name).unwrap();
    assert_eq!(
        after.metadata.execution_attempts,
        before.metadata.execution_attempts
    );
    assert_eq!(
        after.metadata.failures.len(),
        before.metadata.failures.len()
    );

    ledger.completed(&store.resolve(name).unwrap());
    let reply = verify
        .call(json!({"trajectory_file": name, "success": false, "notes": "no report shown"}))
        .await
        .unwrap();
    assert!(reply.text.is_some());
    let after = store.read(name).unwrap();
    assert_eq!(
        after.metadata.execution_attempts,
        before.metadata.execution_attempts
    );
    assert_eq!(after.metadata.failures, before.metadata.failures);
    assert!(!after.metadata.is_valid);
    assert_eq!(
        after.metadata.invalidation_reason.as_deref(),
        Some("Agent reported unsuccessful cache execution: no report shown")
    );
    store
        .update(
            name,
            &retrace_cache::MetadataUpdate::Revalidate,
            &retrace_cache::Validators::none(),
        )
        .unwrap();

    // With no completed replay noted, the verdict is the attempt.
    verify
        .call(json!({"trajectory_file": name, "success": true}))
        .await
        .unwrap();
    assert_eq!(
        store.read(name).unwrap().metadata.execution_attempts,
        before.metadata.execution_attempts + 1
    );
}

/// askui 0.48's `verify_cache_execution(success=False)`: one more attempt, `last_executed_at`
/// now, `is_valid: false` with "Agent reported unsuccessful cache execution: <notes>", no
/// failure added (the validators do not run).
#[tokio::test]
async fn an_unsuccessful_verdict_invalidates_as_askui_does() {
    let (_dir, store) = example_store();
    let before = store.read("reference_replays_with_failures").unwrap();
    let reply = call(
        &store,
        tool_names::VERIFY_CACHE_EXECUTION,
        json!({"trajectory_file": "reference_replays_with_failures", "success": false, "notes": "the rule is not open"}),
    )
    .await;
    let text = reply.text_content();
    assert_eq!(
        text,
        "Recorded an unsuccessful replay of reference_replays_with_failures (attempt 6) with \
         your notes. This invalidated the trajectory: Agent reported unsuccessful cache \
         execution: the rule is not open."
    );
    let file = store.read("reference_replays_with_failures").unwrap();
    assert!(!file.metadata.is_valid);
    assert_eq!(file.metadata.execution_attempts, 6);
    assert_eq!(file.metadata.failures, before.metadata.failures);
    assert!(file.metadata.last_executed_at > before.metadata.last_executed_at);
    assert!(
        !file
            .metadata
            .extra
            .contains_key(retrace_cache::fields::LAST_PASSED)
    );
    assert_eq!(
        file.metadata.extra[VERIFICATION_FIELD]["success"],
        json!(false)
    );

    let bad = call(
        &store,
        tool_names::VERIFY_CACHE_EXECUTION,
        json!({"trajectory_file": "../x", "success": true}),
    )
    .await;
    assert!(bad.is_error);
    let no_verdict = call(
        &store,
        tool_names::VERIFY_CACHE_EXECUTION,
        json!({"trajectory_file": "ownership_open_chapter"}),
    )
    .await;
    assert!(no_verdict.is_error);
    assert_eq!(
        store
            .read("ownership_open_chapter")
            .unwrap()
            .metadata
            .execution_attempts,
        0
    );
}
