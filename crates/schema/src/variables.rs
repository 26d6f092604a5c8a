//! `${name}` references in command parameters: parsed once into tokens, then checked or
//! substituted exactly (no re-expansion of substituted text, unknown names rejected).
//!
//! A `$` not followed by `{` is literal text. A `${` must be closed by `}` and hold a name
//! matching `^[a-zA-Z_][a-zA-Z0-9_]*$`.

use std::collections::BTreeMap;

use crate::SchemaError;

/// A piece of a parameter value: literal text or a variable reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token<'a> {
    /// Text kept as is.
    Text(&'a str),
    /// A `${name}` reference (the name only).
    Variable(&'a str),
}

fn is_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Splits `value` into text and references; `field` names the parameter in errors.
pub fn tokenize<'a>(value: &'a str, field: &'static str) -> Result<Vec<Token<'a>>, SchemaError> {
    let mut tokens = Vec::new();
    let mut rest = 0;
    let mut search = 0;
    while let Some(found) = value[search..].find("${") {
        let at = search + found;
        let Some(close) = value[at + 2..].find('}') else {
            return Err(SchemaError::BadVariableReference {
                field,
                at,
                reason: "`${` is not closed by `}`",
            });
        };
        let name = &value[at + 2..at + 2 + close];
        if !is_name(name) {
            return Err(SchemaError::BadVariableReference {
                field,
                at,
                reason: "a variable name starts with a letter or `_` and holds only letters, digits and `_`",
            });
        }
        if at > rest {
            tokens.push(Token::Text(&value[rest..at]));
        }
        tokens.push(Token::Variable(name));
        rest = at + 2 + close + 1;
        search = rest;
    }
    if rest < value.len() {
        tokens.push(Token::Text(&value[rest..]));
    }
    Ok(tokens)
}

/// The names `value` refers to, in order (duplicates kept).
pub fn references<'a>(value: &'a str, field: &'static str) -> Result<Vec<&'a str>, SchemaError> {
    Ok(tokenize(value, field)?
        .into_iter()
        .filter_map(|t| match t {
            Token::Variable(name) => Some(name),
            Token::Text(_) => None,
        })
        .collect())
}

/// Replaces every reference in `value` by its saved value; an unknown name is an error that
/// names it and lists the saved ones (names only, never values).
pub fn substitute(
    value: &str,
    field: &'static str,
    variables: &BTreeMap<String, String>,
) -> Result<String, SchemaError> {
    let mut out = String::with_capacity(value.len());
    for token in tokenize(value, field)? {
        match token {
            Token::Text(text) => out.push_str(text),
            Token::Variable(name) => match variables.get(name) {
                Some(saved) => out.push_str(saved),
                None => {
                    return Err(SchemaError::UnknownVariable {
                        field,
                        name: name.to_owned(),
                        known: known_names(variables.keys().map(String::as_str)),
                    });
                }
            },
        }
    }
    Ok(out)
}

/// Names joined by `, `, or `none`.
pub(crate) fn known_names<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let joined = names.collect::<Vec<_>>().join(", ");
    if joined.is_empty() {
        "none".to_owned()
    } else {
        joined
    }
}
