//! [`SchemaManager`]: generated schemas and compiled validators, cached by options and
//! stamped with a version; validation = schema errors + semantic checks.

use std::collections::BTreeSet;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::PoisonError;

use serde_json::Map;
use serde_json::Value;

use crate::AnalysisOptions;
use crate::AnalysisType;
use crate::ComparisonOptions;
use crate::CompiledSchema;
use crate::ResponseOptions;
use crate::SchemaError;
use crate::ValidationContext;
use crate::ValidationMode;
use crate::ValidationResult;
use crate::checks;
use crate::checks::Findings;

/// The schema version a new manager stamps.
pub const DEFAULT_VERSION: &str = "1.0.0";

/// Which schema: the kind and its options. Doubles as the cache key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SchemaKind {
    /// The agent response schema.
    Response(ResponseOptions),
    /// A screenshot analysis schema.
    Analysis(AnalysisType, AnalysisOptions),
    /// The screenshot comparison schema.
    Comparison(ComparisonOptions),
}

impl SchemaKind {
    /// Generates the schema document, uncached.
    pub fn generate(self, version: &str) -> Value {
        match self {
            SchemaKind::Response(options) => crate::response_schema(options, version),
            SchemaKind::Analysis(kind, options) => crate::analysis_schema(kind, options, version),
            SchemaKind::Comparison(options) => crate::comparison_schema(options, version),
        }
    }

    fn mode(self) -> ValidationMode {
        match self {
            SchemaKind::Response(o) => o.validation_mode,
            SchemaKind::Analysis(_, o) => o.validation_mode,
            SchemaKind::Comparison(o) => o.validation_mode,
        }
    }
}

/// Generates, caches and validates against retrace's schemas. Share one per process (it
/// is `Sync`); the caches are keyed by [`SchemaKind`] and cleared when the version changes.
#[derive(Debug)]
pub struct SchemaManager {
    version: String,
    schemas: Mutex<HashMap<SchemaKind, Arc<Value>>>,
    compiled: Mutex<HashMap<SchemaKind, Arc<CompiledSchema>>>,
}

impl Default for SchemaManager {
    fn default() -> Self {
        SchemaManager::new()
    }
}

fn is_version(version: &str) -> bool {
    let parts: Vec<&str> = version.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

impl SchemaManager {
    /// A manager stamping [`DEFAULT_VERSION`].
    pub fn new() -> Self {
        SchemaManager {
            version: DEFAULT_VERSION.to_owned(),
            schemas: Mutex::new(HashMap::new()),
            compiled: Mutex::new(HashMap::new()),
        }
    }

    /// The version stamped into every schema's `$id`.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Changes the version (`MAJOR.MINOR.PATCH`) and drops every cached schema and validator.
    pub fn update_schema_version(&mut self, version: &str) -> Result<(), SchemaError> {
        if !is_version(version) {
            return Err(SchemaError::BadVersion(version.to_owned()));
        }
        version.clone_into(&mut self.version);
        self.schemas
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        self.compiled
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        Ok(())
    }

    /// The schema for `kind`, generated once and then served from the cache.
    pub fn schema(&self, kind: SchemaKind) -> Arc<Value> {
        let mut cache = self.schemas.lock().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(
            cache
                .entry(kind)
                .or_insert_with(|| Arc::new(kind.generate(&self.version))),
        )
    }

    /// The agent response schema (the seed's `generateResponseSchema`).
    pub fn generate_response_schema(&self, options: ResponseOptions) -> Arc<Value> {
        self.schema(SchemaKind::Response(options))
    }

    /// A screenshot analysis schema (`generateScreenshotAnalysisSchema`).
    pub fn generate_screenshot_analysis_schema(
        &self,
        kind: AnalysisType,
        options: AnalysisOptions,
    ) -> Arc<Value> {
        self.schema(SchemaKind::Analysis(kind, options))
    }

    /// The comparison schema (`generateScreenshotComparisonSchema`).
    pub fn generate_screenshot_comparison_schema(&self, options: ComparisonOptions) -> Arc<Value> {
        self.schema(SchemaKind::Comparison(options))
    }

    /// All six analysis schemas for `options`, by wire name (`getScreenshotAnalysisSchemas`).
    pub fn screenshot_analysis_schemas(&self, options: AnalysisOptions) -> Map<String, Value> {
        AnalysisType::ALL
            .into_iter()
            .map(|t| {
                (
                    t.as_str().to_owned(),
                    (*self.generate_screenshot_analysis_schema(t, options)).clone(),
                )
            })
            .collect()
    }

    /// The compiled validator for `kind`, compiled once.
    pub fn compiled(&self, kind: SchemaKind) -> Result<Arc<CompiledSchema>, SchemaError> {
        if let Some(found) = self
            .compiled
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&kind)
        {
            return Ok(Arc::clone(found));
        }
        let compiled = Arc::new(CompiledSchema::compile(self.schema(kind))?);
        let mut cache = self.compiled.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(Arc::clone(cache.entry(kind).or_insert(compiled)))
    }

    /// Validates `answer` against the schema for `kind`, then runs the semantic checks.
    pub fn validate(
        &self,
        kind: SchemaKind,
        answer: &Value,
        context: &ValidationContext,
    ) -> Result<ValidationResult, SchemaError> {
        let compiled = self.compiled(kind)?;
        let mut errors = Vec::new();
        let mut warnings = Vec::new();
        if !compiled.is_valid(answer) {
            compiled.collect_errors(answer, &mut errors);
        }
        let skip: BTreeSet<String> = errors.iter().map(|e| e.field.clone()).collect();
        let mut findings = Findings {
            errors: &mut errors,
            warnings: &mut warnings,
            skip,
            mode: kind.mode(),
        };
        checks::check_limits(answer, &context.limits, &mut Vec::new(), &mut findings);
        let is_response = matches!(kind, SchemaKind::Response(_));
        if is_response {
            checks::check_response(answer, context, &mut findings);
        } else {
            checks::check_visual(answer, context, &mut findings);
        }
        let valid = errors.is_empty();
        let executor_compatible = if is_response {
            !errors
                .iter()
                .any(|e| e.path.first().is_some_and(|p| p == "command"))
        } else {
            valid
        };
        Ok(ValidationResult {
            valid,
            errors,
            warnings,
            executor_compatible,
        })
    }

    /// Validates an agent response (`validateAIResponse`).
    pub fn validate_ai_response(
        &self,
        answer: &Value,
        options: ResponseOptions,
        context: &ValidationContext,
    ) -> Result<ValidationResult, SchemaError> {
        self.validate(SchemaKind::Response(options), answer, context)
    }

    /// Validates a screenshot analysis answer (`validateScreenshotAnalysisResponse`).
    pub fn validate_screenshot_analysis_response(
        &self,
        answer: &Value,
        kind: AnalysisType,
        options: AnalysisOptions,
        context: &ValidationContext,
    ) -> Result<ValidationResult, SchemaError> {
        self.validate(SchemaKind::Analysis(kind, options), answer, context)
    }
}
