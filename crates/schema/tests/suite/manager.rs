//! The manager: caching by options, versions, option parsing.

use std::sync::Arc;

use pretty_assertions::assert_eq;
use retrace_schema::AnalysisOptions;
use retrace_schema::AnalysisType;
use retrace_schema::ResponseOptions;
use retrace_schema::SchemaError;
use retrace_schema::SchemaKind;
use retrace_schema::SchemaManager;
use retrace_schema::ValidationMode;
use serde_json::json;

#[test]
fn schemas_are_cached_by_options() {
    let manager = SchemaManager::new();
    let strict = ResponseOptions::default();
    let lenient = ResponseOptions {
        validation_mode: ValidationMode::Lenient,
        ..strict
    };
    let a = manager.generate_response_schema(strict);
    let b = manager.generate_response_schema(strict);
    let c = manager.generate_response_schema(lenient);
    assert!(Arc::ptr_eq(&a, &b));
    assert!(!Arc::ptr_eq(&a, &c));
    assert_eq!(a["additionalProperties"], false);
    assert_eq!(c["additionalProperties"], true);
    let v1 = manager.compiled(SchemaKind::Response(strict)).unwrap();
    let v2 = manager.compiled(SchemaKind::Response(strict)).unwrap();
    assert!(Arc::ptr_eq(&v1, &v2));
    assert!(Arc::ptr_eq(v1.schema(), &a));
}

#[test]
fn changing_the_version_restamps_and_drops_the_caches() {
    let mut manager = SchemaManager::new();
    let options = AnalysisOptions::default();
    let before = manager.generate_screenshot_analysis_schema(AnalysisType::UiStructure, options);
    assert_eq!(
        before["$id"],
        "urn:retrace:schema:analysis:ui_structure:1.0.0"
    );
    manager.update_schema_version("1.1.0").unwrap();
    assert_eq!(manager.version(), "1.1.0");
    let after = manager.generate_screenshot_analysis_schema(AnalysisType::UiStructure, options);
    assert_eq!(
        after["$id"],
        "urn:retrace:schema:analysis:ui_structure:1.1.0"
    );
    assert_eq!(
        manager.generate_response_schema(ResponseOptions::default())["$id"],
        "urn:retrace:schema:response:1.1.0"
    );
    assert_eq!(
        manager.update_schema_version("v2"),
        Err(SchemaError::BadVersion("v2".to_owned()))
    );
    assert_eq!(manager.version(), "1.1.0");
}

#[test]
fn options_parse_from_seed_keys_and_name_the_valid_ones() {
    let mut options = ResponseOptions::default();
    options.set("requireReasoning", "false").unwrap();
    options.set("validationMode", "lenient").unwrap();
    assert_eq!(
        options,
        ResponseOptions {
            include_optional_fields: true,
            require_reasoning: false,
            validation_mode: ValidationMode::Lenient
        }
    );
    assert_eq!(
        options
            .set("includeCoordinates", "true")
            .unwrap_err()
            .to_string(),
        "unknown option `includeCoordinates` for response schemas; valid options: \
         includeOptionalFields, requireReasoning, validationMode"
    );
    assert_eq!(
        options
            .set("requireReasoning", "yes")
            .unwrap_err()
            .to_string(),
        "option `requireReasoning` expects `true` or `false`, got `yes`"
    );
    assert_eq!(retrace_schema::split_option("a=b").unwrap(), ("a", "b"));
    assert_eq!(
        retrace_schema::split_option("flag"),
        Err(SchemaError::OptionSyntax("flag".to_owned()))
    );
    assert_eq!(
        "element-detection".parse::<AnalysisType>().unwrap(),
        AnalysisType::ElementDetection
    );
    assert!(matches!(
        "HEATMAP".parse::<AnalysisType>(),
        Err(SchemaError::UnknownAnalysisType(_))
    ));
}

#[test]
fn a_schema_that_does_not_compile_is_an_error() {
    let bad = Arc::new(json!({ "type": "object", "properties": { "a": { "type": "strin" } } }));
    assert!(matches!(
        retrace_schema::CompiledSchema::compile(bad),
        Err(SchemaError::Compile(_))
    ));
}
