#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use pretty_assertions::assert_eq;
use retrace_protocol::events::TestStatus;
use serde_json::Value;

use super::*;

use crate::suite::sample;

fn every_kind_of_test() -> SuiteReport {
    let dir = tempfile::tempdir().unwrap();
    let mut report = sample::report(
        dir.path(),
        sample::Mix {
            tests: 6,
            failed: 1,
            error: 1,
            flaky: 1,
            skipped: 1,
        },
    );
    report.tests.push(sample::page_check_test());
    report.tests[0].steps[1].settled = Some(false);
    report
}

fn validator() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(SCHEMA).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

fn errors(validator: &jsonschema::Validator, document: &Value) -> Vec<String> {
    validator
        .iter_errors(document)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect()
}

#[test]
fn a_written_report_validates_against_the_committed_schema() {
    let validator = validator();
    let document: Value = serde_json::from_str(&to_json(&every_kind_of_test())).unwrap();
    assert_eq!(errors(&validator, &document), Vec::<String>::new());
}

#[test]
fn the_schema_rejects_what_is_not_a_report() {
    let validator = validator();
    let document: Value = serde_json::from_str(&to_json(&every_kind_of_test())).unwrap();
    let broken = [
        ("/tests/0/status", Some(serde_json::json!("maybe"))),
        ("/tests/1/file", None),
        ("/version", Some(serde_json::json!(2))),
        ("/tests/0/steps/0/step", Some(serde_json::json!(0))),
    ];
    for (pointer, value) in broken {
        let mut changed = document.clone();
        match value {
            Some(value) => *changed.pointer_mut(pointer).unwrap() = value,
            None => {
                let (parent, field) = pointer.rsplit_once('/').unwrap();
                changed
                    .pointer_mut(parent)
                    .unwrap()
                    .as_object_mut()
                    .unwrap()
                    .remove(field)
                    .unwrap();
            }
        }
        assert!(
            !validator.is_valid(&changed),
            "the schema let through a report with {pointer} changed"
        );
    }
}

#[test]
fn a_report_reads_back_as_written() {
    let report = every_kind_of_test();
    let text = to_json(&report);
    assert!(text.ends_with("}\n"));
    assert_eq!(
        parse_report(&text, Path::new("report.json")).unwrap(),
        report
    );
}

#[test]
fn a_report_of_another_version_or_shape_is_refused_naming_file_and_field() {
    let report = every_kind_of_test();
    let mut document: Value = serde_json::from_str(&to_json(&report)).unwrap();
    let path = Path::new("shard-2/report.json");

    document["version"] = serde_json::json!(7);
    let error = parse_report(&document.to_string(), path).unwrap_err();
    assert!(matches!(
        error,
        ReportError::UnknownVersion { found: 7, .. }
    ));
    assert!(
        error
            .to_string()
            .starts_with("shard-2/report.json: suite report version 7")
    );

    document["version"] = serde_json::json!(1);
    document["tests"][2]["status"] = serde_json::json!("maybe");
    let error = parse_report(&document.to_string(), path)
        .unwrap_err()
        .to_string();
    assert!(error.contains("shard-2/report.json"), "{error}");
    assert!(error.contains("tests[2].status"), "{error}");

    let error = parse_report("{\"name\": 1}", path).unwrap_err().to_string();
    assert_eq!(
        error,
        "shard-2/report.json: not a retrace suite report: no `version` field"
    );
    let error = parse_report("<html>", path).unwrap_err().to_string();
    assert!(error.contains("not JSON"), "{error}");
}

#[test]
fn older_documents_without_the_later_fields_still_read() {
    let report = every_kind_of_test();
    let mut document: Value = serde_json::from_str(&to_json(&report)).unwrap();
    document.as_object_mut().unwrap().remove("shards");
    for test in document["tests"].as_array_mut().unwrap() {
        for step in test["steps"].as_array_mut().unwrap() {
            step.as_object_mut().unwrap().remove("settled");
        }
    }
    let read = parse_report(&document.to_string(), Path::new("old.json")).unwrap();
    assert_eq!(read.tests.len(), report.tests.len());
    assert_eq!(read.tests[3].status, TestStatus::Error);
}
