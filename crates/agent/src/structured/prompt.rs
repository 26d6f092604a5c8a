//! The words of the structured loop: the system prompt (rules and, where the provider has
//! no structured-output option, the schema), and each step's request (goal, the steps so
//! far with their results, the page now).
//!
//! The steps so far are read from the shared history, so steps replayed from a cache before
//! the model took over are shown like the model's own.

use std::fmt::Write as _;

use base64::Engine;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::MessageContent;
use retrace_protocol::Role;
use retrace_protocol::tool_names;
use serde_json::Value;

use crate::structured::page::PageState;

/// The rules of the loop, before the schema.
pub const STRUCTURED_RULES: &str = "\
You automate a web page in a browser, one command per step, to reach the user's goal.
Every answer is exactly one JSON object following the response schema: a decision, your \
reasoning and at most one command. No other text is needed.
- decision.action PROCEED with a command: the last step went as expected; run this next \
command.
- decision.action PROCEED without a command: the goal is reached; the run ends successfully.
- decision.action RETRY: the last step did not have the expected effect; the command \
(required) corrects it.
- decision.action ABORT: the goal cannot be reached; give no command and say why in \
decision.message.
Commands: OPEN_PAGE {url}, CLICK_ELEMENT {selector}, INPUT_TEXT {selector, text}, \
SAVE_VARIABLE {selector, variableName}, GET_DOM {}. Selectors are CSS selectors; take them \
from the page's element list. ${name} in a parameter is replaced by the variable `name` that \
SAVE_VARIABLE saved.";

/// The system prompt: the rules, and the schema when it travels in the prompt.
pub fn system_prompt(schema: &Value, schema_in_prompt: bool) -> String {
    let mut prompt = STRUCTURED_RULES.to_owned();
    if schema_in_prompt {
        let schema_text =
            serde_json::to_string_pretty(schema).unwrap_or_else(|_| schema.to_string());
        let _ = write!(
            prompt,
            "\n\nThe response schema (JSON Schema):\n```json\n{schema_text}\n```"
        );
    }
    prompt
}

/// The goal: the text of the first user message of the history.
pub fn goal_of(history: &[Message]) -> String {
    history
        .iter()
        .find(|message| message.role == Role::User)
        .map(message_text)
        .unwrap_or_default()
}

fn message_text(message: &Message) -> String {
    match &message.content {
        MessageContent::Text(text) => text.clone(),
        MessageContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// The most characters of one result shown among the steps so far: a `GET_DOM` result is
/// the whole element list, which the page state shows anyway.
pub const MAX_RESULT_CHARS: usize = 300;

/// `text` cut to [`MAX_RESULT_CHARS`], saying how long it was.
fn clip(text: &str) -> String {
    let length = text.chars().count();
    if length <= MAX_RESULT_CHARS {
        return text.to_owned();
    }
    let head: String = text.chars().take(MAX_RESULT_CHARS).collect();
    format!("{head}... ({length} characters)")
}

/// One line per web command of the history, with its result: what was done so far.
pub fn steps_so_far(history: &[Message]) -> Vec<String> {
    let mut lines = Vec::new();
    for (index, message) in history.iter().enumerate() {
        if message.role != Role::Assistant {
            continue;
        }
        for tool_use in message.tool_uses() {
            if tool_use.name != tool_names::WEB_EXECUTOR {
                continue;
            }
            let result = history[index + 1..]
                .iter()
                .filter(|later| later.role == Role::User)
                .flat_map(Message::tool_results)
                .find(|result| result.tool_use_id == tool_use.id);
            let outcome = match result {
                Some(result) if result.is_error() => format!("FAILED: {}", clip(&result.text())),
                Some(result) => format!("ok: {}", clip(&result.text())),
                None => "no result".to_owned(),
            };
            lines.push(format!(
                "{}. {} -> {outcome}",
                lines.len() + 1,
                tool_use.input
            ));
        }
    }
    lines
}

/// A note for the model: the history's last message when it is a plain user text after the
/// goal (a replay that stopped hands over with one, saying why). Correction requests of
/// earlier steps are followed by that step's command and result, so they never qualify.
fn latest_note(history: &[Message]) -> Option<String> {
    let first_user = history.iter().position(|m| m.role == Role::User)?;
    let (index, last) = history.iter().enumerate().next_back()?;
    (index > first_user && last.role == Role::User && last.tool_results().next().is_none())
        .then(|| message_text(last))
        .filter(|text| !text.trim().is_empty())
}

/// The request of one step: goal, steps so far, the page now (and its screenshot).
pub fn step_request(history: &[Message], page: &PageState) -> Message {
    let mut text = format!("Goal: {}\n", goal_of(history));
    let steps = steps_so_far(history);
    if steps.is_empty() {
        text.push_str("\nNo commands have run yet.\n");
    } else {
        text.push_str("\nCommands so far, with their results:\n");
        for line in &steps {
            let _ = writeln!(text, "{line}");
        }
    }
    if let Some(note) = latest_note(history) {
        let _ = write!(text, "\nNote: {note}\n");
    }
    text.push_str("\nThe page now:\n");
    let _ = writeln!(text, "URL: {}", page.url.as_deref().unwrap_or("(unknown)"));
    let _ = writeln!(
        text,
        "Title: {}",
        page.title.as_deref().unwrap_or("(unknown)")
    );
    if !page.variables.is_empty() {
        let names: Vec<String> = page
            .variables
            .iter()
            .map(|(name, value)| {
                let shown: String = value.chars().take(80).collect();
                format!("{name} = {shown:?}")
            })
            .collect();
        let _ = writeln!(text, "Saved variables: {}", names.join(", "));
    }
    if let Some(dom) = &page.dom {
        let _ = writeln!(text, "Interactive elements (JSON):\n{dom}");
    }
    if let Some(problem) = &page.problem {
        let _ = writeln!(text, "Could not read everything: {problem}");
    }
    text.push_str("\nDecide the next step and answer with one JSON object.");
    let mut content = vec![ContentBlock::text(text)];
    if let Some(png) = &page.screenshot_png {
        content.push(ContentBlock::png_base64(
            base64::engine::general_purpose::STANDARD.encode(png),
        ));
    }
    Message::user(content)
}

#[cfg(test)]
mod tests {
    use retrace_protocol::ToolResultBlock;
    use retrace_protocol::ToolUseBlock;
    use serde_json::json;

    use super::*;

    fn call(id: &str, input: Value) -> Message {
        Message::assistant(vec![
            ContentBlock::text("{\"decision\": {}}"),
            ContentBlock::ToolUse(ToolUseBlock::new(id, tool_names::WEB_EXECUTOR, input)),
        ])
    }

    fn result(id: &str, text: &str, is_error: bool) -> Message {
        Message::user(vec![ContentBlock::ToolResult(ToolResultBlock::new(
            id,
            vec![ContentBlock::text(text)],
            is_error,
        ))])
    }

    #[test]
    fn the_step_request_lists_what_ran_and_the_page() {
        let history = vec![
            Message::user_text("Log in as demo"),
            call(
                "a",
                json!({"action": "CLICK_ELEMENT", "parameters": {"selector": "#x"}}),
            ),
            result("a", "CLICK_ELEMENT: no element matches `#x`", true),
            Message::assistant(vec![ContentBlock::text("not json")]),
            Message::user_text("Your answer could not be used: no JSON"),
            call(
                "b",
                json!({"action": "CLICK_ELEMENT", "parameters": {"selector": "#sign-in"}}),
            ),
            result("b", "Clicked `#sign-in` at (5, 6)", false),
            Message::user_text("The recorded trajectory could not continue: step 2"),
        ];
        let page = PageState {
            url: Some("http://h/dashboard".into()),
            title: Some("Dashboard".into()),
            dom: Some("{\"elements\":[]}".into()),
            screenshot_png: Some(vec![1, 2, 3]),
            ..PageState::default()
        };
        let message = step_request(&history, &page);
        let MessageContent::Blocks(blocks) = &message.content else {
            panic!("blocks expected");
        };
        assert_eq!(blocks.len(), 2, "text and screenshot");
        let text = message_text(&message);
        let expected = "Goal: Log in as demo\n\
            \n\
            Commands so far, with their results:\n\
            1. {\"action\":\"CLICK_ELEMENT\",\"parameters\":{\"selector\":\"#x\"}} -> FAILED: CLICK_ELEMENT: no element matches `#x`\n\
            2. {\"action\":\"CLICK_ELEMENT\",\"parameters\":{\"selector\":\"#sign-in\"}} -> ok: Clicked `#sign-in` at (5, 6)\n\
            \n\
            Note: The recorded trajectory could not continue: step 2\n\
            \n\
            The page now:\n\
            URL: http://h/dashboard\n\
            Title: Dashboard\n\
            Interactive elements (JSON):\n\
            {\"elements\":[]}\n\
            \n\
            Decide the next step and answer with one JSON object.";
        assert_eq!(text, expected);
    }

    #[test]
    fn long_results_are_clipped_among_the_steps_so_far() {
        let dom = format!(
            "{{\"elements\":[{}]}}",
            "{\"selector\":\"#a\"},".repeat(100)
        );
        let history = vec![
            Message::user_text("goal"),
            call("a", json!({"action": "GET_DOM", "parameters": {}})),
            result("a", &dom, false),
        ];
        let steps = steps_so_far(&history);
        let length = dom.chars().count();
        let expected_tail = format!("... ({length} characters)");
        assert_eq!(steps.len(), 1);
        assert!(steps[0].ends_with(&expected_tail), "{}", steps[0]);
        assert!(steps[0].len() < MAX_RESULT_CHARS + 100, "{}", steps[0]);
    }

    #[test]
    fn the_schema_is_in_the_system_prompt_only_when_asked() {
        let schema = json!({"$id": "https://retrace.dev/schemas/response/1.0.0"});
        assert!(system_prompt(&schema, true).contains("\"$id\""));
        assert!(!system_prompt(&schema, false).contains("\"$id\""));
        assert!(system_prompt(&schema, false).starts_with(STRUCTURED_RULES));
    }
}
