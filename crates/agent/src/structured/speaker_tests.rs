//! The structured speaker inside a real [`Conversation`], with an in-process scripted model,
//! a fixed page and a web tool that records what it is asked to run.

use std::collections::BTreeMap;
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::Mutex;

use async_trait::async_trait;
use pretty_assertions::assert_eq;
use retrace_llm::MessageRequest;
use retrace_llm::MessageResponse;
use retrace_llm::VlmError;
use retrace_llm::VlmProvider;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::StopReason;
use retrace_protocol::Usage;
use retrace_schema::SchemaManager;
use serde_json::Value;
use serde_json::json;

use super::*;
use crate::Conversation;
use crate::RunStatus;
use retrace_drive::tool::Tool;
use retrace_drive::tool::ToolError;
use retrace_drive::tool::ToolOutput;
use retrace_drive::tool::Toolbox;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use retrace_protocol::events::MemorySink;

/// Answers with scripted texts in order and keeps every request.
#[derive(Default)]
struct ScriptedModel {
    answers: Mutex<VecDeque<(String, StopReason)>>,
    requests: Mutex<Vec<MessageRequest>>,
}

impl ScriptedModel {
    fn new(answers: &[&str]) -> Arc<Self> {
        Arc::new(Self {
            answers: Mutex::new(
                answers
                    .iter()
                    .map(|text| ((*text).to_owned(), StopReason::EndTurn))
                    .collect(),
            ),
            requests: Mutex::default(),
        })
    }

    fn requests(&self) -> Vec<MessageRequest> {
        self.requests.lock().unwrap().clone()
    }
}

#[async_trait]
impl VlmProvider for ScriptedModel {
    async fn create_message(&self, request: &MessageRequest) -> Result<MessageResponse, VlmError> {
        self.requests.lock().unwrap().push(request.clone());
        let (text, stop_reason) = self
            .answers
            .lock()
            .unwrap()
            .pop_front()
            .expect("the model was asked more often than scripted");
        Ok(MessageResponse {
            id: "msg_test".into(),
            content: vec![ContentBlock::text(text)],
            stop_reason,
            usage: Usage {
                input_tokens: 10,
                output_tokens: 5,
                ..Usage::default()
            },
            model: "scripted".into(),
        })
    }

    fn model_id(&self) -> &str {
        "scripted"
    }
}

/// A page that never changes, with one saved variable.
struct FixedPage;

#[async_trait]
impl PageObserver for FixedPage {
    async fn observe(&self) -> PageState {
        PageState {
            url: Some("http://127.0.0.1:1/login".into()),
            title: Some("Sign in".into()),
            dom: Some(r##"{"elements":[{"selector":"#username"}]}"##.into()),
            screenshot_png: None,
            variables: BTreeMap::from([("user".to_owned(), "demo".to_owned())]),
            problem: None,
        }
    }
}

/// Stands in for the web executor: records inputs, fails on selector `#missing`.
#[derive(Default)]
struct RecordingWebTool {
    calls: Mutex<Vec<Value>>,
}

#[async_trait]
impl Tool for RecordingWebTool {
    fn name(&self) -> &str {
        retrace_protocol::tool_names::WEB_EXECUTOR
    }
    fn description(&self) -> &str {
        "records web commands"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn cacheable(&self) -> bool {
        true
    }
    async fn call(&self, input: Value) -> Result<ToolOutput, ToolError> {
        self.calls.lock().unwrap().push(input.clone());
        if input.pointer("/parameters/selector") == Some(&json!("#missing")) {
            return Err(ToolError::for_model(
                "CLICK_ELEMENT: no element matches `#missing`",
            ));
        }
        Ok(ToolOutput::text(format!("did {}", input["action"])))
    }
}

fn answer(action: &str, message: &str, command: Option<Value>) -> String {
    let mut object = json!({
        "decision": {"action": action, "message": message},
        "reasoning": {"analysis": "the page", "rationale": "the goal", "expectedOutcome": "progress"},
    });
    if let Some(command) = command {
        object["command"] = command;
    }
    object.to_string()
}

struct Run {
    status: RunStatus,
    history: Vec<Message>,
    calls: Vec<Value>,
    requests: Vec<MessageRequest>,
    events: Vec<Event>,
}

async fn run(answers: &[&str], settings: StructuredSettings) -> Run {
    let model = ScriptedModel::new(answers);
    let tool = Arc::new(RecordingWebTool::default());
    let sink = MemorySink::new();
    let speaker = StructuredSpeaker::new(
        model.clone(),
        Arc::new(FixedPage),
        Arc::new(SchemaManager::new()),
        settings,
    );
    let mut conversation = Conversation::new(
        vec![Box::new(speaker)],
        Toolbox::new().with(tool.clone()),
        Events::none().with(sink.clone()),
    )
    .unwrap();
    let report = conversation
        .run("Log in", vec![Message::user_text("Log in as demo")], None)
        .await
        .unwrap();
    let calls = tool.calls.lock().unwrap().clone();
    Run {
        status: report.status,
        history: report.history,
        calls,
        requests: model.requests(),
        events: sink.events(),
    }
}

fn request_text(request: &MessageRequest) -> String {
    serde_json::to_string(&request.messages).unwrap()
}

#[tokio::test]
async fn commands_run_as_web_executor_calls_and_proceed_without_one_ends_the_run() {
    let first = answer(
        "PROCEED",
        "typing the user",
        Some(
            json!({"action": "INPUT_TEXT", "parameters": {"selector": "#username", "text": "${user}"}, "reasoning": "fill it"}),
        ),
    );
    let second = format!(
        "Here is my answer:\n```json\n{}\n```\nThanks.",
        answer(
            "RETRY",
            "the click missed",
            Some(json!({"action": "CLICK_ELEMENT", "parameters": {"selector": "#missing"}}))
        )
    );
    let third = answer("PROCEED", "signed in", None);
    let run = run(&[&first, &second, &third], StructuredSettings::default()).await;

    assert_eq!(run.status, RunStatus::Done);
    // The model's per-command reasoning stays out of the command; `${user}` is left for the
    // tool to resolve at call time.
    assert_eq!(
        run.calls,
        vec![
            json!({"action": "INPUT_TEXT", "parameters": {"selector": "#username", "text": "${user}"}}),
            json!({"action": "CLICK_ELEMENT", "parameters": {"selector": "#missing"}}),
        ]
    );
    let decisions: Vec<(String, Option<String>, String)> = run
        .events
        .iter()
        .filter_map(|event| match event {
            Event::StructuredDecision {
                decision,
                command,
                message,
                attempt: 1,
                ..
            } => Some((decision.clone(), command.clone(), message.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        decisions,
        vec![
            (
                "PROCEED".into(),
                Some("INPUT_TEXT".into()),
                "typing the user".into()
            ),
            (
                "RETRY".into(),
                Some("CLICK_ELEMENT".into()),
                "the click missed".into()
            ),
            ("PROCEED".into(), None, "signed in".into()),
        ]
    );
    // Each request shows the goal, the page, the saved variables and what ran before,
    // including the failed step's error.
    assert_eq!(run.requests.len(), 3);
    let third_request = request_text(&run.requests[2]);
    for expected in [
        "Goal: Log in as demo",
        "URL: http://127.0.0.1:1/login",
        "Title: Sign in",
        "#username",
        "user = \\\"demo\\\"",
        "FAILED: CLICK_ELEMENT: no element matches `#missing`",
    ] {
        assert!(
            third_request.contains(expected),
            "no {expected:?} in {third_request}"
        );
    }
    // The schema travels in the system prompt by default, not as a response format.
    let system = run.requests[0].system.clone().unwrap();
    assert!(
        system.contains("\"PROCEED\"") && system.contains("OPEN_PAGE"),
        "{system}"
    );
    assert!(run.requests[0].response_schema.is_none());
    // The history holds every answer; the commands as tool_use blocks.
    let tool_uses: usize = run.history.iter().map(|m| m.tool_uses().count()).sum();
    assert_eq!(tool_uses, 2);
}

#[tokio::test]
async fn an_invalid_answer_is_sent_back_with_its_field_errors_and_the_correction_runs() {
    let invalid = answer(
        "PROCEED",
        "typing",
        Some(json!({"action": "INPUT_TEXT", "parameters": {"selector": "#username"}})),
    );
    let unknown_variable = answer(
        "PROCEED",
        "typing",
        Some(
            json!({"action": "INPUT_TEXT", "parameters": {"selector": "#username", "text": "${nobody}"}}),
        ),
    );
    let corrected = answer(
        "PROCEED",
        "typing",
        Some(
            json!({"action": "INPUT_TEXT", "parameters": {"selector": "#username", "text": "demo"}}),
        ),
    );
    let done = answer("PROCEED", "done", None);
    let run = run(
        &[&invalid, &unknown_variable, &corrected, &done],
        StructuredSettings::default(),
    )
    .await;
    assert_eq!(run.status, RunStatus::Done);
    assert_eq!(run.calls.len(), 1);
    assert_eq!(run.calls[0]["parameters"]["text"], "demo");

    // The second request repeats the invalid answer and lists its field-level errors.
    let second = &run.requests[1];
    assert_eq!(second.messages.len(), 3);
    let correction = request_text(second);
    assert!(
        correction.contains("command.parameters.text"),
        "{correction}"
    );
    let third = request_text(&run.requests[2]);
    assert!(third.contains("nobody"), "{third}");

    let rejected: Vec<(u32, Vec<String>)> = run
        .events
        .iter()
        .filter_map(|event| match event {
            Event::StructuredAnswerRejected {
                attempt, errors, ..
            } => Some((*attempt, errors.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(rejected.len(), 2);
    assert_eq!(rejected[0].0, 1);
    assert!(
        rejected[0]
            .1
            .iter()
            .any(|e| e.starts_with("command.parameters.text")),
        "{rejected:?}"
    );
    assert!(
        rejected[1].1.iter().any(|e| e.contains("nobody")),
        "{rejected:?}"
    );
    assert!(run.events.iter().any(|e| matches!(
        e,
        Event::StructuredDecision {
            attempt: 3,
            turn: 1,
            ..
        }
    )));
}

#[tokio::test]
async fn abort_ends_the_run_with_the_models_message() {
    let abort = answer("ABORT", "The login form is gone", None);
    let run = run(&[&abort], StructuredSettings::default()).await;
    assert_eq!(
        run.status,
        RunStatus::Failed("The login form is gone".into())
    );
    assert!(run.calls.is_empty());
}

#[tokio::test]
async fn answers_that_stay_unusable_fail_the_run_after_the_attempt_limit() {
    let settings = StructuredSettings {
        max_attempts: 2,
        ..StructuredSettings::default()
    };
    let run = run(
        &["I would click the button.", "{\"decision\": 1}"],
        settings,
    )
    .await;
    let RunStatus::Failed(reason) = &run.status else {
        panic!("{:?}", run.status);
    };
    assert!(
        reason.starts_with("the model's answer was still unusable after 2 attempts: "),
        "{reason}"
    );
    assert!(reason.contains("decision"), "{reason}");
    assert_eq!(run.requests.len(), 2);
    assert!(run.calls.is_empty());
}

#[tokio::test]
async fn response_format_delivery_sends_the_schema_as_the_structured_output_option() {
    let settings = StructuredSettings {
        delivery: SchemaDelivery::ResponseFormat,
        ..StructuredSettings::default()
    };
    let done = answer("PROCEED", "nothing to do", None);
    let run = run(&[&done], settings).await;
    let request = &run.requests[0];
    let schema = request.response_schema.as_ref().unwrap();
    assert_eq!(schema["properties"]["decision"]["type"], "object");
    let system = request.system.clone().unwrap();
    assert!(!system.contains("JSON Schema"), "{system}");
    assert_eq!(run.status, RunStatus::Done);
}

#[tokio::test]
async fn an_answer_cut_at_max_tokens_ends_the_run_without_a_correction_round() {
    let model = Arc::new(ScriptedModel {
        answers: Mutex::new(VecDeque::from([(
            "{\"decision\": {\"action\": \"PRO".to_owned(),
            StopReason::MaxTokens,
        )])),
        requests: Mutex::default(),
    });
    let speaker = StructuredSpeaker::new(
        model.clone(),
        Arc::new(FixedPage),
        Arc::new(SchemaManager::new()),
        StructuredSettings::default(),
    );
    let mut conversation =
        Conversation::new(vec![Box::new(speaker)], Toolbox::new(), Events::none()).unwrap();
    let report = conversation
        .run("goal", vec![Message::user_text("goal")], None)
        .await
        .unwrap();
    assert_eq!(report.status, RunStatus::MaxTokens);
    assert_eq!(model.requests().len(), 1);
}

#[tokio::test]
async fn an_abort_with_a_blank_message_still_gives_a_reason() {
    let abort = answer("ABORT", "   ", None);
    let run = run(&[&abort], StructuredSettings::default()).await;
    assert_eq!(
        run.status,
        RunStatus::Failed("the model aborted without saying why".into())
    );
}
