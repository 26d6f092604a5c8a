//! Every instance in `shared/vectors/schema/valid.json` is accepted and every one in
//! `invalid.json` rejected by `schema.json`, as ajv 8.20.0 with ajv-formats 3.0.1 decided.

use std::collections::BTreeMap;
use std::sync::Arc;

use retrace_schema::CompiledSchema;
use retrace_test_support::read_json;
use retrace_test_support::vectors_dir;
use serde_json::Value;

fn load(name: &str) -> Value {
    read_json(&vectors_dir().join("schema").join(name))
}

fn compiled() -> CompiledSchema {
    CompiledSchema::compile(Arc::new(load("schema.json"))).unwrap()
}

#[test]
fn every_valid_vector_is_accepted() {
    let schema = compiled();
    let valid = load("valid.json");
    let instances = valid.as_array().unwrap();
    assert_eq!(instances.len(), 10_000);
    for (i, instance) in instances.iter().enumerate() {
        let result = schema.validate(instance);
        assert!(
            result.valid,
            "valid.json[{i}] rejected: {}",
            result.error_report()
        );
        assert!(
            schema.is_valid(instance),
            "valid.json[{i}] rejected by is_valid"
        );
    }
}

#[test]
fn every_invalid_vector_is_rejected_at_the_field_its_defect_names() {
    let schema = compiled();
    let invalid = load("invalid.json");
    let kinds = load("invalid_kinds.json");
    let instances = invalid.as_array().unwrap();
    let kinds = kinds.as_array().unwrap();
    assert_eq!(instances.len(), kinds.len());
    let mut fields: BTreeMap<&str, BTreeMap<String, usize>> = BTreeMap::new();
    for (i, (instance, kind)) in instances.iter().zip(kinds).enumerate() {
        let kind = kind.as_str().unwrap();
        assert!(
            !schema.is_valid(instance),
            "invalid.json[{i}] ({kind}) accepted by is_valid"
        );
        let result = schema.validate(instance);
        assert!(!result.valid, "invalid.json[{i}] ({kind}) accepted");
        assert_eq!(
            result.errors.len(),
            1,
            "invalid.json[{i}] ({kind}): {}",
            result.error_report()
        );
        let error = &result.errors[0];
        *fields
            .entry(kind)
            .or_default()
            .entry(error.field.clone())
            .or_default() += 1;
    }
    // Each defect is reported at the field it broke (the `oneOf` of commands is resolved to
    // the branch the instance's `action` selects).
    let expected: [(&str, &str); 16] = [
        ("action_enum", "decision.action"),
        ("alternatives_type", "reasoning.alternatives"),
        ("decision_type", "decision"),
        ("empty_selector", "command.selector"),
        (
            "expected_elements_type",
            "decision.resultValidation.expectedElements",
        ),
        ("extra_top_level", "confidence"),
        ("get_dom_extra", "command.selector"),
        ("input_missing_text", "command.text"),
        ("issue_item_type", "decision.resultValidation.issues["),
        ("missing_message", "decision.message"),
        ("missing_rationale", "reasoning.rationale"),
        ("missing_reasoning", "reasoning"),
        ("success_type", "decision.resultValidation.success"),
        ("unknown_command", "command"),
        ("url_format", "command.url"),
        ("variable_pattern", "command.variableName"),
    ];
    assert_eq!(fields.len(), expected.len());
    for (kind, field) in expected {
        let seen = &fields[kind];
        let total: usize = seen.values().sum();
        assert_eq!(total, 625, "{kind}");
        for name in seen.keys() {
            let matches = if field.ends_with('[') {
                name.starts_with(field)
            } else {
                name == field
            };
            assert!(matches, "{kind} reported at {name}, expected {field}");
        }
    }
}
