//! The conversation loop: speakers take turns on one shared history.
//!
//! Each step: pick the active speaker (or the default one when it cannot handle the turn),
//! let it speak, append its messages, run the tool calls of the last assistant message in
//! order and append one user message with their results, then act on the speaker's result
//! (go on, switch speaker, finish). The loop stops at done, failed or `max_steps`, and the
//! [`RunReport`] says which.

use std::sync::Arc;
use std::time::Instant;

use retrace_drive::tool::SwitchRequest;
use retrace_drive::tool::ToolError;
use retrace_drive::tool::Toolbox;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::Role;
use retrace_protocol::ToolResultBlock;
use retrace_protocol::Usage;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use retrace_protocol::tool_input::NOT_EXECUTED;
use retrace_protocol::tool_names::is_control_tool;
use serde_json::Value;

use crate::error::AgentError;
use crate::speaker::Speaker;
use crate::speaker::SpeakerContext;
use crate::speaker::SpeakerResult;
use crate::speaker::SpeakerTurn;
use crate::speaker::StopCause;
use crate::speaker::TurnContext;
use crate::switch_tool::SwitchSpeakerTool;

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum RunStatus {
    /// The goal was reached.
    Done,
    /// A speaker gave up.
    Failed(String),
    /// `max_steps` turns passed without an end.
    MaxSteps(usize),
    /// The model's answer was cut at its token limit.
    MaxTokens,
    /// The model declined.
    Refusal(String),
    /// The conversation filled the model's context window.
    ContextWindowExceeded,
}

impl RunStatus {
    /// A short label: `done`, `failed`, `max_steps`, `max_tokens`, `refusal`,
    /// `context_window_exceeded`.
    pub fn label(&self) -> &'static str {
        match self {
            RunStatus::Done => "done",
            RunStatus::Failed(_) => "failed",
            RunStatus::MaxSteps(_) => "max_steps",
            RunStatus::MaxTokens => "max_tokens",
            RunStatus::Refusal(_) => "refusal",
            RunStatus::ContextWindowExceeded => "context_window_exceeded",
        }
    }

    /// The reason for anything but `done`.
    pub fn reason(&self) -> Option<String> {
        match self {
            RunStatus::Done => None,
            RunStatus::Failed(reason) => Some(reason.clone()),
            RunStatus::Refusal(text) if text.trim().is_empty() => {
                Some("the model refused to go on (stop reason `refusal`)".into())
            }
            RunStatus::Refusal(text) => Some(format!(
                "the model refused to go on (stop reason `refusal`): {}",
                text.trim()
            )),
            RunStatus::MaxSteps(limit) => {
                Some(format!("stopped after {limit} steps without finishing"))
            }
            RunStatus::MaxTokens => Some(
                "the model's answer was cut off at its output limit (stop reason `max_tokens`); \
                 raise --max-tokens"
                    .into(),
            ),
            RunStatus::ContextWindowExceeded => Some(
                "the conversation filled the model's context window (stop reason \
                 `model_context_window_exceeded`); keep fewer screenshots in context or split \
                 the goal"
                    .into(),
            ),
        }
    }
}

/// The result of a run: how it ended and everything that was said.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// How it ended.
    pub status: RunStatus,
    /// Turns taken.
    pub turns: usize,
    /// Tokens used in total.
    pub usage: Usage,
    /// Wall time.
    pub duration: std::time::Duration,
    /// The full history, images and all.
    pub history: Vec<Message>,
    /// Names of the speakers that took turns, in order of first appearance.
    pub speakers_used: Vec<String>,
}

/// A conversation between speakers over one history.
pub struct Conversation {
    speakers: Vec<Box<dyn Speaker>>,
    default_speaker: usize,
    toolbox: Toolbox,
    events: Events,
    max_steps: usize,
}

impl std::fmt::Debug for Conversation {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Conversation")
            .field(
                "speakers",
                &self
                    .speakers
                    .iter()
                    .map(|speaker| speaker.name())
                    .collect::<Vec<_>>(),
            )
            .field("toolbox", &self.toolbox)
            .field("max_steps", &self.max_steps)
            .finish()
    }
}

impl Conversation {
    /// A conversation whose first speaker is the default one. When there is more than one
    /// speaker, the `switch_speaker` tool is added so the model can hand over.
    pub fn new(
        speakers: Vec<Box<dyn Speaker>>,
        mut toolbox: Toolbox,
        events: Events,
    ) -> Result<Self, AgentError> {
        if speakers.is_empty() {
            return Err(AgentError::Setup(
                "a conversation needs at least one speaker".into(),
            ));
        }
        if speakers.len() > 1 {
            let roster = speakers
                .iter()
                .map(|s| (s.name().to_owned(), s.description().to_owned()))
                .collect();
            toolbox.add(Arc::new(SwitchSpeakerTool::new(roster)));
        }
        Ok(Self {
            speakers,
            default_speaker: 0,
            toolbox,
            events,
            max_steps: 50,
        })
    }

    /// Stops the run after this many speaker turns.
    pub fn with_max_steps(mut self, max_steps: usize) -> Self {
        self.max_steps = max_steps;
        self
    }

    /// The tools of this conversation.
    pub fn toolbox(&self) -> &Toolbox {
        &self.toolbox
    }

    fn index_of(&self, name: &str) -> Result<usize, AgentError> {
        self.speakers
            .iter()
            .position(|speaker| speaker.name() == name)
            .ok_or_else(|| AgentError::UnknownSpeaker {
                name: name.to_owned(),
                known: self
                    .speakers
                    .iter()
                    .map(|speaker| speaker.name())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }

    /// Runs from `history` (usually one user message with the goal) with `first` as the
    /// active speaker (activated with `context`), until the run ends.
    pub async fn run(
        &mut self,
        goal: &str,
        mut history: Vec<Message>,
        first: Option<(&str, SpeakerContext)>,
    ) -> Result<RunReport, AgentError> {
        let started = Instant::now();
        let roster: Vec<(String, String)> = self
            .speakers
            .iter()
            .map(|s| (s.name().to_owned(), s.description().to_owned()))
            .collect();
        let mut active = self.default_speaker;
        let mut usage = Usage::default();
        let mut speakers_used: Vec<String> = Vec::new();
        // Tool calls so far that a recording of this run would keep: the trajectory step of
        // the next one, when its speaker does not say.
        let mut recorded_calls = 0;
        if let Some((name, context)) = &first {
            active = self.index_of(name)?;
            let turn = TurnContext {
                history: &history,
                toolbox: &self.toolbox,
                events: &self.events,
                turn: 0,
                speakers: &roster,
            };
            self.speakers[active].on_activate(context, &turn).await?;
        }
        self.events.emit(Event::RunStarted {
            goal: goal.to_owned(),
            speaker: self.speakers[active].name().to_owned(),
        });

        let mut turn = 0;
        let status = loop {
            if turn >= self.max_steps {
                break RunStatus::MaxSteps(self.max_steps);
            }
            turn += 1;
            let turn_context = TurnContext {
                history: &history,
                toolbox: &self.toolbox,
                events: &self.events,
                turn,
                speakers: &roster,
            };
            if !self.speakers[active].can_handle(&turn_context) && active != self.default_speaker {
                let from = self.speakers[active].name().to_owned();
                active = self.default_speaker;
                self.events.emit(Event::SpeakerSwitched {
                    from,
                    to: self.speakers[active].name().to_owned(),
                    reason: "the active speaker cannot handle this turn".into(),
                });
            }
            let name = self.speakers[active].name().to_owned();
            if !speakers_used.contains(&name) {
                speakers_used.push(name.clone());
            }
            self.events.emit(Event::TurnStarted {
                turn,
                speaker: name.clone(),
            });
            let SpeakerTurn {
                messages,
                usage: turn_usage,
                result,
                step: known_step,
            } = self.speakers[active].handle_step(&turn_context).await?;
            if let Some(turn_usage) = turn_usage {
                usage += turn_usage;
                self.events.emit(Event::Usage {
                    turn,
                    turn_usage,
                    total: usage,
                    cost_usd: None,
                });
            }
            let asked_tools = messages
                .last()
                .is_some_and(|m| m.role == Role::Assistant && m.tool_uses().next().is_some());
            history.extend(messages);
            let (end, mut switch) = outcome_of(result);
            if asked_tools {
                let steps = StepNumbers {
                    known: known_step,
                    recorded_calls: &mut recorded_calls,
                };
                let (results, tool_switch) = self.run_tools(&history, turn, steps).await?;
                history.push(results);
                if switch.is_none() {
                    switch = tool_switch;
                }
            }
            if let Some(end) = end {
                break end;
            }
            if let Some(request) = switch {
                active = self
                    .switch_speaker(active, &request, &history, turn, &roster)
                    .await?;
            }
        };
        let duration = started.elapsed();
        self.events.emit(Event::RunFinished {
            outcome: status.label().to_owned(),
            reason: status.reason(),
            turns: turn,
            usage,
            duration_ms: u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
        });
        Ok(RunReport {
            status,
            turns: turn,
            usage,
            duration,
            history,
            speakers_used,
        })
    }

    /// Hands the conversation from speaker `active` to the one `request` names: announces the
    /// switch and activates the new speaker with the request's context. Returns its index.
    async fn switch_speaker(
        &mut self,
        active: usize,
        request: &SwitchRequest,
        history: &[Message],
        turn: usize,
        roster: &[(String, String)],
    ) -> Result<usize, AgentError> {
        let next = self.index_of(&request.speaker)?;
        self.events.emit(Event::SpeakerSwitched {
            from: self.speakers[active].name().to_owned(),
            to: request.speaker.clone(),
            reason: request.reason.clone(),
        });
        let turn_context = TurnContext {
            history,
            toolbox: &self.toolbox,
            events: &self.events,
            turn,
            speakers: roster,
        };
        self.speakers[next]
            .on_activate(&request.context, &turn_context)
            .await?;
        Ok(next)
    }

    /// Runs the tool calls of the last assistant message in order, stopping at the first
    /// that fails: each later call is answered with [`NOT_EXECUTED`] as an error and not run.
    /// Returns the user message with all results and the first switch request a control tool
    /// made.
    async fn run_tools(
        &self,
        history: &[Message],
        turn: usize,
        mut steps: StepNumbers<'_>,
    ) -> Result<(Message, Option<SwitchRequest>), AgentError> {
        let Some(last) = history.last() else {
            return Ok((Message::user(Vec::new()), None));
        };
        let mut results = Vec::new();
        let mut switch = None;
        let mut failed = false;
        for tool_use in last.tool_uses() {
            if failed {
                results.push(ContentBlock::ToolResult(ToolResultBlock::new(
                    tool_use.id.clone(),
                    vec![ContentBlock::text(NOT_EXECUTED)],
                    true,
                )));
                continue;
            }
            let started = Instant::now();
            let action = tool_use
                .input
                .get("action")
                .or_else(|| tool_use.input.get("command"))
                .and_then(Value::as_str)
                .map(str::to_owned);
            let (content, error, switch_to) = match self.toolbox.get(&tool_use.name) {
                Some(tool) => match tool.call(tool_use.input.clone()).await {
                    Ok(output) => (output.content_blocks(), None, output.switch_to),
                    Err(ToolError::ForModel(message)) => (
                        vec![ContentBlock::text(message.clone())],
                        Some(message),
                        None,
                    ),
                    Err(ToolError::Fatal(error)) => {
                        return Err(AgentError::ToolFatal {
                            turn,
                            tool: tool_use.name.clone(),
                            message: error.to_string(),
                        });
                    }
                },
                None => {
                    let message = format!(
                        "unknown tool `{}`; the tools are: {}",
                        tool_use.name,
                        self.toolbox.names()
                    );
                    (
                        vec![ContentBlock::text(message.clone())],
                        Some(message),
                        None,
                    )
                }
            };
            let is_error = error.is_some();
            failed = is_error;
            self.events.emit(Event::ToolCalled {
                turn,
                step: steps.next(&tool_use.name),
                tool: tool_use.name.clone(),
                action,
                summary: retrace_protocol::tool_input::redacted_summary(&tool_use.input),
                duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                is_error,
                error,
            });
            if switch.is_none() {
                switch = switch_to;
            }
            results.push(ContentBlock::ToolResult(ToolResultBlock::new(
                tool_use.id.clone(),
                content,
                is_error,
            )));
        }
        Ok((Message::user(results), switch))
    }
}

/// How the tool calls of one turn are numbered as trajectory steps.
struct StepNumbers<'a> {
    /// The step the speaker gave for its (first) call.
    known: Option<usize>,
    /// Calls a recording would keep, counted over the whole run.
    recorded_calls: &'a mut usize,
}

impl StepNumbers<'_> {
    /// The trajectory step of the next call, of tool `name`: `None` for control tools, else
    /// the speaker's number (once) or the run's count.
    fn next(&mut self, name: &str) -> Option<usize> {
        if is_control_tool(name) {
            return None;
        }
        *self.recorded_calls += 1;
        Some(self.known.take().unwrap_or(*self.recorded_calls))
    }
}

/// What a speaker's result means for the run: the status it ends with, if it ends, and the
/// speaker it asks to hand over to, if any.
fn outcome_of(result: SpeakerResult) -> (Option<RunStatus>, Option<SwitchRequest>) {
    match result {
        SpeakerResult::Continue => (None, None),
        SpeakerResult::Done => (Some(RunStatus::Done), None),
        SpeakerResult::Failed(StopCause::Failed(reason)) => (Some(RunStatus::Failed(reason)), None),
        SpeakerResult::Failed(StopCause::MaxTokens) => (Some(RunStatus::MaxTokens), None),
        SpeakerResult::Failed(StopCause::Refusal(text)) => (Some(RunStatus::Refusal(text)), None),
        SpeakerResult::Failed(StopCause::ContextWindowExceeded) => {
            (Some(RunStatus::ContextWindowExceeded), None)
        }
        SpeakerResult::SwitchTo {
            speaker,
            context,
            reason,
        } => (
            None,
            Some(SwitchRequest {
                speaker,
                context,
                reason,
            }),
        ),
    }
}

#[cfg(test)]
#[path = "conversation_tests.rs"]
mod tests;
