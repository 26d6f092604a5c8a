//! Parameters of a recording: values replaced by `{{name}}` placeholders, exactly.
//!
//! A value is replaced where a string input equals it, or where it occurs delimited by
//! non-word characters or the ends of the text, never inside other text (`demo` in
//! `demonstration` stays). Placeholders already in the text are left alone, and numbers and
//! booleans keep their type. Values may be secrets: no message here ever holds one.
//!
//! [`identify_parameters`] asks a model, in one call, which typed values should become
//! parameters, and checks its answer before anything is replaced.

use retrace_protocol::answer_json;
use retrace_protocol::answer_json::Expected;
use std::collections::BTreeSet;

use retrace_cache::CacheFile;
use retrace_cache::params::Template;
use retrace_cache::params::Token;
use retrace_cache::params::parameters_in_trajectory;
use retrace_llm::MessageRequest;
use retrace_llm::VlmProvider;
use retrace_protocol::Message;
use retrace_protocol::ToolUseBlock;
use retrace_protocol::tool_names::base_name;
use serde_json::Value;
use serde_json::json;

use super::error::RecordError;

/// A parameter the model proposed and the checks accepted.
#[derive(Clone, PartialEq, Eq)]
pub struct IdentifiedParameter {
    /// The placeholder name (`[a-zA-Z_][a-zA-Z0-9_]*`).
    pub name: String,
    /// The value as recorded; may be a secret (`Debug` hides it).
    pub value: String,
    /// What it is, for whoever replays the file.
    pub description: String,
}

impl std::fmt::Debug for IdentifiedParameter {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("IdentifiedParameter")
            .field("name", &self.name)
            .field("value", &"<redacted>")
            .field("description", &self.description)
            .finish()
    }
}

/// What [`identify_parameters`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identification {
    /// The proposals that passed the checks.
    pub accepted: Vec<IdentifiedParameter>,
    /// The proposals that did not: (name as given, why). Reasons never quote values.
    pub dropped: Vec<(String, String)>,
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `name` is a valid placeholder name, `[a-zA-Z_][a-zA-Z0-9_]*`.
pub fn is_parameter_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// `text` with every delimited occurrence of a value replaced by its placeholder. `pairs`
/// must be sorted longest value first (so `abc` wins over `ab`); empty values are skipped.
fn replace_in_literal(text: &str, pairs: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut index = 0;
    while index < text.len() {
        let delimited_before = text[..index]
            .chars()
            .next_back()
            .is_none_or(|c| !is_word(c));
        let found = delimited_before
            .then(|| {
                pairs.iter().find(|(_, value)| {
                    text[index..].starts_with(value)
                        && text[index + value.len()..]
                            .chars()
                            .next()
                            .is_none_or(|c| !is_word(c))
                })
            })
            .flatten();
        if let Some((name, value)) = found {
            out.push_str("{{");
            out.push_str(name);
            out.push_str("}}");
            index += value.len();
        } else if let Some(c) = text[index..].chars().next() {
            out.push(c);
            index += c.len_utf8();
        }
    }
    out
}

/// `text` with parameter values replaced; existing placeholders are kept as they are.
fn parameterize_text(text: &str, pairs: &[(&str, &str)]) -> String {
    Template::parse(text)
        .tokens()
        .iter()
        .map(|token| match token {
            Token::Literal(literal) => replace_in_literal(literal, pairs),
            Token::Parameter(name) => format!("{{{{{name}}}}}"),
        })
        .collect()
}

fn sorted_pairs(values: &[(String, String)]) -> Vec<(&str, &str)> {
    let mut pairs: Vec<(&str, &str)> = values
        .iter()
        .filter(|(_, value)| !value.is_empty())
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    pairs.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
    pairs
}

/// `value` with every parameter value in its strings replaced by `{{name}}` (see the module
/// docs). `values` are (name, value) pairs; numbers, booleans and object keys are kept.
pub fn parameterize_value(value: &Value, values: &[(String, String)]) -> Value {
    let pairs = sorted_pairs(values);
    if pairs.is_empty() {
        return value.clone();
    }
    parameterize_with(value, &pairs)
}

fn parameterize_with(value: &Value, pairs: &[(&str, &str)]) -> Value {
    match value {
        Value::String(text) => Value::String(parameterize_text(text, pairs)),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| parameterize_with(item, pairs))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, item)| (key.clone(), parameterize_with(item, pairs)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Applies accepted parameters to a recording: values replaced in every step input and in the
/// goal, and a `cache_parameters` entry for each one now used.
pub fn add_parameters(file: &mut CacheFile, parameters: &[IdentifiedParameter]) {
    let values: Vec<(String, String)> = parameters
        .iter()
        .map(|p| (p.name.clone(), p.value.clone()))
        .collect();
    for step in &mut file.trajectory {
        step.input = parameterize_value(&step.input, &values);
    }
    if let Some(goal) = &file.metadata.goal {
        let pairs = sorted_pairs(&values);
        file.metadata.goal = Some(parameterize_text(goal, &pairs));
    }
    let used = parameters_in_trajectory(&file.trajectory);
    for parameter in parameters.iter().filter(|p| used.contains(&p.name)) {
        let description = if parameter.description.trim().is_empty() {
            default_description(&parameter.name)
        } else {
            parameter.description.clone()
        };
        file.cache_parameters
            .entry(parameter.name.clone())
            .or_insert(description);
    }
}

const IDENTIFY_SYSTEM: &str = "\
You turn a recorded UI automation into a reusable template. You are shown the goal and the \
recorded tool calls. Find the values that a user would change between runs: text typed into \
fields (search terms, user names, passwords, e-mail addresses, dates, amounts, ids). Do not \
propose coordinates, key names, button labels or anything that is already a {{placeholder}}.
Answer with only a JSON list, no prose: \
[{\"name\": \"snake_case_name\", \"value\": \"the exact text as it appears in the calls\", \
\"description\": \"one short sentence\"}]. Answer [] when there is nothing to parameterise.";

/// Asks `provider`, in one call, which values of `trajectory` should become parameters, and
/// checks each proposal: the name must match `[a-zA-Z_][a-zA-Z0-9_]*` and be new, the value
/// must be non-empty and occur (delimited) in a step input. Failing proposals are dropped
/// with a reason. Apply the result with [`add_parameters`].
pub async fn identify_parameters(
    provider: &dyn VlmProvider,
    goal: &str,
    trajectory: &[ToolUseBlock],
) -> Result<Identification, RecordError> {
    let steps: Vec<Value> = trajectory
        .iter()
        .enumerate()
        .map(|(index, step)| json!({"index": index, "tool": base_name(&step.name), "input": step.input}))
        .collect();
    let prompt = format!(
        "Goal: {goal}\n\nRecorded tool calls:\n{}",
        serde_json::to_string_pretty(&steps).unwrap_or_default()
    );
    let request =
        MessageRequest::new(vec![Message::user_text(prompt)], 1024).with_system(IDENTIFY_SYSTEM);
    let response = provider.create_message(&request).await?;
    let list = parse_list(&response.text())?;
    Ok(check_proposals(&list, trajectory))
}

/// The JSON list in a model's answer, by the one reader's rules
/// ([`retrace_protocol::answer_json`]).
fn parse_list(text: &str) -> Result<Vec<Value>, RecordError> {
    let unusable = |why: String| {
        RecordError::Identify(format!(
            "the model's answer holds no one JSON list of {{name, value, description}}: {why}"
        ))
    };
    match answer_json::extract(text, Expected::Array) {
        Ok(Value::Array(items)) => Ok(items),
        Ok(other) => Err(unusable(format!("found {other}"))),
        Err(error) => Err(unusable(error.to_string())),
    }
}

fn occurs_in(value: &Value, needle: &str) -> bool {
    match value {
        Value::String(text) => Template::parse(text)
            .tokens()
            .iter()
            .any(|token| match token {
                Token::Literal(literal) => {
                    replace_in_literal(literal, &[("x", needle)]) != *literal
                }
                Token::Parameter(_) => false,
            }),
        Value::Array(items) => items.iter().any(|item| occurs_in(item, needle)),
        Value::Object(map) => map.values().any(|item| occurs_in(item, needle)),
        _ => false,
    }
}

fn check_proposals(list: &[Value], trajectory: &[ToolUseBlock]) -> Identification {
    let mut taken: BTreeSet<String> = parameters_in_trajectory(trajectory);
    let mut result = Identification::default();
    for (index, item) in list.iter().enumerate() {
        let name = item
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let label = if name.is_empty() {
            format!("entry {index}")
        } else {
            name.clone()
        };
        let Some(value) = item.get("value").and_then(Value::as_str) else {
            result
                .dropped
                .push((label, "`value` is missing or not a string".to_owned()));
            continue;
        };
        let reason = if !is_parameter_name(&name) {
            Some("the name does not match [a-zA-Z_][a-zA-Z0-9_]*".to_owned())
        } else if taken.contains(&name) {
            Some("the name is already a parameter".to_owned())
        } else if value.is_empty() {
            Some("the value is empty".to_owned())
        } else if !trajectory.iter().any(|step| occurs_in(&step.input, value)) {
            Some("the value does not occur as a whole word in any step input".to_owned())
        } else {
            None
        };
        if let Some(reason) = reason {
            result.dropped.push((label, reason));
            continue;
        }
        taken.insert(name.clone());
        let description = item
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim()
            .to_owned();
        result.accepted.push(IdentifiedParameter {
            name,
            value: value.to_owned(),
            description,
        });
    }
    result
}

/// askui's description of a parameter: `Parameter for <name>`.
pub fn default_description(name: &str) -> String {
    format!("Parameter for {name}")
}
