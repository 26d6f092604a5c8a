//! A compiled JSON Schema validator, and the translation of `jsonschema` errors into the
//! seed's field-level errors.
//!
//! Validation takes a fast path: `is_valid` first (no allocation on success), the full
//! error walk only when the instance fails. Messages are written for a model to read: an
//! unexpected property lists the allowed ones, an enum lists its values, a `then` branch
//! with a `description` (the decision rules) speaks in that description's words.

use std::sync::Arc;

use jsonschema::error::TypeKind;
use jsonschema::error::ValidationErrorKind;
use jsonschema::paths::LocationSegment;
use serde_json::Value;

use crate::SchemaError;
use crate::SchemaValidationError;
use crate::ValidationResult;

/// A schema with its compiled validator. Cheap to share (`Arc`), safe across threads.
#[derive(Debug)]
pub struct CompiledSchema {
    schema: Arc<Value>,
    validator: jsonschema::Validator,
}

impl CompiledSchema {
    /// Compiles a draft-07 (or `$schema`-declared) schema with `format` assertions on, as
    /// ajv with ajv-formats does.
    pub fn compile(schema: Arc<Value>) -> Result<Self, SchemaError> {
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .map_err(|error| SchemaError::Compile(error.to_string()))?;
        Ok(CompiledSchema { schema, validator })
    }

    /// The schema document.
    pub fn schema(&self) -> &Arc<Value> {
        &self.schema
    }

    /// Whether `instance` satisfies the schema; the fastest question to ask.
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.validator.is_valid(instance)
    }

    /// Validates `instance` against the schema alone (no semantic checks), returning every
    /// error at its field.
    pub fn validate(&self, instance: &Value) -> ValidationResult {
        if self.validator.is_valid(instance) {
            return ValidationResult::ok();
        }
        let mut errors = Vec::new();
        self.collect_errors(instance, &mut errors);
        ValidationResult {
            valid: errors.is_empty(),
            executor_compatible: !errors
                .iter()
                .any(|e| e.path.first().is_some_and(|p| p == "command")),
            errors,
            warnings: Vec::new(),
        }
    }

    /// Appends the schema errors of `instance` to `out`.
    pub(crate) fn collect_errors(&self, instance: &Value, out: &mut Vec<SchemaValidationError>) {
        for error in self.validator.iter_errors(instance) {
            let path = segments(error.instance_path().iter());
            translate(
                &self.schema,
                error.kind(),
                error.instance(),
                path,
                error.schema_path().as_str(),
                out,
            );
        }
    }
}

fn segments<'a>(location: impl Iterator<Item = LocationSegment<'a>>) -> Vec<String> {
    location
        .map(|segment| match segment {
            LocationSegment::Property(name) => name.into_owned(),
            LocationSegment::Index(index) => index.to_string(),
        })
        .collect()
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

fn json_type_name(value: &Value) -> &'static str {
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

fn translate(
    schema: &Value,
    kind: &ValidationErrorKind,
    instance: &Value,
    path: Vec<String>,
    schema_path: &str,
    out: &mut Vec<SchemaValidationError>,
) {
    let owner = keyword_owner(schema, schema_path);
    let rule = rule_description(schema, schema_path);
    match kind {
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            let expected = type_of(declared_property(schema, schema_path, name));
            let message = rule.map_or_else(|| "is required".to_owned(), str::to_owned);
            out.push(SchemaValidationError::at(
                child(&path, name),
                message,
                Value::Null,
                expected,
            ));
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
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
        }
        ValidationErrorKind::Not { schema: negated } => {
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
        }
        ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context } => {
            // When exactly one branch fails on something other than a discriminating constant,
            // that branch is the one meant: report its errors.
            let meant: Vec<_> = context
                .iter()
                .filter(|branch| {
                    !branch
                        .iter()
                        .any(|e| matches!(e.kind(), ValidationErrorKind::Constant { .. }))
                })
                .collect();
            if let [branch] = meant.as_slice() {
                for error in *branch {
                    let inner = segments(error.instance_path().iter());
                    translate(
                        schema,
                        error.kind(),
                        error.instance(),
                        inner,
                        error.schema_path().as_str(),
                        out,
                    );
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
        }
        other => {
            let expected = type_of(owner);
            let message = match other {
                ValidationErrorKind::Type { kind } => {
                    let wanted = match kind {
                        TypeKind::Single(t) => t.as_str().to_owned(),
                        TypeKind::Multiple(set) => set
                            .iter()
                            .map(jsonschema::JsonType::as_str)
                            .collect::<Vec<_>>()
                            .join(" or "),
                    };
                    format!("must be of type {wanted}, got {}", json_type_name(instance))
                }
                ValidationErrorKind::Enum { options } => {
                    format!(
                        "must be one of {}",
                        list_values(options.as_array().map_or(&[][..], Vec::as_slice))
                    )
                }
                ValidationErrorKind::Constant { expected_value } => {
                    format!("must be {expected_value}")
                }
                ValidationErrorKind::Format { format } => format!("must be a valid {format}"),
                ValidationErrorKind::Pattern { pattern } => format!("must match {pattern}"),
                ValidationErrorKind::MinLength { limit: 1 } => "must not be empty".to_owned(),
                ValidationErrorKind::MinLength { limit } => {
                    format!("must be at least {limit} characters")
                }
                ValidationErrorKind::MaxLength { limit } => {
                    format!("must be at most {limit} characters")
                }
                ValidationErrorKind::MinItems { limit } => {
                    format!("must hold at least {limit} items")
                }
                ValidationErrorKind::MaxItems { limit } => {
                    format!("must hold at most {limit} items")
                }
                ValidationErrorKind::Minimum { limit } => format!("must be at least {limit}"),
                ValidationErrorKind::Maximum { limit } => format!("must be at most {limit}"),
                ValidationErrorKind::ExclusiveMinimum { limit } => {
                    format!("must be greater than {limit}")
                }
                ValidationErrorKind::ExclusiveMaximum { limit } => {
                    format!("must be less than {limit}")
                }
                _ => other.keyword().to_owned() + " check failed",
            };
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
    }
}
