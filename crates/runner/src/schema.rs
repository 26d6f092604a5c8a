//! `retrace schema`'s work: the JSON Schemas models answer in, and the validation of an
//! answer against them with field-level errors. The CLI parses the flags and prints.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::Path;

use retrace_schema::AnalysisOptions;
use retrace_schema::AnalysisType;
use retrace_schema::ComparisonOptions;
use retrace_schema::ResponseOptions;
use retrace_schema::SchemaKind;
use retrace_schema::SchemaManager;
use retrace_schema::ValidationContext;
use retrace_schema::ValidationMode;
use retrace_schema::ValidationResult;
use retrace_schema::parse_model_answer;
use retrace_schema::split_option;
use serde::Serialize;

use crate::failure::Context;
use crate::failure::Failure;

/// Which schema.
#[derive(Debug, Clone, Copy)]
pub enum Target<'a> {
    /// The agent response schema.
    Response,
    /// A screenshot analysis schema of this type (`UI_STRUCTURE`, ...).
    Analysis(&'a str),
    /// The screenshot comparison schema.
    Comparison,
}

/// A schema as asked for: the target, the `KEY=VALUE` options, lenient mode, a version.
#[derive(Debug, Clone, Copy)]
pub struct SchemaRequest<'a> {
    /// Which schema.
    pub target: Target<'a>,
    /// Generation options (`KEY=VALUE`, the seed's keys).
    pub options: &'a [String],
    /// Lenient validation mode.
    pub lenient: bool,
    /// Version stamped into the schema's `$id`.
    pub version: Option<&'a str>,
}

/// The result of validating one answer; serializes as `{valid, errors, warnings,
/// executor_compatible}`.
#[derive(Debug, Clone, Serialize)]
#[serde(transparent)]
pub struct Validation(ValidationResult);

/// One error of a [`Validation`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// Where and what (`command.type: ...`).
    pub text: String,
    /// The value found, as JSON.
    pub value: String,
    /// The type expected there.
    pub expected_type: String,
}

impl Validation {
    /// No errors.
    pub fn valid(&self) -> bool {
        self.0.valid
    }

    /// Every error, in document order of discovery.
    pub fn errors(&self) -> Vec<FieldError> {
        self.0
            .errors
            .iter()
            .map(|error| FieldError {
                text: error.to_string(),
                value: error.value.to_string(),
                expected_type: error.expected_type.to_string(),
            })
            .collect()
    }

    /// Findings that do not make the answer invalid (`field: message`).
    pub fn warnings(&self) -> &[String] {
        &self.0.warnings
    }

    /// Whether the executor could run the answer's command as written.
    pub fn executor_compatible(&self) -> bool {
        self.0.executor_compatible
    }
}

fn manager(request: &SchemaRequest<'_>) -> Result<SchemaManager, Failure> {
    let mut manager = SchemaManager::new();
    if let Some(version) = request.version {
        manager
            .update_schema_version(version)
            .map_err(Failure::of)?;
    }
    Ok(manager)
}

/// Resolves the target and the options into a schema kind.
fn kind_for(request: &SchemaRequest<'_>) -> Result<SchemaKind, Failure> {
    let pairs = request
        .options
        .iter()
        .map(|pair| split_option(pair))
        .collect::<Result<Vec<_>, _>>()
        .map_err(Failure::of)?;
    let mode = if request.lenient {
        Some(ValidationMode::Lenient)
    } else {
        None
    };
    Ok(match request.target {
        Target::Response => {
            let mut o = ResponseOptions::default();
            for (k, v) in pairs {
                o.set(k, v).map_err(Failure::of)?;
            }
            o.validation_mode = mode.unwrap_or(o.validation_mode);
            SchemaKind::Response(o)
        }
        Target::Analysis(name) => {
            let kind: AnalysisType = name.parse().map_err(Failure::of)?;
            let mut o = AnalysisOptions::default();
            for (k, v) in pairs {
                o.set(k, v).map_err(Failure::of)?;
            }
            o.validation_mode = mode.unwrap_or(o.validation_mode);
            SchemaKind::Analysis(kind, o)
        }
        Target::Comparison => {
            let mut o = ComparisonOptions::default();
            for (k, v) in pairs {
                o.set(k, v).map_err(Failure::of)?;
            }
            o.validation_mode = mode.unwrap_or(o.validation_mode);
            SchemaKind::Comparison(o)
        }
    })
}

/// The schema asked for, as JSON.
pub fn generate(request: &SchemaRequest<'_>) -> Result<serde_json::Value, Failure> {
    let manager = manager(request)?;
    let kind = kind_for(request)?;
    Ok((*manager.schema(kind)).clone())
}

fn read_answer(file: &Path) -> Result<serde_json::Value, Failure> {
    let text = if file == Path::new("-") {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("cannot read the answer from stdin")?;
        text
    } else {
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?
    };
    parse_model_answer(&text).with_context(|| format!("{}", file.display()))
}

/// Validates the answer in `file` (`-`: stdin), which may be wrapped in prose or a code
/// fence; `variables`, when not empty, are the only names `${name}` may reference;
/// `image_size` bounds boxes.
pub fn validate(
    request: &SchemaRequest<'_>,
    file: &Path,
    variables: Vec<String>,
    image_size: Option<(f64, f64)>,
) -> Result<Validation, Failure> {
    let manager = manager(request)?;
    let kind = kind_for(request)?;
    let answer = read_answer(file)?;
    let context = ValidationContext {
        known_variables: (!variables.is_empty())
            .then(|| variables.into_iter().collect::<BTreeSet<_>>()),
        image_size,
        ..ValidationContext::default()
    };
    let result = manager
        .validate(kind, &answer, &context)
        .map_err(Failure::of)?;
    Ok(Validation(result))
}
