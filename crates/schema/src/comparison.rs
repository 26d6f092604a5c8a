//! The screenshot comparison schema: similarity, classified differences, change areas.

use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use crate::ComparisonOptions;
use crate::fragments::DRAFT_07;
use crate::fragments::bounding_box;
use crate::fragments::confidence;
use crate::fragments::count;
use crate::fragments::metadata;
use crate::fragments::number;
use crate::fragments::obj;
use crate::fragments::object;
use crate::fragments::one_of;
use crate::fragments::props;
use crate::fragments::schema_id;
use crate::fragments::string;

/// Generates the comparison schema for `options`, stamped with `version`.
pub fn comparison_schema(options: ComparisonOptions, version: &str) -> Value {
    let mode = options.validation_mode;
    let text_min = u64::from(options.require_change_description);
    let mut difference = props([
        (
            "type",
            one_of(
                "Kind of change.",
                &["added", "removed", "modified", "moved"],
            ),
        ),
        ("description", string("What changed.", text_min)),
        (
            "confidence",
            confidence("Confidence in this difference, 0 to 1."),
        ),
    ]);
    let mut difference_required = vec!["type", "description", "confidence"];
    if options.include_coordinates {
        difference.insert("boundingBox".into(), bounding_box());
        difference_required.push("boundingBox");
    }
    let mut properties = Map::new();
    let mut required = Vec::new();
    if options.include_similarity_score {
        properties.insert(
            "similarity".into(),
            confidence("How alike the screenshots are, 0 (unrelated) to 1 (identical)."),
        );
        required.push("similarity");
    }
    properties.insert(
        "differences".into(),
        obj([
            ("type", "array".into()),
            ("description", "Each difference found.".into()),
            (
                "items",
                object("One difference.", difference, &difference_required, mode),
            ),
        ]),
    );
    required.push("differences");
    properties.insert(
        "summary".into(),
        string("Overall description of the changes.", text_min),
    );
    if options.require_change_description {
        required.push("summary");
    }
    properties.insert(
        "significantChanges".into(),
        json!({ "type": "boolean", "description": "Would a user notice the changes?" }),
    );
    required.push("significantChanges");
    if options.include_coordinates {
        let area = props([
            ("area", bounding_box()),
            ("changeType", string("Kind of change in the area.", 1)),
            (
                "significance",
                one_of("How much it matters.", &["minor", "moderate", "major"]),
            ),
        ]);
        properties.insert(
            "changeAreas".into(),
            obj([
                ("type", "array".into()),
                ("description", "Regions that changed.".into()),
                (
                    "items",
                    object(
                        "One changed region.",
                        area,
                        &["area", "changeType", "significance"],
                        mode,
                    ),
                ),
            ]),
        );
    }
    if options.include_pixel_differences {
        properties.insert(
            "pixelDifferences".into(),
            object(
                "Pixel-level difference counts.",
                props([
                    ("count", count("Pixels that differ.")),
                    (
                        "percentage",
                        number("Share of pixels that differ, 0 to 100.", 0.0, Some(100.0)),
                    ),
                ]),
                &["count", "percentage"],
                mode,
            ),
        );
        required.push("pixelDifferences");
    }
    properties.insert("metadata".into(), metadata());
    let body = object(
        "Answer to a comparison of two screenshots.",
        properties,
        &required,
        mode,
    );
    let mut head = Map::with_capacity(9);
    head.insert("$schema".into(), DRAFT_07.into());
    head.insert("$id".into(), schema_id("comparison", version).into());
    head.insert("title".into(), "ScreenshotComparison".into());
    if let Value::Object(mut body) = body {
        head.append(&mut body);
    }
    Value::Object(head)
}
