//! What validation returns: the seed's `ValidationResult` with field-level errors.

use serde::Deserialize;
use serde::Serialize;
use serde_json::Value;

/// One finding at one field of the answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SchemaValidationError {
    /// Dotted path of the field (`command.parameters.url`, `visualElements[0].boundingBox`);
    /// empty for the answer itself.
    pub field: String,
    /// What is wrong, written so that a model can correct its answer.
    pub message: String,
    /// The offending value (`null` when the field is missing).
    pub value: Value,
    /// What the field should hold (`string`, `string (uri)`, `one of PROCEED, RETRY, ABORT`).
    pub expected_type: String,
    /// The path as segments (`["command", "parameters", "url"]`); indices are decimal.
    pub path: Vec<String>,
}

impl SchemaValidationError {
    /// Builds an error at `path`, deriving `field` from it.
    pub fn at(
        path: Vec<String>,
        message: impl Into<String>,
        value: Value,
        expected_type: impl Into<String>,
    ) -> Self {
        SchemaValidationError {
            field: field_name(&path),
            message: message.into(),
            value,
            expected_type: expected_type.into(),
            path,
        }
    }
}

impl std::fmt::Display for SchemaValidationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let field = if self.field.is_empty() {
            "(answer)"
        } else {
            &self.field
        };
        write!(f, "{field}: {}", self.message)
    }
}

/// Joins path segments into a dotted field name, writing indices as `[i]`.
pub fn field_name(path: &[String]) -> String {
    let mut out = String::new();
    for segment in path {
        if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
            out.push('[');
            out.push_str(segment);
            out.push(']');
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(segment);
        }
    }
    out
}

/// The outcome of validating one answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValidationResult {
    /// No errors.
    pub valid: bool,
    /// Every error, in document order of discovery.
    pub errors: Vec<SchemaValidationError>,
    /// Findings that do not make the answer invalid (`field: message`).
    pub warnings: Vec<String>,
    /// No error lies in the answer's command, so the executor could run it (vacuously
    /// true for an answer without a command). For analysis and comparison answers, which
    /// carry no command, it equals `valid`.
    pub executor_compatible: bool,
}

impl ValidationResult {
    /// A result with no findings.
    pub fn ok() -> Self {
        ValidationResult {
            valid: true,
            errors: Vec::new(),
            warnings: Vec::new(),
            executor_compatible: true,
        }
    }

    /// The errors as one text for a model to read, one `field: message` per line.
    pub fn error_report(&self) -> String {
        self.errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    }
}
