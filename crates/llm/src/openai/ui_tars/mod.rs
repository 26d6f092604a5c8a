//! UI-TARS's text actions over an OpenAI-compatible server (the catalogue's
//! [`ComputerToolForm::UiTarsText`]): UI-TARS answers `Thought: ...\nAction: click(...)` in
//! text rather than calling tools.
//!
//! - [`text_request`]: the request as UI-TARS reads it: its action space appended to the
//!   system prompt ([`PROMPT`], after `COMPUTER_USE` of bytedance/UI-TARS
//!   `codes/ui_tars/prompt.py`), no computer tool, and the history's earlier `computer` calls
//!   written back in its text form with their screenshots as plain user content;
//! - [`read_answer`]: the text answer as `computer` tool calls (points mapped to the
//!   screenshot), or the end of the run for `finished(...)`; an answer it cannot read is an
//!   error the client shows the model once before giving up
//!   ([`crate::openai::UI_TARS_CORRECTIONS`]).
//!
//! The grammar lives in [`grammar`].
//!
//! [`ComputerToolForm::UiTarsText`]: crate::catalog::ComputerToolForm::UiTarsText

pub mod grammar;

use std::collections::HashSet;

use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::MessageContent;
use retrace_protocol::Role;
use retrace_protocol::StopReason;
use retrace_protocol::ToolUseBlock;
use retrace_protocol::tool_names::COMPUTER;

use super::coordinates::CoordinateMap;
use crate::MessageRequest;
use crate::MessageResponse;
use crate::ToolChoice;
use crate::ToolSpec;

/// UI-TARS's output format and action space, after `COMPUTER_USE` in bytedance/UI-TARS
/// `codes/ui_tars/prompt.py` (the `start_box` form UI-TARS-1.5 answers in).
pub const PROMPT: &str = "You are a GUI agent. You are given a task and your action history, \
with screenshots. You need to perform the next action to complete the task.

## Output Format
```
Thought: ...
Action: ...
```

## Action Space
click(start_box='<|box_start|>(x1,y1)<|box_end|>')
left_double(start_box='<|box_start|>(x1,y1)<|box_end|>')
right_single(start_box='<|box_start|>(x1,y1)<|box_end|>')
drag(start_box='<|box_start|>(x1,y1)<|box_end|>', end_box='<|box_start|>(x3,y3)<|box_end|>')
hotkey(key='') # Split keys with a space and use lowercase. Do not use more than 3 keys in one hotkey action.
type(content='') # Use escape characters \\', \\\" and \\n in content. To submit your input, end content with \\n.
scroll(start_box='<|box_start|>(x1,y1)<|box_end|>', direction='down or up or right or left')
wait() # Sleep for 5s and take a screenshot to check for any changes.
finished(content='xxx') # Use escape characters \\', \\\" and \\n in content.

## Note
- Write a small plan and finally summarize your next action (with its target element) in one \
sentence in the `Thought` part.";

/// The request as UI-TARS reads it; `map` takes the history's points to the model's space.
pub fn text_request(request: &MessageRequest, map: Option<CoordinateMap>) -> MessageRequest {
    let mut out = request.clone();
    out.system = Some(match &request.system {
        Some(system) => format!("{system}\n\n{PROMPT}"),
        None => PROMPT.to_owned(),
    });
    out.tools
        .retain(|tool| !matches!(tool, ToolSpec::Computer { .. }));
    if matches!(&out.tool_choice, Some(ToolChoice::Tool(name)) if name == COMPUTER)
        || (out.tools.is_empty() && out.tool_choice.is_some())
    {
        out.tool_choice = None;
    }
    let computer_calls: HashSet<&str> = request
        .messages
        .iter()
        .flat_map(Message::tool_uses)
        .filter(|call| call.name == COMPUTER)
        .map(|call| call.id.as_str())
        .collect();
    out.messages = request
        .messages
        .iter()
        .map(|message| as_text(message, map, &computer_calls))
        .collect();
    out
}

/// One history message with its `computer` calls and their results as text and images.
fn as_text(
    message: &Message,
    map: Option<CoordinateMap>,
    computer_calls: &HashSet<&str>,
) -> Message {
    let MessageContent::Blocks(blocks) = &message.content else {
        return message.clone();
    };
    let mut out = Vec::with_capacity(blocks.len());
    match message.role {
        Role::Assistant => {
            let mut actions = Vec::new();
            for block in blocks {
                match block {
                    ContentBlock::ToolUse(call) if call.name == COMPUTER => {
                        let mut input = call.input.clone();
                        if let Some(map) = map {
                            map.to_model(&mut input);
                        }
                        actions.extend(grammar::render(&input));
                    }
                    ContentBlock::Text { .. } => {}
                    other => out.push(other.clone()),
                }
            }
            let thought = message.text();
            let text = match (thought.is_empty(), actions.is_empty()) {
                (_, true) => thought,
                (true, false) => format!("Action: {}", actions.join("\n\n")),
                (false, false) => format!("Thought: {thought}\nAction: {}", actions.join("\n\n")),
            };
            if !text.is_empty() {
                out.insert(0, ContentBlock::text(text));
            }
        }
        Role::User => {
            for block in blocks {
                match block {
                    ContentBlock::ToolResult(result)
                        if computer_calls.contains(result.tool_use_id.as_str()) =>
                    {
                        let text = result.text();
                        if result.is_error() {
                            out.push(ContentBlock::text(format!("The action failed: {text}")));
                        } else if !text.is_empty() {
                            out.push(ContentBlock::text(text));
                        }
                        out.extend(result.images().map(|source| ContentBlock::Image {
                            source: source.clone(),
                            extra: serde_json::Map::new(),
                        }));
                    }
                    other => out.push(other.clone()),
                }
            }
        }
    }
    Message {
        role: message.role,
        content: MessageContent::Blocks(out),
    }
}

/// Turns the text answer into `computer` calls (ids `<id_prefix>_<n>`, points mapped to the
/// screenshot by `map`), or into the run's end for `finished(...)`. The error says what is
/// wrong in words the model can act on; `answer` is left as it was.
pub fn read_answer(
    answer: &mut MessageResponse,
    map: Option<CoordinateMap>,
    id_prefix: &str,
) -> Result<(), String> {
    if answer.stop_reason != StopReason::EndTurn && answer.stop_reason != StopReason::ToolUse {
        return Ok(());
    }
    let parsed = grammar::parse(&answer.text())?;
    let mut content = Vec::new();
    if let Some(thought) = parsed.thought {
        content.push(ContentBlock::text(thought));
    }
    for (n, mut input) in parsed.actions.into_iter().enumerate() {
        if let Some(map) = map {
            map.to_screen(&mut input);
        }
        let call = ToolUseBlock::new(format!("{id_prefix}_{n}"), COMPUTER, input);
        content.push(ContentBlock::ToolUse(call));
    }
    answer.stop_reason = if content
        .iter()
        .any(|b| matches!(b, ContentBlock::ToolUse(_)))
    {
        StopReason::ToolUse
    } else {
        StopReason::EndTurn
    };
    if let Some(finished) = parsed.finished {
        content.push(ContentBlock::text(finished));
    }
    answer.content = content;
    Ok(())
}

#[cfg(test)]
#[path = "ui_tars_tests.rs"]
mod tests;
