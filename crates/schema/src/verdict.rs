//! The visual verdict schema: a model judging whether a candidate page looks like its baseline
//! answers `{verdict, confidence, visual_differences, summary}` (the shape the visual check's
//! judge asks for). The rules that read the answer (a PASS listing differences is a FAIL, a PASS
//! under the confidence floor is an ERROR) live with the judge in `retrace-check`; this schema
//! only says what a well-formed answer is.

use serde_json::Value;
use serde_json::json;

use crate::fragments::DRAFT_07;
use crate::fragments::schema_id;

/// The verdicts a judge may give.
pub const VERDICTS: [&str; 3] = ["PASS", "FAIL", "ERROR"];
/// The kinds of difference a judge may list.
pub const DIFFERENCE_TYPES: [&str; 5] = [
    "layout",
    "styling",
    "content",
    "interaction",
    "console_error",
];
/// How much a difference matters.
pub const SEVERITIES: [&str; 3] = ["critical", "major", "minor"];

/// The verdict schema, stamped with `version`. Strict: no field beyond the four, each
/// difference exactly `type`, `description` (non-empty) and `severity`, confidence 0 to 100.
pub fn verdict_schema(version: &str) -> Value {
    json!({
        "$schema": DRAFT_07,
        "$id": schema_id("verdict", version),
        "title": "VisualVerdict",
        "description": "A judge's verdict on whether a candidate page looks like its baseline.",
        "type": "object",
        "properties": {
            "verdict": {
                "description": "PASS: no visual difference; FAIL: one or more; ERROR: the comparison could not be made.",
                "enum": VERDICTS,
            },
            "confidence": {
                "description": "Confidence in the verdict, 0 to 100.",
                "type": "number",
                "minimum": 0,
                "maximum": 100,
            },
            "visual_differences": {
                "description": "Each difference a user would notice; empty for PASS.",
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "type": {"description": "Kind of difference.", "enum": DIFFERENCE_TYPES},
                        "description": {"description": "What differs.", "type": "string", "minLength": 1},
                        "severity": {"description": "How much it matters.", "enum": SEVERITIES},
                    },
                    "required": ["type", "description", "severity"],
                    "additionalProperties": false,
                },
            },
            "summary": {"description": "One sentence.", "type": "string"},
        },
        "required": ["verdict", "confidence", "visual_differences", "summary"],
        "additionalProperties": false,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::CompiledSchema;

    #[test]
    fn accepts_the_seed_shape_and_names_what_is_wrong() {
        let schema = CompiledSchema::compile(Arc::new(verdict_schema("1.0.0"))).unwrap();
        let good = json!({"verdict": "FAIL", "confidence": 95, "visual_differences": [
            {"type": "styling", "description": "the icon is lighter", "severity": "minor"}],
            "summary": "one colour changed"});
        assert!(schema.validate(&good).valid);
        let bad = json!({"verdict": "MAYBE", "confidence": 101, "visual_differences": [
            {"type": "colour", "description": "", "severity": "minor"}], "summary": "x", "extra": 1});
        let result = schema.validate(&bad);
        let fields: Vec<String> = result.errors.iter().map(|e| e.field.clone()).collect();
        for field in [
            "verdict",
            "confidence",
            "visual_differences[0].type",
            "visual_differences[0].description",
        ] {
            assert!(
                fields.iter().any(|f| f == field),
                "{field} missing in {fields:?}"
            );
        }
        let missing = schema.validate(&json!({"verdict": "PASS"}));
        assert!(!missing.valid);
    }
}
