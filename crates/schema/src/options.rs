//! Generation options for the three schema kinds, with the seed's camelCase keys, and the
//! six screenshot analysis types.
//!
//! Options are small `Copy` values so they double as cache keys. Each kind parses
//! `KEY=VALUE` pairs (the CLI's `--option`) and rejects unknown keys by naming the valid ones.

use std::fmt;
use std::str::FromStr;

use crate::SchemaError;

/// How strictly a schema treats what it does not describe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ValidationMode {
    /// No additional properties anywhere (except `metadata`); non-security semantic checks
    /// are errors.
    #[default]
    Strict,
    /// Additional properties are tolerated on the answer's own objects (never inside a
    /// command's parameters); non-security semantic checks are warnings.
    Lenient,
}

impl ValidationMode {
    /// `true` for [`ValidationMode::Strict`].
    pub fn is_strict(self) -> bool {
        self == ValidationMode::Strict
    }
}

impl FromStr for ValidationMode {
    type Err = SchemaError;

    fn from_str(value: &str) -> Result<Self, SchemaError> {
        match value {
            "strict" => Ok(ValidationMode::Strict),
            "lenient" => Ok(ValidationMode::Lenient),
            _ => Err(SchemaError::BadOptionValue {
                key: "validationMode".to_owned(),
                value: value.to_owned(),
                expected: "`strict` or `lenient`",
            }),
        }
    }
}

/// Options of the agent response schema (the seed's `SchemaOptions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResponseOptions {
    /// Describe the optional fields (`resultValidation`, `issues`, `alternatives`,
    /// `confidence`, the command's `reasoning`, `context`). When `false` they are left out of
    /// the schema, which makes it shorter in a prompt; a strict schema then rejects them.
    pub include_optional_fields: bool,
    /// Require `reasoning` with non-empty `analysis`, `rationale` and `expectedOutcome`.
    pub require_reasoning: bool,
    /// Strict or lenient.
    pub validation_mode: ValidationMode,
}

impl Default for ResponseOptions {
    fn default() -> Self {
        ResponseOptions {
            include_optional_fields: true,
            require_reasoning: true,
            validation_mode: ValidationMode::Strict,
        }
    }
}

/// Options of the screenshot analysis schemas (the seed's `ScreenshotSchemaOptions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AnalysisOptions {
    /// Bounding boxes on elements, text, sections, navigation and forms.
    pub include_coordinates: bool,
    /// A `confidence` in 0..=1 on the answer and on each element.
    pub include_confidence_scores: bool,
    /// `visualElements` must be present and hold at least one element.
    pub require_detected_elements: bool,
    /// Describe the `accessibility` section (always present for `ACCESSIBILITY_AUDIT`) and
    /// the elements' `role` and `accessibleName`.
    pub include_accessibility_info: bool,
    /// Strict or lenient.
    pub validation_mode: ValidationMode,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            include_coordinates: true,
            include_confidence_scores: true,
            require_detected_elements: false,
            include_accessibility_info: false,
            validation_mode: ValidationMode::Strict,
        }
    }
}

/// Options of the screenshot comparison schema (the seed's `ComparisonSchemaOptions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ComparisonOptions {
    /// A required `pixelDifferences` object (`count`, `percentage`).
    pub include_pixel_differences: bool,
    /// A required `similarity` in 0..=1.
    pub include_similarity_score: bool,
    /// A required, non-empty `summary`, and non-empty difference descriptions.
    pub require_change_description: bool,
    /// Bounding boxes on differences, and the `changeAreas` list.
    pub include_coordinates: bool,
    /// Strict or lenient.
    pub validation_mode: ValidationMode,
}

impl Default for ComparisonOptions {
    fn default() -> Self {
        ComparisonOptions {
            include_pixel_differences: false,
            include_similarity_score: true,
            require_change_description: true,
            include_coordinates: true,
            validation_mode: ValidationMode::Strict,
        }
    }
}

fn parse_bool(key: &str, value: &str) -> Result<bool, SchemaError> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(SchemaError::BadOptionValue {
            key: key.to_owned(),
            value: value.to_owned(),
            expected: "`true` or `false`",
        }),
    }
}

/// Splits `KEY=VALUE`.
pub fn split_option(pair: &str) -> Result<(&str, &str), SchemaError> {
    pair.split_once('=')
        .map(|(k, v)| (k.trim(), v.trim()))
        .ok_or_else(|| SchemaError::OptionSyntax(pair.to_owned()))
}

fn unknown(kind: &'static str, key: &str, valid: &[&str]) -> SchemaError {
    SchemaError::UnknownOption {
        kind,
        key: key.to_owned(),
        valid: valid.join(", "),
    }
}

impl ResponseOptions {
    const KEYS: [&'static str; 3] = [
        "includeOptionalFields",
        "requireReasoning",
        "validationMode",
    ];

    /// Sets one option from its seed key (`requireReasoning=false`).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), SchemaError> {
        match key {
            "includeOptionalFields" => self.include_optional_fields = parse_bool(key, value)?,
            "requireReasoning" => self.require_reasoning = parse_bool(key, value)?,
            "validationMode" => self.validation_mode = value.parse()?,
            _ => return Err(unknown("response", key, &Self::KEYS)),
        }
        Ok(())
    }
}

impl AnalysisOptions {
    const KEYS: [&'static str; 5] = [
        "includeCoordinates",
        "includeConfidenceScores",
        "requireDetectedElements",
        "includeAccessibilityInfo",
        "validationMode",
    ];

    /// Sets one option from its seed key (`includeCoordinates=false`).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), SchemaError> {
        match key {
            "includeCoordinates" => self.include_coordinates = parse_bool(key, value)?,
            "includeConfidenceScores" => self.include_confidence_scores = parse_bool(key, value)?,
            "requireDetectedElements" => self.require_detected_elements = parse_bool(key, value)?,
            "includeAccessibilityInfo" => {
                self.include_accessibility_info = parse_bool(key, value)?;
            }
            "validationMode" => self.validation_mode = value.parse()?,
            _ => return Err(unknown("analysis", key, &Self::KEYS)),
        }
        Ok(())
    }
}

impl ComparisonOptions {
    const KEYS: [&'static str; 5] = [
        "includePixelDifferences",
        "includeSimilarityScore",
        "requireChangeDescription",
        "includeCoordinates",
        "validationMode",
    ];

    /// Sets one option from its seed key (`includePixelDifferences=true`).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), SchemaError> {
        match key {
            "includePixelDifferences" => self.include_pixel_differences = parse_bool(key, value)?,
            "includeSimilarityScore" => self.include_similarity_score = parse_bool(key, value)?,
            "requireChangeDescription" => {
                self.require_change_description = parse_bool(key, value)?;
            }
            "includeCoordinates" => self.include_coordinates = parse_bool(key, value)?,
            "validationMode" => self.validation_mode = value.parse()?,
            _ => return Err(unknown("comparison", key, &Self::KEYS)),
        }
        Ok(())
    }
}

/// The six kinds of screenshot analysis the seed names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AnalysisType {
    /// A prose summary of the screen.
    ContentSummary,
    /// Interactive elements with boxes, confidence and selectors.
    ElementDetection,
    /// Layout, sections, navigation and forms.
    UiStructure,
    /// Text runs with their role and box.
    TextExtraction,
    /// Accessibility score, issues and compliance.
    AccessibilityAudit,
    /// Two screenshots compared (answered in the comparison schema).
    Comparison,
}

impl AnalysisType {
    /// All six, in the seed's order.
    pub const ALL: [AnalysisType; 6] = [
        AnalysisType::ContentSummary,
        AnalysisType::ElementDetection,
        AnalysisType::UiStructure,
        AnalysisType::TextExtraction,
        AnalysisType::AccessibilityAudit,
        AnalysisType::Comparison,
    ];

    /// The wire name (`CONTENT_SUMMARY`).
    pub fn as_str(self) -> &'static str {
        match self {
            AnalysisType::ContentSummary => "CONTENT_SUMMARY",
            AnalysisType::ElementDetection => "ELEMENT_DETECTION",
            AnalysisType::UiStructure => "UI_STRUCTURE",
            AnalysisType::TextExtraction => "TEXT_EXTRACTION",
            AnalysisType::AccessibilityAudit => "ACCESSIBILITY_AUDIT",
            AnalysisType::Comparison => "COMPARISON",
        }
    }
}

impl fmt::Display for AnalysisType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for AnalysisType {
    type Err = SchemaError;

    /// Accepts the wire name in any case, with `-` or `_` (`element-detection`).
    fn from_str(value: &str) -> Result<Self, SchemaError> {
        let normal = value.trim().to_ascii_uppercase().replace('-', "_");
        AnalysisType::ALL
            .into_iter()
            .find(|t| t.as_str() == normal)
            .ok_or_else(|| SchemaError::UnknownAnalysisType(value.to_owned()))
    }
}
