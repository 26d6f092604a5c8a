use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::Mutex;

use async_trait::async_trait;
use pretty_assertions::assert_eq;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::ToolUseBlock;
use serde_json::Value;
use serde_json::json;

use super::*;
use crate::speaker::SpeakerContext;
use crate::speaker::SpeakerTurn;
use retrace_drive::tool::Tool;
use retrace_drive::tool::ToolError;
use retrace_drive::tool::ToolOutput;
use retrace_protocol::events::MemorySink;

/// A speaker that plays back a fixed list of turns and remembers its activations.
struct Scripted {
    name: &'static str,
    turns: VecDeque<SpeakerTurn>,
    activations: Arc<Mutex<Vec<Value>>>,
}

impl Scripted {
    fn new(name: &'static str, turns: Vec<SpeakerTurn>) -> Self {
        Self {
            name,
            turns: turns.into(),
            activations: Arc::default(),
        }
    }
}

#[async_trait]
impl Speaker for Scripted {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "plays a script"
    }
    async fn on_activate(
        &mut self,
        context: &SpeakerContext,
        _turn: &TurnContext<'_>,
    ) -> Result<(), AgentError> {
        let json = context.get::<Value>().cloned().unwrap_or(Value::Null);
        self.activations.lock().unwrap().push(json);
        Ok(())
    }
    async fn handle_step(&mut self, turn: &TurnContext<'_>) -> Result<SpeakerTurn, AgentError> {
        self.turns.pop_front().ok_or_else(|| AgentError::Speaker {
            speaker: self.name.into(),
            turn: turn.turn,
            message: "script exhausted".into(),
        })
    }
}

/// Echoes its input's `text`, fails fatally on `{"fatal": true}`.
struct Echo;

#[async_trait]
impl Tool for Echo {
    fn name(&self) -> &str {
        "echo"
    }
    fn description(&self) -> &str {
        "echoes"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn cacheable(&self) -> bool {
        true
    }
    async fn call(&self, input: Value) -> Result<ToolOutput, ToolError> {
        if input.get("fatal").is_some() {
            return Err(ToolError::Fatal(retrace_drive::DriveError::BackendGone {
                backend: "x11".into(),
                doing: "taking a screenshot".into(),
                detail: "display went away".into(),
            }));
        }
        Ok(ToolOutput::text(input["text"].as_str().unwrap_or_default()))
    }
}

fn calls(calls: &[(&str, &str, Value)]) -> Message {
    Message::assistant(
        calls
            .iter()
            .map(|(id, name, input)| {
                ContentBlock::ToolUse(ToolUseBlock::new(*id, *name, input.clone()))
            })
            .collect(),
    )
}

fn turn(message: Message, result: SpeakerResult) -> SpeakerTurn {
    SpeakerTurn {
        messages: vec![message],
        usage: Some(Usage {
            input_tokens: 10,
            output_tokens: 1,
            ..Usage::default()
        }),
        step: None,
        result,
    }
}

fn toolbox() -> Toolbox {
    Toolbox::new().with(Arc::new(Echo))
}

#[tokio::test]
async fn runs_tool_calls_in_order_into_one_result_message() {
    let speaker = Scripted::new(
        "agent",
        vec![
            turn(
                calls(&[
                    ("a", "echo", json!({"text": "one"})),
                    ("b", "echo", json!({"text": "two"})),
                ]),
                SpeakerResult::Continue,
            ),
            turn(
                Message::assistant(vec![ContentBlock::text("done")]),
                SpeakerResult::Done,
            ),
        ],
    );
    let sink = MemorySink::new();
    let mut conversation = Conversation::new(
        vec![Box::new(speaker)],
        toolbox(),
        Events::none().with(sink.clone()),
    )
    .unwrap();
    let report = conversation
        .run("goal", vec![Message::user_text("goal")], None)
        .await
        .unwrap();
    assert_eq!(report.status, RunStatus::Done);
    assert_eq!(report.turns, 2);
    assert_eq!(report.usage.input_tokens, 20);
    assert_eq!(report.history.len(), 4);
    let results: Vec<_> = report.history[2]
        .tool_results()
        .map(|r| (r.tool_use_id.clone(), r.text()))
        .collect();
    assert_eq!(
        results,
        vec![
            ("a".to_owned(), "one".to_owned()),
            ("b".to_owned(), "two".to_owned())
        ]
    );
    let tool_steps: Vec<Option<usize>> = sink
        .events()
        .iter()
        .filter_map(|e| match e {
            Event::ToolCalled { step, .. } => Some(*step),
            _ => None,
        })
        .collect();
    // Each call is numbered by its place in the recording this run would become.
    assert_eq!(tool_steps, [Some(1), Some(2)]);
    assert!(
        matches!(sink.events().last(), Some(Event::RunFinished { outcome, .. }) if outcome == "done")
    );
}

#[tokio::test]
async fn unknown_tool_is_an_error_the_model_reads() {
    let speaker = Scripted::new(
        "agent",
        vec![
            turn(
                calls(&[("a", "teleport", json!({}))]),
                SpeakerResult::Continue,
            ),
            turn(
                Message::assistant(vec![ContentBlock::text("ok")]),
                SpeakerResult::Done,
            ),
        ],
    );
    let mut conversation =
        Conversation::new(vec![Box::new(speaker)], toolbox(), Events::none()).unwrap();
    let report = conversation
        .run("goal", vec![Message::user_text("goal")], None)
        .await
        .unwrap();
    let result = report.history[2].tool_results().next().unwrap();
    assert!(result.is_error());
    assert_eq!(
        result.text(),
        "unknown tool `teleport`; the tools are: echo"
    );
}

#[tokio::test]
async fn fatal_tool_error_ends_the_run_with_the_turn_and_tool() {
    let speaker = Scripted::new(
        "agent",
        vec![turn(
            calls(&[("a", "echo", json!({"fatal": true}))]),
            SpeakerResult::Continue,
        )],
    );
    let mut conversation =
        Conversation::new(vec![Box::new(speaker)], toolbox(), Events::none()).unwrap();
    let error = conversation
        .run("goal", vec![Message::user_text("goal")], None)
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool `echo` failed fatally at turn 1: the x11 backend died while taking a screenshot: display went away"
    );
}

#[tokio::test]
async fn stops_at_max_steps_and_says_so() {
    let turns = (0..5)
        .map(|i| {
            turn(
                calls(&[(&*format!("t{i}"), "echo", json!({"text": "x"}))]),
                SpeakerResult::Continue,
            )
        })
        .collect();
    let speaker = Scripted::new("agent", turns);
    let mut conversation = Conversation::new(vec![Box::new(speaker)], toolbox(), Events::none())
        .unwrap()
        .with_max_steps(3);
    let report = conversation
        .run("goal", vec![Message::user_text("goal")], None)
        .await
        .unwrap();
    assert_eq!(report.status, RunStatus::MaxSteps(3));
    assert_eq!(
        report.status.reason().unwrap(),
        "stopped after 3 steps without finishing"
    );
    assert_eq!(report.turns, 3);
}

#[tokio::test]
async fn switch_speaker_tool_hands_over_with_context() {
    let agent = Scripted::new(
        "agent",
        vec![turn(
            calls(&[(
                "s",
                "switch_speaker",
                json!({"speaker": "replayer", "context": {"file": "login.json"}}),
            )]),
            SpeakerResult::Continue,
        )],
    );
    let replayer = Scripted::new(
        "replayer",
        vec![turn(
            Message::assistant(vec![ContentBlock::text("replayed")]),
            SpeakerResult::Done,
        )],
    );
    let activations = replayer.activations.clone();
    let sink = MemorySink::new();
    let mut conversation = Conversation::new(
        vec![Box::new(agent), Box::new(replayer)],
        toolbox(),
        Events::none().with(sink.clone()),
    )
    .unwrap();
    let report = conversation
        .run("goal", vec![Message::user_text("goal")], None)
        .await
        .unwrap();
    assert_eq!(report.status, RunStatus::Done);
    assert_eq!(
        report.speakers_used,
        vec!["agent".to_owned(), "replayer".to_owned()]
    );
    assert_eq!(
        *activations.lock().unwrap(),
        vec![json!({"file": "login.json"})]
    );
    assert!(sink.events().iter().any(|e| matches!(e, Event::SpeakerSwitched { from, to, .. } if from == "agent" && to == "replayer")));
    // A control tool has no place in the trajectory's numbering.
    assert!(sink.events().iter().any(
        |e| matches!(e, Event::ToolCalled { tool, step: None, .. } if tool == "switch_speaker")
    ));
}

#[tokio::test]
async fn switch_to_unknown_speaker_is_an_error_for_the_model() {
    let agent = Scripted::new(
        "agent",
        vec![
            turn(
                calls(&[("s", "switch_speaker", json!({"speaker": "nobody"}))]),
                SpeakerResult::Continue,
            ),
            turn(
                Message::assistant(vec![ContentBlock::text("ok")]),
                SpeakerResult::Done,
            ),
        ],
    );
    let other = Scripted::new("replayer", vec![]);
    let mut conversation = Conversation::new(
        vec![Box::new(agent), Box::new(other)],
        toolbox(),
        Events::none(),
    )
    .unwrap();
    let report = conversation
        .run("goal", vec![Message::user_text("goal")], None)
        .await
        .unwrap();
    let result = report.history[2].tool_results().next().unwrap();
    assert!(result.is_error());
    assert_eq!(
        result.text(),
        "no speaker named `nobody`; speakers: agent, replayer"
    );
}

#[tokio::test]
async fn max_tokens_and_refusal_are_typed_outcomes() {
    for (cause, expected) in [
        (StopCause::MaxTokens, RunStatus::MaxTokens),
        (
            StopCause::Refusal("no".into()),
            RunStatus::Refusal("no".into()),
        ),
    ] {
        let speaker = Scripted::new(
            "agent",
            vec![turn(
                Message::assistant(vec![ContentBlock::text("...")]),
                SpeakerResult::Failed(cause),
            )],
        );
        let mut conversation =
            Conversation::new(vec![Box::new(speaker)], toolbox(), Events::none()).unwrap();
        let report = conversation
            .run("goal", vec![Message::user_text("goal")], None)
            .await
            .unwrap();
        assert_eq!(report.status, expected);
    }
}

/// Several actions in one turn run in order and stop at the first that fails: its result says
/// why, each later one is answered "not executed" as an error and never runs.
#[tokio::test]
async fn a_failed_action_stops_the_rest_of_its_turn() {
    let speaker = Scripted::new(
        "agent",
        vec![
            turn(
                calls(&[
                    ("a", "echo", json!({"text": "one"})),
                    ("b", "teleport", json!({})),
                    ("c", "echo", json!({"text": "three"})),
                ]),
                SpeakerResult::Continue,
            ),
            turn(
                Message::assistant(vec![ContentBlock::text("done")]),
                SpeakerResult::Done,
            ),
        ],
    );
    let sink = MemorySink::new();
    let mut conversation = Conversation::new(
        vec![Box::new(speaker)],
        toolbox(),
        Events::none().with(sink.clone()),
    )
    .unwrap();
    let report = conversation
        .run("goal", vec![Message::user_text("goal")], None)
        .await
        .unwrap();
    let results: Vec<_> = report.history[2]
        .tool_results()
        .map(|r| (r.tool_use_id.clone(), r.is_error(), r.text()))
        .collect();
    assert_eq!(results.len(), 3);
    assert_eq!(results[0], ("a".to_owned(), false, "one".to_owned()));
    assert!(results[1].1 && results[1].2.contains("unknown tool `teleport`"));
    assert_eq!(results[2], ("c".to_owned(), true, NOT_EXECUTED.to_owned()));
    let ran: Vec<String> = sink
        .events()
        .iter()
        .filter_map(|e| match e {
            Event::ToolCalled { tool, .. } => Some(tool.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(ran, ["echo", "teleport"]);
}
