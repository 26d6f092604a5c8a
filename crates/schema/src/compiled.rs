//! A compiled JSON Schema validator: the specialised engine ([`crate::native`]) when the
//! schema stays inside its subset, the `jsonschema` crate otherwise; and the conversion of
//! `jsonschema` errors into the raw errors both engines share.
//!
//! Validation takes a fast path: `is_valid` first (no allocation on success), the full
//! error walk only when the instance fails. The `jsonschema` validator is always built too:
//! it is the reference the differential tests compare the specialised engine against.

use std::borrow::Cow;
use std::sync::Arc;

use jsonschema::error::TypeKind;
use jsonschema::error::ValidationErrorKind;
use jsonschema::paths::LocationSegment;
use serde_json::Value;

use crate::SchemaError;
use crate::SchemaValidationError;
use crate::ValidationResult;
use crate::native;
use crate::translate::RawError;
use crate::translate::RawKind;
use crate::translate::translate;

/// A schema with its compiled validator. Cheap to share (`Arc`), safe across threads.
#[derive(Debug)]
pub struct CompiledSchema {
    schema: Arc<Value>,
    /// The specialised validator; `None` when the schema uses something outside its subset.
    native: Option<native::Node>,
    /// Why the specialised validator does not run this schema, when it does not.
    fallback_reason: Option<String>,
    /// The `jsonschema` crate's validator: the fallback, and the reference.
    reference: jsonschema::Validator,
}

impl CompiledSchema {
    /// Compiles a draft-07 (or `$schema`-declared) schema with `format` assertions on, as
    /// ajv with ajv-formats does. A draft-07 schema within the specialised validator's
    /// subset runs on it; any other schema runs on the `jsonschema` crate.
    pub fn compile(schema: Arc<Value>) -> Result<Self, SchemaError> {
        let reference = jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .map_err(|error| SchemaError::Compile(error.to_string()))?;
        let (native, fallback_reason) = match native::compile::compile(&schema) {
            Ok(node) => (Some(node), None),
            Err(native::compile::Unsupported(reason)) => (None, Some(reason)),
        };
        Ok(CompiledSchema {
            schema,
            native,
            fallback_reason,
            reference,
        })
    }

    /// Compiles `schema` for the `jsonschema` crate only, never the specialised validator:
    /// the reference that differential tests and benchmarks compare against.
    pub fn compile_reference(schema: Arc<Value>) -> Result<Self, SchemaError> {
        let mut compiled = CompiledSchema::compile(schema)?;
        compiled.native = None;
        compiled.fallback_reason = Some("compiled as the reference".to_owned());
        Ok(compiled)
    }

    /// The schema document.
    pub fn schema(&self) -> &Arc<Value> {
        &self.schema
    }

    /// Why this schema runs on the `jsonschema` crate rather than the specialised validator
    /// (`None` when it runs on the specialised one): the unsupported keyword and where.
    pub fn fallback_reason(&self) -> Option<&str> {
        self.fallback_reason.as_deref()
    }

    /// Whether `instance` satisfies the schema; the fastest question to ask.
    pub fn is_valid(&self, instance: &Value) -> bool {
        match &self.native {
            Some(node) => native::walk::is_valid(node, instance),
            None => self.reference.is_valid(instance),
        }
    }

    /// Validates `instance` against the schema alone (no semantic checks), returning every
    /// error at its field.
    pub fn validate(&self, instance: &Value) -> ValidationResult {
        if self.is_valid(instance) {
            return ValidationResult::ok();
        }
        self.report(instance)
    }

    /// The result for an instance known to fail.
    fn report(&self, instance: &Value) -> ValidationResult {
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
        match &self.native {
            Some(node) => {
                let mut raw = Vec::new();
                native::report::collect(node, instance, &mut raw);
                for error in raw {
                    translate(&self.schema, error, out);
                }
            }
            None => {
                for error in self.reference.iter_errors(instance) {
                    translate(&self.schema, raw(&error), out);
                }
            }
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

/// A `jsonschema` error as a [`RawError`].
fn raw<'a>(error: &'a jsonschema::ValidationError<'_>) -> RawError<'a> {
    let kind = match error.kind() {
        ValidationErrorKind::Required { property } => {
            RawKind::Required(property.as_str().unwrap_or_default())
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            RawKind::AdditionalProperties(unexpected.iter().map(String::as_str).collect())
        }
        ValidationErrorKind::Not { schema } => RawKind::Not(schema),
        ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context } => {
            RawKind::NoBranch(
                context
                    .iter()
                    .map(|branch| branch.iter().map(raw).collect())
                    .collect(),
            )
        }
        ValidationErrorKind::Type { kind } => RawKind::Type(match kind {
            TypeKind::Single(t) => Cow::Borrowed(t.as_str()),
            TypeKind::Multiple(set) => Cow::Owned(
                set.iter()
                    .map(jsonschema::JsonType::as_str)
                    .collect::<Vec<_>>()
                    .join(" or "),
            ),
        }),
        ValidationErrorKind::Enum { options } => RawKind::Enum(options),
        ValidationErrorKind::Constant { expected_value } => RawKind::Const(expected_value),
        ValidationErrorKind::Format { format } => RawKind::Format(format),
        ValidationErrorKind::Pattern { pattern } => RawKind::Pattern(pattern),
        ValidationErrorKind::MinLength { limit } => RawKind::MinLength(*limit),
        ValidationErrorKind::MaxLength { limit } => RawKind::MaxLength(*limit),
        ValidationErrorKind::MinItems { limit } => RawKind::MinItems(*limit),
        ValidationErrorKind::MaxItems { limit } => RawKind::MaxItems(*limit),
        ValidationErrorKind::Minimum { limit } => RawKind::Minimum(limit),
        ValidationErrorKind::Maximum { limit } => RawKind::Maximum(limit),
        ValidationErrorKind::ExclusiveMinimum { limit } => RawKind::ExclusiveMinimum(limit),
        ValidationErrorKind::ExclusiveMaximum { limit } => RawKind::ExclusiveMaximum(limit),
        other => RawKind::Other(Cow::Borrowed(other.keyword())),
    };
    RawError {
        kind,
        instance: error.instance().as_ref(),
        path: segments(error.instance_path().iter()),
        schema_path: Cow::Borrowed(error.schema_path().as_str()),
    }
}
