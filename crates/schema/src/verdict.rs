//! The visual verdict schema: a model judging whether a candidate page looks like its baseline
//! answers `{verdict, confidence, visual_differences, summary}` (the shape the visual check's
//! judge asks for). The rules that read the answer (a PASS listing differences is a FAIL, a PASS
//! under the confidence floor is an ERROR) live with the judge in `retrace-check`; this schema
//! only says what a well-formed answer is.
//!
//! A difference may say where it is (`region`, optional, so every answer valid before it was
//! added stays valid): a box in the pixels of one image the judge was shown (`image` 1 to 3:
//! baseline, candidate, diff; `part`, from 1, when a tall page was sent in parts). The judge
//! maps it back to page pixels.

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
/// difference `type`, `description` (non-empty) and `severity`, and optionally `region`;
/// confidence 0 to 100.
pub fn verdict_schema(version: &str) -> Value {
    let pixels = json!({"type": "number", "minimum": 0});
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
                        "region": {
                            "description": "Where it is: a box in the pixels of the image named (1 baseline, 2 candidate, 3 diff) and, for a page sent in parts, of the part named.",
                            "type": "object",
                            "properties": {
                                "image": {"type": "integer", "minimum": 1, "maximum": 3},
                                "part": {"type": "integer", "minimum": 1},
                                "x": pixels,
                                "y": pixels,
                                "width": pixels,
                                "height": pixels,
                            },
                            "required": ["image", "x", "y", "width", "height"],
                            "additionalProperties": false,
                        },
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

    #[test]
    fn a_difference_may_say_where_it_is_in_an_image_part() {
        let schema = CompiledSchema::compile(Arc::new(verdict_schema("1.1.0"))).unwrap();
        let placed = |region: Value| {
            json!({"verdict": "FAIL", "confidence": 90, "visual_differences": [
                {"type": "layout", "description": "moved", "severity": "major", "region": region}],
                "summary": "x"})
        };
        let good =
            placed(json!({"image": 2, "part": 3, "x": 10, "y": 20, "width": 5, "height": 5}));
        assert!(schema.validate(&good).valid);
        let unparted = placed(json!({"image": 1, "x": 0, "y": 0, "width": 1, "height": 1}));
        assert!(schema.validate(&unparted).valid);
        for bad in [
            json!({"image": 4, "x": 0, "y": 0, "width": 1, "height": 1}),
            json!({"image": 1, "part": 0, "x": 0, "y": 0, "width": 1, "height": 1}),
            json!({"image": 1, "x": -1, "y": 0, "width": 1, "height": 1}),
            json!({"image": 1, "x": 0, "y": 0, "width": 1}),
            json!({"image": 1, "x": 0, "y": 0, "width": 1, "height": 1, "page": 2}),
        ] {
            assert!(!schema.validate(&placed(bad.clone())).valid, "{bad}");
        }
    }
}
