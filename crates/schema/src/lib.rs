//! JSON Schemas for structured model answers, strict validation with field-level errors,
//! and the step from a model's command to an executor command.
//!
//! Some models answer more reliably in a fixed JSON shape than through native tool calls.
//! This crate generates those shapes and checks the answers:
//!
//! - **Generation**: [`response_schema`] (a decision PROCEED/RETRY/ABORT with result
//!   validation, reasoning and at most one of five web commands; RETRY requires a command and
//!   ABORT forbids one, in the schema itself), [`analysis_schema`] for six
//!   [`AnalysisType`]s, and [`comparison_schema`]. Options follow the seed
//!   ([`ResponseOptions`], [`AnalysisOptions`], [`ComparisonOptions`]); every schema carries
//!   a versioned `$id`.
//! - **[`SchemaManager`]**: caches schemas and compiled validators by [`SchemaKind`], and
//!   validates an answer into a [`ValidationResult`] — JSON Schema errors at their fields,
//!   plus the [checks](ValidationContext) JSON Schema cannot express (URL schemes, CSS
//!   selector syntax, `${variable}` references, boxes inside the image, size limits).
//! - **[`CompiledSchema`]**: any schema compiled once, with `format` assertions as ajv with
//!   ajv-formats applies them. Draft-07 schemas within the subset retrace uses run on a
//!   specialised validator (typed nodes, `$ref`s resolved, no allocation on success, the
//!   same errors as the `jsonschema` crate, which stays as fallback and reference).
//! - **[`to_executor_command`]**: the model's command, typed, with the session id injected
//!   and `${variable}` references resolved.
//! - **[`parse_model_answer`]**: the one JSON object in an answer wrapped in prose or a
//!   code fence.
//!
//! It does no I/O, holds no async runtime, and does not talk to models or browsers: the
//! task loop (`retrace-agent`) sends the prompts and error reports, `retrace-drive` runs the
//! commands.
//!
//! ```
//! use retrace_schema::{ResponseOptions, SchemaManager, ValidationContext, parse_model_answer};
//!
//! let manager = SchemaManager::new();
//! let answer = parse_model_answer(r#"Here you go:
//! ```json
//! {"decision": {"action": "ABORT", "message": "404 page"},
//!  "reasoning": {"analysis": "404", "rationale": "no page", "expectedOutcome": "stop"},
//!  "command": {"action": "GET_DOM", "parameters": {}}}
//! ```"#).unwrap();
//! let result = manager
//!     .validate_ai_response(&answer, ResponseOptions::default(), &ValidationContext::default())
//!     .unwrap();
//! assert!(!result.valid);
//! assert_eq!(result.errors[0].field, "command");
//! assert_eq!(result.errors[0].message, "decision ABORT forbids a command");
//! ```

#![deny(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod analysis;
mod answer;
mod checks;
mod comparison;
mod compiled;
mod error;
mod fragments;
mod manager;
mod native;
mod options;
mod response;
mod result;
mod selector;
mod transform;
mod translate;
mod variables;

pub use analysis::analysis_schema;
pub use answer::MAX_ANSWER_BYTES;
pub use answer::parse_model_answer;
pub use checks::Limits;
pub use checks::ValidationContext;
pub use comparison::comparison_schema;
pub use compiled::CompiledSchema;
pub use error::SchemaError;
pub use manager::DEFAULT_VERSION;
pub use manager::SchemaKind;
pub use manager::SchemaManager;
pub use options::AnalysisOptions;
pub use options::AnalysisType;
pub use options::ComparisonOptions;
pub use options::ResponseOptions;
pub use options::ValidationMode;
pub use options::split_option;
pub use response::COMMAND_ACTIONS;
pub use response::DECISION_ACTIONS;
pub use response::VARIABLE_NAME_PATTERN;
pub use response::command_parameters_schema;
pub use response::executor_command_schemas;
pub use response::response_schema;
pub use result::SchemaValidationError;
pub use result::ValidationResult;
pub use result::field_name;
pub use selector::SelectorError;
pub use selector::check_selector;
pub use transform::ExecutorCommand;
pub use transform::SessionState;
pub use transform::WebCommand;
pub use transform::to_executor_command;
pub use variables::Token;
pub use variables::references;
pub use variables::substitute;
pub use variables::tokenize;
