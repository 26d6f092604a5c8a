//! UI-TARS's text actions, read into retrace `computer` inputs and written back.
//!
//! The grammar is UI-TARS's own (bytedance/UI-TARS, `codes/ui_tars/action_parser.py`,
//! `parse_action_to_structure_output`, and the action space of `codes/ui_tars/prompt.py`):
//!
//! ```text
//! answer  := [ "Thought: " text ] "Action: " action { ")\n\n" action }
//! action  := name "(" [ key "=" quoted { "," key "=" quoted } ] ")"
//! quoted  := "'" ... "'" | "\"" ... "\""          (backslash escapes \' \" \n)
//! box     := "(x,y)" | "(x1,y1,x2,y2)" | "[x1, y1, x2, y2]" | "<|box_start|>(x,y)<|box_end|>"
//!          | "<point>x y</point>"                  (a four-number box means its centre)
//! ```
//!
//! `point=`, `start_point=` and `end_point=` are read as `start_box=` / `end_box=`, as the
//! source does. Points are in the model's space (UI-TARS-1.5: pixels of the image as its
//! processor resized it); the caller maps them ([`crate::openai::coordinates`]).
//!
//! | UI-TARS                                   | retrace `computer` input                     |
//! |-------------------------------------------|----------------------------------------------|
//! | `click(start_box)`                        | `left_click`                                 |
//! | `left_double(start_box)`                  | `double_click`                               |
//! | `right_single(start_box)`                 | `right_click`                                |
//! | `drag(start_box, end_box)` / `select`     | `left_click_drag`                            |
//! | `hotkey(key='ctrl c')`                    | `key` `ctrl+c`                               |
//! | `type(content='...')`                     | `type`                                       |
//! | `scroll(start_box, direction)`            | `scroll`, [`SCROLL_NOTCHES`] notches         |
//! | `wait()`                                  | `wait` [`WAIT_SECONDS`] s                    |
//! | `finished(content)` / `call_user()`       | the end of the run, with the content as text |

use retrace_protocol::computer_actions;
use retrace_protocol::computer_actions::ComputerAction;
use retrace_protocol::computer_actions::MouseButton;
use retrace_protocol::computer_actions::ScrollDirection;
use retrace_protocol::computer_actions::names;
use serde_json::Value;
use serde_json::json;

/// Notches a UI-TARS `scroll` scrolls (`pyautogui.scroll(5)` in the source).
pub const SCROLL_NOTCHES: i64 = 5;
/// Seconds a UI-TARS `wait()` waits (its action space: "Sleep for 5s").
pub const WAIT_SECONDS: f64 = 5.0;

/// The actions UI-TARS may answer with, for error messages.
const ACTIONS: &str = "click, left_double, right_single, drag, hotkey, type, scroll, wait, \
finished, call_user";

/// What one UI-TARS answer says.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The `Thought:` (or `Reflection:` / `Action_Summary:`) text, if any.
    pub thought: Option<String>,
    /// The `computer` inputs to run, in order, points in the model's space.
    pub actions: Vec<Value>,
    /// `finished(content=...)` or `call_user()`: the run ends with this text.
    pub finished: Option<String>,
}

/// UI-TARS names (lowercase) and xdotool's.
const KEYS: [(&str, &str); 14] = [
    ("enter", "Return"),
    ("esc", "Escape"),
    ("escape", "Escape"),
    ("tab", "Tab"),
    ("backspace", "BackSpace"),
    ("delete", "Delete"),
    ("space", "space"),
    ("arrowleft", "Left"),
    ("arrowright", "Right"),
    ("arrowup", "Up"),
    ("arrowdown", "Down"),
    ("pageup", "Page_Up"),
    ("pagedown", "Page_Down"),
    ("cmd", "super"),
];

/// Reads a UI-TARS answer; the error is written for the model to read and correct.
pub fn parse(text: &str) -> Result<Answer, String> {
    let text = text.trim();
    let Some(at) = text.rfind("Action:") else {
        return Err(format!(
            "no `Action:` in the answer. Answer as\nThought: ...\nAction: click(start_box='(x,y)')\n\
             with one of: {ACTIONS}"
        ));
    };
    let head = text[..at].trim();
    let thought = ["Thought:", "Reflection:", "Action_Summary:"]
        .iter()
        .find_map(|label| head.find(label).map(|i| head[i + label.len()..].trim()))
        .or(Some(head))
        .filter(|thought| !thought.is_empty())
        .map(str::to_owned);
    let mut answer = Answer {
        thought,
        actions: Vec::new(),
        finished: None,
    };
    let body = text[at + "Action:".len()..].trim();
    // Actions are separated by ")\n\n", as the source splits them.
    for segment in body.split(")\n\n").map(str::trim).filter(|s| !s.is_empty()) {
        let (name, args) = match typed_content(segment) {
            Some(content) => ("type".to_owned(), vec![("content".to_owned(), content)]),
            None => call(segment)?,
        };
        read_action(&name, &args, &mut answer)?;
    }
    if answer.actions.is_empty() && answer.finished.is_none() {
        return Err(format!("`Action:` is empty: give one of {ACTIONS}"));
    }
    Ok(answer)
}

/// The content of a `type(content='...')` segment: everything between the first quote and
/// the last, so an unescaped quote inside survives (the source reads it the same way).
fn typed_content(segment: &str) -> Option<String> {
    let rest = segment
        .strip_prefix("type(")?
        .trim_start()
        .strip_prefix("content=")?;
    let quote = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let inner = &rest[1..];
    let inner = inner
        .trim_end()
        .strip_suffix(')')
        .unwrap_or(inner)
        .trim_end();
    let inner = inner.strip_suffix(quote).unwrap_or(inner);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    Some(out)
}

/// One `name(key='value', ...)` segment: the name and the arguments.
fn call(text: &str) -> Result<(String, Vec<(String, String)>), String> {
    let open = text.find('(').ok_or_else(|| {
        format!("cannot read the action `{text}`: expected name(key='value', ...)")
    })?;
    let name = text[..open].trim().to_owned();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!(
            "cannot read the action name `{name}`: use one of {ACTIONS}"
        ));
    }
    let mut args = Vec::new();
    let mut rest = text[open + 1..].trim_start();
    loop {
        if rest.starts_with(')') || rest.is_empty() {
            // A missing closing parenthesis is forgiven: UI-TARS often stops after the value.
            return Ok((name, args));
        }
        let eq = rest.find('=').ok_or_else(|| {
            format!("cannot read the arguments of `{name}(`: expected key='value' or `)`")
        })?;
        let key = rest[..eq].trim().to_owned();
        let (value, after) = quoted(rest[eq + 1..].trim_start())
            .ok_or_else(|| format!("`{name}`: the value of `{key}` must be quoted ('...')"))?;
        args.push((key, value));
        rest = after.trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
    }
}

/// A quoted string at the start of `text`, unescaped, and the rest.
fn quoted(text: &str) -> Option<(String, &str)> {
    let quote = text.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let mut out = String::new();
    let mut chars = text.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, other)) => out.push(other),
                None => out.push('\\'),
            },
            c if c == quote => return Some((out, &text[i + 1..])),
            c => out.push(c),
        }
    }
    // Unterminated: take the rest (the source also repairs a missing quote in `type`).
    Some((out, ""))
}

/// A box or point as its centre `[x, y]`.
fn point(name: &str, key: &str, text: &str) -> Result<Value, String> {
    let cleaned: String = text
        .replace("<|box_start|>", "")
        .replace("<|box_end|>", "")
        .replace("<point>", "")
        .replace("</point>", "")
        .chars()
        .map(|c| if "()[]".contains(c) { ' ' } else { c })
        .collect();
    let numbers: Result<Vec<f64>, _> = cleaned
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|part| !part.is_empty())
        .map(str::parse::<f64>)
        .collect();
    let (x, y) = match numbers.as_deref() {
        Ok([x, y]) => (*x, *y),
        Ok([x1, y1, x2, y2]) => ((x1 + x2) / 2.0, (y1 + y2) / 2.0),
        _ => {
            return Err(format!(
                "`{name}`: `{key}='{text}'` is not a point: write '(x,y)' or '(x1,y1,x2,y2)'"
            ));
        }
    };
    Ok(json!([x.round() as i64, y.round() as i64]))
}

fn read_action(name: &str, args: &[(String, String)], answer: &mut Answer) -> Result<(), String> {
    let arg = |wanted: &str| {
        args.iter()
            .find(|(key, _)| {
                let key = match key.as_str() {
                    "point" | "start_point" => "start_box",
                    "end_point" => "end_box",
                    other => other,
                };
                key == wanted
            })
            .map(|(_, value)| value.as_str())
    };
    let need = |key: &str| arg(key).ok_or_else(|| format!("`{name}` needs `{key}=`"));
    let at = |key: &str| need(key).and_then(|text| point(name, key, text));
    let input = match name {
        "click" => json!({"action": names::LEFT_CLICK, "coordinate": at("start_box")?}),
        "left_double" => json!({"action": names::DOUBLE_CLICK, "coordinate": at("start_box")?}),
        "right_single" => json!({"action": names::RIGHT_CLICK, "coordinate": at("start_box")?}),
        "drag" | "select" => json!({"action": names::LEFT_CLICK_DRAG,
            "start_coordinate": at("start_box")?, "coordinate": at("end_box")?}),
        "hotkey" => {
            let keys = arg("key")
                .or_else(|| arg("hotkey"))
                .ok_or("`hotkey` needs `key=`")?;
            json!({"action": names::KEY, "text": xdotool_combination(keys)})
        }
        "type" => json!({"action": names::TYPE, "text": need("content")?}), // not ours: UI-TARS's
        // not ours: UI-TARS's
        "scroll" => {
            let direction = need("direction")?.trim().to_ascii_lowercase();
            if !["up", "down", "left", "right"].contains(&direction.as_str()) {
                return Err(format!(
                    "`scroll`: direction='{direction}' must be up, down, left or right"
                ));
            }
            let mut input = json!({"action": names::SCROLL, "scroll_direction": direction,
                                   "scroll_amount": SCROLL_NOTCHES});
            if arg("start_box").is_some() {
                input["coordinate"] = at("start_box")?;
            }
            input
        }
        "wait" => json!({"action": names::WAIT, "duration": WAIT_SECONDS}), // not ours: UI-TARS's
        "finished" => {
            answer.finished = Some(arg("content").unwrap_or("").to_owned());
            return Ok(());
        }
        "call_user" => {
            answer.finished = Some("The model asks for the user's help (call_user).".into());
            return Ok(());
        }
        other => return Err(format!("unknown action `{other}`: use one of {ACTIONS}")),
    };
    answer.actions.push(input);
    Ok(())
}

/// `ctrl c` (UI-TARS: space-separated, lowercase) as `ctrl+c`.
fn xdotool_combination(keys: &str) -> String {
    keys.split_whitespace()
        .map(|key| {
            let lower = key.to_ascii_lowercase();
            KEYS.iter()
                .find(|(ui_tars, _)| *ui_tars == lower)
                .map_or(lower.clone(), |(_, xdotool)| (*xdotool).to_owned())
        })
        .collect::<Vec<_>>()
        .join("+")
}

/// `ctrl+c` as UI-TARS writes it, `ctrl c`.
fn ui_tars_keys(combination: &str) -> String {
    combination
        .split('+')
        .map(|key| {
            KEYS.iter()
                .find(|(_, xdotool)| *xdotool == key)
                .map_or(key.to_ascii_lowercase(), |(ui_tars, _)| {
                    (*ui_tars).to_owned()
                })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A `computer` input (points in the model's space) as UI-TARS writes it; `None` for an
/// action UI-TARS has no form for (or an input the action catalogue refuses).
pub fn render(input: &Value) -> Option<String> {
    let point = |(x, y): (i64, i64)| format!("({x},{y})");
    let escape = |text: &str| {
        text.replace('\\', "\\\\")
            .replace('\'', "\\'")
            .replace('\n', "\\n")
    };
    Some(match computer_actions::parse(input).ok()? {
        ComputerAction::Click {
            button,
            count,
            at: Some(at),
            ..
        } => match (button, count) {
            (MouseButton::Left, 1) => format!("click(start_box='{}')", point(at)),
            (MouseButton::Left, 2) => format!("left_double(start_box='{}')", point(at)),
            (MouseButton::Right, 1) => format!("right_single(start_box='{}')", point(at)),
            _ => return None,
        },
        ComputerAction::Drag { from, to } => {
            format!("drag(start_box='{}', end_box='{}')", point(from), point(to))
        }
        ComputerAction::Key { combo, .. } => format!("hotkey(key='{}')", ui_tars_keys(&combo)),
        ComputerAction::Type(text) => format!("type(content='{}')", escape(&text)),
        ComputerAction::Scroll { at, direction, .. } => {
            let direction = match direction {
                ScrollDirection::Up => "up",
                ScrollDirection::Down => "down",
                ScrollDirection::Left => "left",
                ScrollDirection::Right => "right",
            };
            match at {
                Some(at) => format!("scroll(start_box='{}', direction='{direction}')", point(at)),
                None => format!("scroll(direction='{direction}')"),
            }
        }
        ComputerAction::Wait(_) => "wait()".to_owned(),
        _ => return None,
    })
}

#[cfg(test)]
#[path = "grammar_tests.rs"]
mod tests;
