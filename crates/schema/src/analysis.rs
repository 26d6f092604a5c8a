//! Screenshot analysis schemas: one per [`AnalysisType`], sharing the seed's sections
//! (visual elements, text content, UI structure, accessibility, metadata).
//!
//! Every type lists every section it may carry; the type's own section is required
//! (`ELEMENT_DETECTION` → `visualElements`, `UI_STRUCTURE` → `uiStructure`,
//! `TEXT_EXTRACTION` → `textContent`, `ACCESSIBILITY_AUDIT` → `accessibility`).
//! `COMPARISON` is answered in the comparison schema (see [`crate::comparison_schema`]).

use serde_json::Map;
use serde_json::Value;

use crate::AnalysisOptions;
use crate::AnalysisType;
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
use crate::fragments::string_list;

/// Adds `boundingBox` (required) when coordinates are on.
fn with_box(
    options: AnalysisOptions,
    mut properties: Map<String, Value>,
    required: &mut Vec<&'static str>,
) -> Map<String, Value> {
    if options.include_coordinates {
        properties.insert("boundingBox".into(), bounding_box());
        required.push("boundingBox");
    }
    properties
}

fn element(options: AnalysisOptions) -> Value {
    let mut required = vec!["type", "interactable"];
    let mut properties = props([
        ("type", string("Kind of element (button, input, link…).", 1)),
        (
            "attributes",
            obj([
                ("type", "object".into()),
                ("description", "Visible attributes.".into()),
            ]),
        ),
        ("text", string("Text shown on the element.", 0)),
        (
            "interactable",
            obj([
                ("type", "boolean".into()),
                ("description", "Can it be clicked or typed into?".into()),
            ]),
        ),
        (
            "selector",
            string("CSS selector that finds the element.", 1),
        ),
    ]);
    if options.include_confidence_scores {
        properties.insert(
            "confidence".into(),
            confidence("Detection confidence, 0 to 1."),
        );
        required.push("confidence");
    }
    if options.include_accessibility_info {
        properties.insert("role".into(), string("ARIA role.", 0));
        properties.insert("accessibleName".into(), string("Accessible name.", 0));
    }
    let properties = with_box(options, properties, &mut required);
    object(
        "One detected element.",
        properties,
        &required,
        options.validation_mode,
    )
}

fn visual_elements(options: AnalysisOptions, element: Value) -> Value {
    let mut schema = obj([
        ("type", "array".into()),
        ("description", "Elements detected on the screenshot.".into()),
        ("items", element),
    ]);
    if options.require_detected_elements {
        schema["minItems"] = 1.into();
    }
    schema
}

fn text_content(options: AnalysisOptions) -> Value {
    let mut required = vec!["content", "type"];
    let properties = props([
        ("content", string("The text.", 0)),
        (
            "type",
            one_of(
                "Role of the text.",
                &[
                    "heading",
                    "paragraph",
                    "link",
                    "button",
                    "label",
                    "error",
                    "success",
                ],
            ),
        ),
        ("fontSize", number("Font size in pixels.", 0.0, None)),
        ("fontWeight", string("Font weight.", 0)),
        ("color", string("Text colour.", 0)),
    ]);
    let properties = with_box(options, properties, &mut required);
    obj([
        ("type", "array".into()),
        ("description", "Text runs read from the screenshot.".into()),
        (
            "items",
            object(
                "One text run.",
                properties,
                &required,
                options.validation_mode,
            ),
        ),
    ])
}

fn ui_structure(options: AnalysisOptions) -> Value {
    let mode = options.validation_mode;
    let mut section_required = vec!["type"];
    let section = with_box(
        options,
        props([
            (
                "type",
                one_of(
                    "Kind of section.",
                    &[
                        "header",
                        "footer",
                        "sidebar",
                        "main",
                        "content",
                        "navigation",
                    ],
                ),
            ),
            ("elementCount", count("Elements in the section.")),
        ]),
        &mut section_required,
    );
    let mut nav_required = vec!["type", "itemCount"];
    let navigation = with_box(
        options,
        props([
            (
                "type",
                one_of(
                    "Kind of navigation.",
                    &["menu", "breadcrumb", "pagination", "tabs"],
                ),
            ),
            ("itemCount", count("Items in it.")),
        ]),
        &mut nav_required,
    );
    let mut form_required = vec!["fieldCount"];
    let form = with_box(
        options,
        props([
            ("fieldCount", count("Input fields.")),
            ("submitButtonCount", count("Submit buttons.")),
        ]),
        &mut form_required,
    );
    let list = |description: &str, item: Value| {
        obj([
            ("type", "array".into()),
            ("description", description.into()),
            ("items", item),
        ])
    };
    object(
        "Layout of the page.",
        props([
            (
                "layout",
                one_of(
                    "Layout technique.",
                    &["grid", "flex", "absolute", "table", "mixed"],
                ),
            ),
            (
                "sections",
                list(
                    "Page sections.",
                    object("One section.", section, &section_required, mode),
                ),
            ),
            (
                "navigation",
                list(
                    "Navigation widgets.",
                    object("One navigation widget.", navigation, &nav_required, mode),
                ),
            ),
            (
                "forms",
                list("Forms.", object("One form.", form, &form_required, mode)),
            ),
        ]),
        &["layout", "sections"],
        mode,
    )
}

/// `element` is the element schema (built once by the caller and shared: cloning a built
/// schema is cheaper than building it again).
fn accessibility(options: AnalysisOptions, element: Value) -> Value {
    let mode = options.validation_mode;
    let issue = object(
        "One accessibility issue.",
        props([
            (
                "type",
                one_of(
                    "Kind of issue.",
                    &[
                        "contrast",
                        "alt_text",
                        "keyboard_navigation",
                        "aria_labels",
                        "semantic_structure",
                    ],
                ),
            ),
            (
                "severity",
                one_of("Severity.", &["low", "medium", "high", "critical"]),
            ),
            ("description", string("What is wrong.", 1)),
            ("recommendation", string("How to fix it.", 1)),
            ("element", element),
        ]),
        &["type", "severity", "description", "recommendation"],
        mode,
    );
    let boolean = |d: &str| obj([("type", "boolean".into()), ("description", d.into())]);
    object(
        "Accessibility audit.",
        props([
            ("score", number("Score from 0 to 100.", 0.0, Some(100.0))),
            (
                "issues",
                obj([
                    ("type", "array".into()),
                    ("description", "Issues found.".into()),
                    ("items", issue),
                ]),
            ),
            ("recommendations", string_list("Overall recommendations.")),
            (
                "compliance",
                object(
                    "Standards met.",
                    props([
                        ("wcag_aa", boolean("Meets WCAG 2 AA.")),
                        ("wcag_aaa", boolean("Meets WCAG 2 AAA.")),
                        ("section508", boolean("Meets Section 508.")),
                    ]),
                    &["wcag_aa", "wcag_aaa", "section508"],
                    mode,
                ),
            ),
        ]),
        &["score", "issues", "recommendations", "compliance"],
        mode,
    )
}

/// Generates the schema for one analysis type, stamped with `version`.
pub fn analysis_schema(kind: AnalysisType, options: AnalysisOptions, version: &str) -> Value {
    if kind == AnalysisType::Comparison {
        let comparison = ComparisonOptions {
            include_coordinates: options.include_coordinates,
            validation_mode: options.validation_mode,
            ..ComparisonOptions::default()
        };
        return crate::comparison_schema(comparison, version);
    }
    let mut properties = Map::with_capacity(9);
    properties.extend(props([
        (
            "analysisType",
            obj([
                ("type", "string".into()),
                (
                    "description",
                    "Type of screenshot analysis performed.".into(),
                ),
                ("const", kind.as_str().into()),
            ]),
        ),
        ("summary", string("What the screenshot shows.", 1)),
    ]));
    let mut required = vec!["analysisType", "summary"];
    if options.include_confidence_scores {
        properties.insert(
            "confidence".into(),
            confidence("Overall confidence, 0 to 1."),
        );
        required.push("confidence");
    }
    let element = element(options);
    let with_accessibility =
        options.include_accessibility_info || kind == AnalysisType::AccessibilityAudit;
    let audited_element = with_accessibility.then(|| element.clone());
    properties.insert("visualElements".into(), visual_elements(options, element));
    properties.insert("textContent".into(), text_content(options));
    properties.insert("uiStructure".into(), ui_structure(options));
    if let Some(element) = audited_element {
        properties.insert("accessibility".into(), accessibility(options, element));
    }
    properties.insert("metadata".into(), metadata());
    if options.require_detected_elements || kind == AnalysisType::ElementDetection {
        required.push("visualElements");
    }
    match kind {
        AnalysisType::UiStructure => required.push("uiStructure"),
        AnalysisType::TextExtraction => required.push("textContent"),
        AnalysisType::AccessibilityAudit => required.push("accessibility"),
        _ => {}
    }
    let body = object(
        &format!("Answer to a {} screenshot analysis.", kind.as_str()),
        properties,
        &required,
        options.validation_mode,
    );
    let mut head = Map::with_capacity(9);
    head.insert("$schema".into(), DRAFT_07.into());
    head.insert(
        "$id".into(),
        schema_id(
            &format!("analysis:{}", kind.as_str().to_ascii_lowercase()),
            version,
        )
        .into(),
    );
    head.insert("title".into(), "ScreenshotAnalysis".into());
    if let Value::Object(mut body) = body {
        head.append(&mut body);
    }
    Value::Object(head)
}
