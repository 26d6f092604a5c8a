//! Screenshot analysis schemas: generation for all six types, the seed's examples, boxes
//! against the image, confidences and thresholds, accessibility audits, large answers.

use pretty_assertions::assert_eq;
use retrace_schema::AnalysisOptions;
use retrace_schema::AnalysisType;
use retrace_schema::CompiledSchema;
use retrace_schema::SchemaKind;
use retrace_schema::SchemaManager;
use retrace_schema::ValidationContext;
use retrace_schema::ValidationMode;
use serde_json::Value;
use serde_json::json;

use super::support::analysis;
use super::support::assert_clean;
use super::support::err;
use super::support::fixture;
use super::support::validate;

fn detection() -> Value {
    fixture("seed_analysis_element_detection")
}

#[test]
fn every_type_generates_a_compilable_schema_requiring_its_section() {
    let manager = SchemaManager::new();
    let expected: [(AnalysisType, &[&str]); 6] = [
        (
            AnalysisType::ContentSummary,
            &["analysisType", "summary", "confidence"],
        ),
        (
            AnalysisType::ElementDetection,
            &["analysisType", "summary", "confidence", "visualElements"],
        ),
        (
            AnalysisType::UiStructure,
            &["analysisType", "summary", "confidence", "uiStructure"],
        ),
        (
            AnalysisType::TextExtraction,
            &["analysisType", "summary", "confidence", "textContent"],
        ),
        (
            AnalysisType::AccessibilityAudit,
            &["analysisType", "summary", "confidence", "accessibility"],
        ),
        (
            AnalysisType::Comparison,
            &["similarity", "differences", "summary", "significantChanges"],
        ),
    ];
    for (kind, required) in expected {
        let schema = manager.generate_screenshot_analysis_schema(kind, AnalysisOptions::default());
        assert_eq!(schema["required"], json!(required), "{kind}");
        CompiledSchema::compile(schema).unwrap();
    }
    let all = manager.screenshot_analysis_schemas(AnalysisOptions::default());
    assert_eq!(all.len(), 6);
    assert_eq!(
        all["UI_STRUCTURE"]["properties"]["analysisType"]["const"],
        "UI_STRUCTURE"
    );
}

#[test]
fn options_shape_the_analysis_schema() {
    let bare = AnalysisOptions {
        include_coordinates: false,
        include_confidence_scores: false,
        require_detected_elements: true,
        include_accessibility_info: true,
        validation_mode: ValidationMode::Lenient,
    };
    let schema = retrace_schema::analysis_schema(AnalysisType::ContentSummary, bare, "1.0.0");
    assert_eq!(
        schema["required"],
        json!(["analysisType", "summary", "visualElements"])
    );
    let element = &schema["properties"]["visualElements"]["items"];
    assert_eq!(element["required"], json!(["type", "interactable"]));
    assert!(element["properties"].get("boundingBox").is_none());
    assert!(element["properties"].get("role").is_some());
    assert_eq!(schema["properties"]["visualElements"]["minItems"], 1);
    assert!(schema["properties"].get("accessibility").is_some());
    assert_eq!(schema["additionalProperties"], true);
}

#[test]
fn the_seeds_analysis_examples_are_accepted() {
    assert_clean(&analysis(
        AnalysisType::ContentSummary,
        &fixture("seed_analysis_content_summary"),
    ));
    assert_clean(&analysis(AnalysisType::ElementDetection, &detection()));
}

#[test]
fn element_detection_requires_elements_and_its_own_type() {
    let mut answer = detection();
    answer.as_object_mut().unwrap().remove("visualElements");
    answer["analysisType"] = json!("CONTENT_SUMMARY");
    assert_eq!(
        analysis(AnalysisType::ElementDetection, &answer).errors,
        vec![
            err(&["visualElements"], "is required", Value::Null, "array"),
            err(
                &["analysisType"],
                "must be \"ELEMENT_DETECTION\"",
                json!("CONTENT_SUMMARY"),
                "string"
            ),
        ]
    );
}

#[test]
fn a_box_past_the_image_edge_is_an_error_when_strict_and_a_warning_when_lenient() {
    let mut answer = detection();
    answer["visualElements"][1]["boundingBox"]["x"] = json!(1700);
    let bbox = answer["visualElements"][1]["boundingBox"].clone();
    let result = analysis(AnalysisType::ElementDetection, &answer);
    assert_eq!(
        result.errors,
        vec![err(
            &["visualElements", "1", "boundingBox"],
            "extends past the image's right edge (x + width = 2000 > 1920)",
            bbox,
            "bounding box inside the image"
        )]
    );
    assert!(!result.executor_compatible);
    let lenient = AnalysisOptions {
        validation_mode: ValidationMode::Lenient,
        ..AnalysisOptions::default()
    };
    let result = validate(
        SchemaKind::Analysis(AnalysisType::ElementDetection, lenient),
        &answer,
        &ValidationContext::default(),
    );
    assert!(result.valid);
    assert_eq!(
        result.warnings,
        vec![
            "visualElements[1].boundingBox: extends past the image's right edge (x + width = 2000 > 1920)"
        ]
    );
}

#[test]
fn the_image_size_from_the_context_wins_over_the_answers_metadata() {
    let answer = detection();
    let small = ValidationContext {
        image_size: Some((800.0, 330.0)),
        ..ValidationContext::default()
    };
    let result = validate(
        SchemaKind::Analysis(AnalysisType::ElementDetection, AnalysisOptions::default()),
        &answer,
        &small,
    );
    assert_eq!(
        result.errors,
        vec![err(
            &["visualElements", "1", "boundingBox"],
            "extends past the image's bottom edge (y + height = 340 > 330)",
            answer["visualElements"][1]["boundingBox"].clone(),
            "bounding box inside the image"
        )]
    );
}

#[test]
fn bounding_box_edge_cases() {
    let kind = AnalysisType::ElementDetection;
    let mut touching = detection();
    touching["visualElements"][0]["boundingBox"] =
        json!({ "x": 1620, "y": 1040, "width": 300, "height": 40 });
    assert_clean(&analysis(kind, &touching));

    let mut negative = detection();
    negative["visualElements"][0]["boundingBox"]["x"] = json!(-1);
    assert_eq!(
        analysis(kind, &negative).errors,
        vec![err(
            &["visualElements", "0", "boundingBox", "x"],
            "must be at least 0.0",
            json!(-1),
            "number"
        )]
    );

    let mut extra = detection();
    extra["visualElements"][0]["boundingBox"]["z"] = json!(3);
    assert_eq!(
        analysis(kind, &extra).errors,
        vec![err(
            &["visualElements", "0", "boundingBox", "z"],
            "is not allowed here; allowed fields: x, y, width, height",
            json!(3),
            "nothing"
        )]
    );

    let mut empty = detection();
    empty["visualElements"][0]["boundingBox"]["width"] = json!(0);
    let result = analysis(kind, &empty);
    assert!(result.valid, "{}", result.error_report());
    assert_eq!(
        result.warnings,
        vec!["visualElements[0].boundingBox: is empty (zero width or height)"]
    );

    let mut huge = detection();
    huge["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("imageSize");
    huge["visualElements"][0]["boundingBox"]["width"] = json!(1e12);
    assert_eq!(
        analysis(kind, &huge).errors,
        vec![err(
            &["visualElements", "0", "boundingBox"],
            "has a coordinate or side beyond 100000 pixels",
            huge["visualElements"][0]["boundingBox"].clone(),
            "bounding box of sane size"
        )]
    );
}

#[test]
fn confidence_scores_are_range_checked_and_compared_with_the_threshold() {
    let kind = AnalysisType::ElementDetection;
    let mut high = detection();
    high["visualElements"][0]["confidence"] = json!(1.2);
    assert_eq!(
        analysis(kind, &high).errors,
        vec![err(
            &["visualElements", "0", "confidence"],
            "must be at most 1.0",
            json!(1.2),
            "number"
        )]
    );

    let strict_floor = ValidationContext {
        min_confidence: 0.9,
        ..ValidationContext::default()
    };
    let result = validate(
        SchemaKind::Analysis(kind, AnalysisOptions::default()),
        &detection(),
        &strict_floor,
    );
    assert!(result.valid);
    assert_eq!(
        result.warnings,
        vec!["confidence: 0.89 is below the threshold 0.9"]
    );

    let lenient = AnalysisOptions {
        validation_mode: ValidationMode::Lenient,
        ..AnalysisOptions::default()
    };
    let mut extra = detection();
    extra["visualElements"][0]["attributes"]["confidence"] = json!(-0.5);
    assert_eq!(
        validate(
            SchemaKind::Analysis(kind, lenient),
            &extra,
            &ValidationContext::default()
        )
        .errors,
        vec![err(
            &["visualElements", "0", "attributes", "confidence"],
            "-0.5 is outside 0..1",
            json!(-0.5),
            "number (0 to 1)"
        )]
    );
}

#[test]
fn element_selectors_must_parse() {
    let mut answer = detection();
    answer["visualElements"][0]["selector"] = json!("input[");
    assert_eq!(
        analysis(AnalysisType::ElementDetection, &answer).errors,
        vec![err(
            &["visualElements", "0", "selector"],
            "invalid CSS selector at byte 6: expected an attribute name",
            json!("input["),
            "string (CSS selector)"
        )]
    );
}

fn audit() -> Value {
    json!({
        "analysisType": "ACCESSIBILITY_AUDIT",
        "summary": "Login page with two contrast problems.",
        "confidence": 0.8,
        "accessibility": {
            "score": 72,
            "issues": [{
                "type": "contrast",
                "severity": "high",
                "description": "Grey placeholder text on white.",
                "recommendation": "Darken the placeholder to #595959.",
                "element": {
                    "type": "input",
                    "confidence": 0.9,
                    "boundingBox": { "x": 100, "y": 200, "width": 300, "height": 40 },
                    "interactable": true
                }
            }],
            "recommendations": ["Raise contrast of form text."],
            "compliance": { "wcag_aa": false, "wcag_aaa": false, "section508": true }
        }
    })
}

#[test]
fn accessibility_audits_are_validated_with_their_compliance() {
    let kind = AnalysisType::AccessibilityAudit;
    assert_clean(&analysis(kind, &audit()));

    let mut missing = audit();
    missing["accessibility"]["compliance"]
        .as_object_mut()
        .unwrap()
        .remove("section508");
    assert_eq!(
        analysis(kind, &missing).errors,
        vec![err(
            &["accessibility", "compliance", "section508"],
            "is required",
            Value::Null,
            "boolean"
        )]
    );

    let mut wrong = audit();
    wrong["accessibility"]["score"] = json!(120);
    wrong["accessibility"]["issues"][0]["severity"] = json!("urgent");
    assert_eq!(
        analysis(kind, &wrong).errors,
        vec![
            err(
                &["accessibility", "score"],
                "must be at most 100.0",
                json!(120),
                "number"
            ),
            err(
                &["accessibility", "issues", "0", "severity"],
                "must be one of low, medium, high, critical",
                json!("urgent"),
                "string"
            ),
        ]
    );

    let mut absent = audit();
    absent.as_object_mut().unwrap().remove("accessibility");
    assert_eq!(
        analysis(kind, &absent).errors,
        vec![err(
            &["accessibility"],
            "is required",
            Value::Null,
            "object"
        )]
    );
}

#[test]
fn ui_structure_and_text_extraction_answers_are_validated() {
    let structure = json!({
        "analysisType": "UI_STRUCTURE",
        "summary": "Header, sidebar and a form.",
        "confidence": 0.7,
        "uiStructure": {
            "layout": "flex",
            "sections": [{ "type": "header", "boundingBox": { "x": 0, "y": 0, "width": 1280, "height": 64 }, "elementCount": 4 }],
            "navigation": [{ "type": "menu", "itemCount": 5, "boundingBox": { "x": 0, "y": 64, "width": 200, "height": 600 } }],
            "forms": [{ "fieldCount": 2, "submitButtonCount": 1, "boundingBox": { "x": 400, "y": 200, "width": 300, "height": 200 } }]
        }
    });
    assert_clean(&analysis(AnalysisType::UiStructure, &structure));
    let mut bad = structure;
    bad["uiStructure"]["layout"] = json!("float");
    assert_eq!(
        analysis(AnalysisType::UiStructure, &bad).errors,
        vec![err(
            &["uiStructure", "layout"],
            "must be one of grid, flex, absolute, table, mixed",
            json!("float"),
            "string"
        )]
    );

    let text = json!({
        "analysisType": "TEXT_EXTRACTION",
        "summary": "One heading.",
        "confidence": 0.95,
        "textContent": [{ "content": "Sign in", "type": "heading", "boundingBox": { "x": 10, "y": 10, "width": 120, "height": 30 }, "fontSize": 24 }]
    });
    assert_clean(&analysis(AnalysisType::TextExtraction, &text));
    let mut bad = text;
    bad["textContent"][0]
        .as_object_mut()
        .unwrap()
        .remove("boundingBox");
    assert_eq!(
        analysis(AnalysisType::TextExtraction, &bad).errors,
        vec![err(
            &["textContent", "0", "boundingBox"],
            "is required",
            Value::Null,
            "object"
        )]
    );
}

fn elements(n: usize) -> Value {
    let items: Vec<Value> = (0..n)
        .map(|i| {
            json!({
                "type": "link",
                "confidence": 0.5,
                "boundingBox": { "x": (i % 100) * 19, "y": (i / 100) * 10, "width": 18, "height": 9 },
                "interactable": true,
                "selector": format!("#item-{i}")
            })
        })
        .collect();
    json!({
        "analysisType": "ELEMENT_DETECTION",
        "summary": "A large grid of links.",
        "confidence": 0.6,
        "visualElements": items,
        "metadata": { "imageSize": { "width": 1920, "height": 1080 } }
    })
}

#[test]
fn a_large_answer_within_the_limits_is_accepted_and_one_beyond_them_is_not() {
    let kind = AnalysisType::ElementDetection;
    assert_clean(&analysis(kind, &elements(5_000)));
    assert_eq!(
        analysis(kind, &elements(5_001)).errors,
        vec![err(
            &["visualElements"],
            "holds 5001 items; at most 5000 are allowed",
            Value::Null,
            "shorter array"
        )]
    );
}
