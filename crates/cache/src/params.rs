//! Trajectory parameters: `{{name}}` placeholders in step inputs (and the goal), with names
//! `[a-zA-Z_][a-zA-Z0-9_]*` as askui defines them.
//!
//! Text is parsed once into [`Template`] tokens; substitution replaces whole placeholder
//! tokens with their values, never searching and replacing substrings, so overlapping names,
//! braces inside values and values that look like placeholders are all handled exactly.
//! A placeholder without a value, or a value for a name the trajectory does not use, is an
//! error naming every such name. Values may be secrets: [`ParameterValues`] never prints them.

use std::collections::BTreeMap;
use std::collections::BTreeSet;

use retrace_protocol::ToolUseBlock;
use serde_json::Value;

use crate::error::CacheError;
use crate::error::Result;

/// One piece of parsed text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// Text kept as it is (including braces that are not a valid placeholder).
    Literal(String),
    /// A `{{name}}` placeholder.
    Parameter(String),
}

/// Text parsed into literal pieces and placeholders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    tokens: Vec<Token>,
}

impl Template {
    /// Parses `text`. Never fails: anything that is not a valid `{{name}}` is literal text.
    ///
    /// ```
    /// use retrace_cache::params::{Template, Token};
    /// let t = Template::parse("search {{term}} {{ not_one }}");
    /// assert_eq!(t.parameters().collect::<Vec<_>>(), ["term"]);
    /// ```
    pub fn parse(text: &str) -> Template {
        let mut tokens = Vec::new();
        let mut literal = String::new();
        let mut rest = text;
        while let Some(open) = rest.find("{{") {
            let after = &rest[open + 2..];
            let name_len = after
                .char_indices()
                .find(|&(i, c)| {
                    !(c == '_' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit()))
                })
                .map_or(after.len(), |(i, _)| i);
            if name_len > 0 && after[name_len..].starts_with("}}") {
                literal.push_str(&rest[..open]);
                if !literal.is_empty() {
                    tokens.push(Token::Literal(std::mem::take(&mut literal)));
                }
                tokens.push(Token::Parameter(after[..name_len].to_owned()));
                rest = &after[name_len + 2..];
            } else {
                // Not a placeholder: keep one `{` and look again from the next character, so
                // `{{{name}}` still finds `{{name}}`.
                literal.push_str(&rest[..open + 1]);
                rest = &rest[open + 1..];
            }
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            tokens.push(Token::Literal(literal));
        }
        Template { tokens }
    }

    /// The tokens, in order.
    pub fn tokens(&self) -> &[Token] {
        &self.tokens
    }

    /// The parameter names used, in order of appearance (repeats included).
    pub fn parameters(&self) -> impl Iterator<Item = &str> {
        self.tokens.iter().filter_map(|t| match t {
            Token::Parameter(name) => Some(name.as_str()),
            Token::Literal(_) => None,
        })
    }

    /// The text with every placeholder replaced by its value. Fails naming every parameter
    /// that has no value.
    pub fn render(&self, values: &ParameterValues) -> Result<String> {
        let missing: BTreeSet<&str> = self
            .parameters()
            .filter(|n| !values.0.contains_key(*n))
            .collect();
        if !missing.is_empty() {
            return Err(CacheError::MissingParameters {
                names: missing.into_iter().map(str::to_owned).collect(),
            });
        }
        let mut out = String::new();
        for token in &self.tokens {
            match token {
                Token::Literal(text) => out.push_str(text),
                Token::Parameter(name) => {
                    out.push_str(values.0.get(name).map_or("", String::as_str))
                }
            }
        }
        Ok(out)
    }
}

/// Parameter values for a replay. Values may be secrets: `Debug` shows only the names.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ParameterValues(BTreeMap<String, String>);

impl std::fmt::Debug for ParameterValues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.0.keys().map(|k| (k, "<redacted>")))
            .finish()
    }
}

impl ParameterValues {
    /// No values.
    pub fn new() -> Self {
        ParameterValues::default()
    }

    /// Sets the value of parameter `name`.
    pub fn insert(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.0.insert(name.into(), value.into());
    }

    /// The names that have a value.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }

    /// The values, for scrubbing them out of logs and printed text (they are secrets).
    pub fn values(&self) -> impl Iterator<Item = &str> {
        self.0.values().map(String::as_str)
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for ParameterValues {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        ParameterValues(
            iter.into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        )
    }
}

/// Every parameter name used in the strings of `value` (object keys are not templated).
pub fn parameters_in_value(value: &Value) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    collect(value, &mut names);
    names
}

fn collect(value: &Value, names: &mut BTreeSet<String>) {
    match value {
        Value::String(text) => names.extend(Template::parse(text).parameters().map(str::to_owned)),
        Value::Array(items) => items.iter().for_each(|v| collect(v, names)),
        Value::Object(map) => map.values().for_each(|v| collect(v, names)),
        _ => {}
    }
}

/// Every parameter name used in the inputs of `trajectory`, sorted; a dialog's answer kept
/// with its step ([`crate::fields::DIALOGS`]) is input too.
pub fn parameters_in_trajectory(trajectory: &[ToolUseBlock]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for step in trajectory {
        collect(&step.input, &mut names);
        if let Some(dialogs) = step.extra.get(crate::fields::DIALOGS) {
            collect(dialogs, &mut names);
        }
    }
    names
}

/// `value` with placeholders in every string replaced. Fails naming every missing parameter.
pub fn substitute_value(value: &Value, values: &ParameterValues) -> Result<Value> {
    let missing: BTreeSet<String> = parameters_in_value(value)
        .into_iter()
        .filter(|n| !values.0.contains_key(n))
        .collect();
    if !missing.is_empty() {
        return Err(CacheError::MissingParameters {
            names: missing.into_iter().collect(),
        });
    }
    Ok(substitute_checked(value, values))
}

fn substitute_checked(value: &Value, values: &ParameterValues) -> Value {
    match value {
        Value::String(text) => {
            let template = Template::parse(text);
            Value::String(template.render(values).unwrap_or_else(|_| text.clone()))
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| substitute_checked(v, values))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), substitute_checked(v, values)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The trajectory with every step's input filled in. Checks the whole trajectory first: a
/// value for a name no step uses is refused ([`CacheError::UnknownParameters`]), and so is a
/// placeholder without a value ([`CacheError::MissingParameters`], naming all of them).
pub fn substitute_trajectory(
    trajectory: &[ToolUseBlock],
    values: &ParameterValues,
) -> Result<Vec<ToolUseBlock>> {
    let used = parameters_in_trajectory(trajectory);
    let unknown: Vec<String> = values
        .names()
        .filter(|n| !used.contains(*n))
        .map(str::to_owned)
        .collect();
    if !unknown.is_empty() {
        return Err(CacheError::UnknownParameters {
            names: unknown,
            known: used.into_iter().collect(),
        });
    }
    let missing: Vec<String> = used
        .iter()
        .filter(|n| !values.0.contains_key(*n))
        .cloned()
        .collect();
    if !missing.is_empty() {
        return Err(CacheError::MissingParameters { names: missing });
    }
    Ok(trajectory
        .iter()
        .map(|step| ToolUseBlock {
            input: substitute_checked(&step.input, values),
            ..step.clone()
        })
        .collect())
}

#[cfg(test)]
#[path = "params_tests.rs"]
mod tests;
