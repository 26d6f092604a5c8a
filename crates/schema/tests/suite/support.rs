//! Helpers the test modules share: fixtures, expected errors, validation shortcuts.

use std::path::PathBuf;

use retrace_schema::AnalysisOptions;
use retrace_schema::AnalysisType;
use retrace_schema::ComparisonOptions;
use retrace_schema::ResponseOptions;
use retrace_schema::SchemaKind;
use retrace_schema::SchemaManager;
use retrace_schema::SchemaValidationError;
use retrace_schema::ValidationContext;
use retrace_schema::ValidationResult;
use serde_json::Value;

/// `crates/schema/tests/fixtures/`.
pub fn fixtures_dir() -> PathBuf {
    retrace_test_support::package_dir()
        .join("tests")
        .join("fixtures")
}

/// A fixture by file stem (`seed_response_retry`).
pub fn fixture(name: &str) -> Value {
    retrace_test_support::read_json(&fixtures_dir().join(format!("{name}.json")))
}

/// The error expected at `path`.
pub fn err(
    path: &[&str],
    message: &str,
    value: Value,
    expected_type: &str,
) -> SchemaValidationError {
    SchemaValidationError::at(
        path.iter().map(|s| (*s).to_owned()).collect(),
        message,
        value,
        expected_type,
    )
}

/// Validates with a fresh manager.
pub fn validate(kind: SchemaKind, answer: &Value, context: &ValidationContext) -> ValidationResult {
    SchemaManager::new()
        .validate(kind, answer, context)
        .unwrap()
}

/// Validates an agent response with default options and context.
pub fn response(answer: &Value) -> ValidationResult {
    validate(
        SchemaKind::Response(ResponseOptions::default()),
        answer,
        &ValidationContext::default(),
    )
}

/// Validates an analysis answer with default options and context.
pub fn analysis(kind: AnalysisType, answer: &Value) -> ValidationResult {
    validate(
        SchemaKind::Analysis(kind, AnalysisOptions::default()),
        answer,
        &ValidationContext::default(),
    )
}

/// Validates a comparison answer with `options` and the default context.
pub fn comparison(options: ComparisonOptions, answer: &Value) -> ValidationResult {
    validate(
        SchemaKind::Comparison(options),
        answer,
        &ValidationContext::default(),
    )
}

/// Asserts the answer is valid, with no warnings, showing the errors otherwise.
pub fn assert_clean(result: &ValidationResult) {
    assert!(
        result.valid,
        "unexpected errors:\n{}",
        result.error_report()
    );
    assert_eq!(result.warnings, Vec::<String>::new());
    assert!(result.executor_compatible);
}
