//! The translation of raw JSON Schema errors into the seed's field-level errors.
//!
//! Both engines (the specialised validator in [`crate::native`] and the `jsonschema` crate
//! it falls back to) report failures as [`RawError`]s: the failing keyword, the instance at
//! fault, its path and the keyword's location in the schema. This module turns them into
//! messages written for a model to read: an unexpected property lists the allowed ones, an
//! enum lists its values, a `then` branch with a `description` (the decision rules) speaks
//! in that description's words.

use std::borrow::Cow;

use serde_json::Value;

use crate::SchemaValidationError;

/// One failing keyword, as either engine reports it.
#[derive(Debug)]
pub(crate) struct RawError<'a> {
    /// Which keyword failed, with what it demanded.
    pub(crate) kind: RawKind<'a>,
    /// The instance the keyword was applied to.
    pub(crate) instance: &'a Value,
    /// Where that instance is in the answer.
    pub(crate) path: Vec<String>,
    /// JSON pointer of the keyword in the schema document (`/properties/a/type`), through
    /// `$ref`s resolved to their target's own location.
    pub(crate) schema_path: Cow<'a, str>,
}

/// The failing keyword and its demand.
#[derive(Debug)]
pub(crate) enum RawKind<'a> {
    /// `required`: this property is missing.
    Required(&'a str),
    /// `additionalProperties: false`: these properties are not allowed.
    AdditionalProperties(Vec<&'a str>),
    /// `not`: the instance matches this schema.
    Not(&'a Value),
    /// `anyOf`, or `oneOf` with no branch matching: each branch's errors.
    NoBranch(Vec<Vec<RawError<'a>>>),
    /// `type`: the wanted type(s), written `a or b`.
    Type(Cow<'a, str>),
    /// `enum` with these options.
    Enum(&'a Value),
    /// `const` with this value.
    Const(&'a Value),
    /// `format` with this name.
    Format(&'a str),
    /// `pattern` with this source.
    Pattern(&'a str),
    /// `minLength`.
    MinLength(u64),
    /// `maxLength`.
    MaxLength(u64),
    /// `minItems`.
    MinItems(u64),
    /// `maxItems`.
    MaxItems(u64),
    /// `minimum`.
    Minimum(&'a Value),
    /// `maximum`.
    Maximum(&'a Value),
    /// `exclusiveMinimum`.
    ExclusiveMinimum(&'a Value),
    /// `exclusiveMaximum`.
    ExclusiveMaximum(&'a Value),
    /// Any other keyword (`oneOf` matching several branches, for one).
    Other(Cow<'a, str>),
}

/// The schema object that holds the failing keyword (`schema_path` minus its last segment).
fn keyword_owner<'s>(schema: &'s Value, schema_path: &str) -> Option<&'s Value> {
    let (parent, _) = schema_path.rsplit_once('/')?;
    schema.pointer(parent)
}

/// The schema declaring property `name` for the object a keyword applies to: the keyword's
/// own schema, or (for a rule in `allOf`/`then`) the nearest enclosing one declaring it.
fn declared_property<'s>(schema: &'s Value, schema_path: &str, name: &str) -> Option<&'s Value> {
    let mut path = schema_path;
    while let Some((parent, _)) = path.rsplit_once('/') {
        if let Some(found) = schema
            .pointer(parent)
            .and_then(|o| o.get("properties")?.get(name))
        {
            return Some(found);
        }
        path = parent;
    }
    None
}

fn type_of(schema: Option<&Value>) -> String {
    let Some(schema) = schema else {
        return "any".to_owned();
    };
    let base = match schema.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        _ => {
            if let Some(Value::Array(values)) = schema.get("enum") {
                return format!("one of {}", list_values(values));
            }
            if let Some(value) = schema.get("const") {
                return format!("exactly {value}");
            }
            "any".to_owned()
        }
    };
    if let Some(Value::String(format)) = schema.get("format") {
        return format!("{base} ({format})");
    }
    base
}

fn list_values(values: &[Value]) -> String {
    values
        .iter()
        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The JSON type name of `value` as JSON Schema words it (`integer` for whole numbers).
pub(crate) fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn child(path: &[String], name: &str) -> Vec<String> {
    let mut path = path.to_vec();
    path.push(name.to_owned());
    path
}

/// The `description` of the `then` (or `else`) branch a keyword sits in, if it has one: the
/// schema author's words for a conditional rule.
fn rule_description<'s>(schema: &'s Value, schema_path: &str) -> Option<&'s str> {
    let mut path = schema_path;
    while let Some((parent, last)) = path.rsplit_once('/') {
        if last == "then" || last == "else" {
            return schema.pointer(path)?.get("description")?.as_str();
        }
        path = parent;
    }
    None
}

/// Appends the field-level errors `error` stands for to `out`.
pub(crate) fn translate(schema: &Value, error: RawError<'_>, out: &mut Vec<SchemaValidationError>) {
    let RawError {
        kind,
        instance,
        path,
        schema_path,
    } = error;
    let schema_path = schema_path.as_ref();
    let owner = keyword_owner(schema, schema_path);
    let rule = rule_description(schema, schema_path);
    let message = match kind {
        RawKind::Required(name) => {
            let expected = type_of(declared_property(schema, schema_path, name));
            let message = rule.map_or_else(|| "is required".to_owned(), str::to_owned);
            out.push(SchemaValidationError::at(
                child(&path, name),
                message,
                Value::Null,
                expected,
            ));
            return;
        }
        RawKind::AdditionalProperties(unexpected) => {
            let allowed = owner
                .and_then(|o| o.get("properties")?.as_object())
                .map(|p| p.keys().map(String::as_str).collect::<Vec<_>>().join(", "))
                .unwrap_or_default();
            for name in unexpected {
                let message = if allowed.is_empty() {
                    "is not allowed here: this object takes no fields".to_owned()
                } else {
                    format!("is not allowed here; allowed fields: {allowed}")
                };
                let value = instance.get(name).cloned().unwrap_or(Value::Null);
                out.push(SchemaValidationError::at(
                    child(&path, name),
                    message,
                    value,
                    "nothing",
                ));
            }
            return;
        }
        RawKind::Not(negated) => {
            // `not: {required: [x]}` forbids a field: report it at that field.
            let forbidden = negated
                .get("required")
                .and_then(Value::as_array)
                .and_then(|r| r.first())
                .and_then(Value::as_str);
            let message = rule.unwrap_or("is not allowed here").to_owned();
            match forbidden {
                Some(name) => {
                    let value = instance.get(name).cloned().unwrap_or(Value::Null);
                    out.push(SchemaValidationError::at(
                        child(&path, name),
                        message,
                        value,
                        "nothing",
                    ));
                }
                None => out.push(SchemaValidationError::at(
                    path,
                    message,
                    instance.clone(),
                    "any",
                )),
            }
            return;
        }
        RawKind::NoBranch(mut context) => {
            // When exactly one branch fails on something other than a discriminating constant,
            // that branch is the one meant: report its errors.
            let meant: Vec<usize> = context
                .iter()
                .enumerate()
                .filter(|(_, branch)| !branch.iter().any(|e| matches!(e.kind, RawKind::Const(_))))
                .map(|(i, _)| i)
                .collect();
            if let [only] = meant.as_slice() {
                for error in context.swap_remove(*only) {
                    translate(schema, error, out);
                }
                return;
            }
            let expected = type_of(owner);
            let message = match owner
                .and_then(|o| o.get("description"))
                .and_then(Value::as_str)
            {
                Some(description) => format!("matches none of the allowed forms: {description}"),
                None => "matches none of the allowed forms".to_owned(),
            };
            out.push(SchemaValidationError::at(
                path,
                message,
                instance.clone(),
                expected,
            ));
            return;
        }
        RawKind::Type(wanted) => {
            format!("must be of type {wanted}, got {}", json_type_name(instance))
        }
        RawKind::Enum(options) => format!(
            "must be one of {}",
            list_values(options.as_array().map_or(&[][..], Vec::as_slice))
        ),
        RawKind::Const(expected) => format!("must be {expected}"),
        RawKind::Format(format) => format!("must be a valid {format}"),
        RawKind::Pattern(pattern) => format!("must match {pattern}"),
        RawKind::MinLength(1) => "must not be empty".to_owned(),
        RawKind::MinLength(limit) => format!("must be at least {limit} characters"),
        RawKind::MaxLength(limit) => format!("must be at most {limit} characters"),
        RawKind::MinItems(limit) => format!("must hold at least {limit} items"),
        RawKind::MaxItems(limit) => format!("must hold at most {limit} items"),
        RawKind::Minimum(limit) => format!("must be at least {limit}"),
        RawKind::Maximum(limit) => format!("must be at most {limit}"),
        RawKind::ExclusiveMinimum(limit) => format!("must be greater than {limit}"),
        RawKind::ExclusiveMaximum(limit) => format!("must be less than {limit}"),
        RawKind::Other(keyword) => format!("{keyword} check failed"),
    };
    let expected = type_of(owner);
    let message = match rule {
        Some(rule) => format!("{message} ({rule})"),
        None => message,
    };
    out.push(SchemaValidationError::at(
        path,
        message,
        instance.clone(),
        expected,
    ));
}
