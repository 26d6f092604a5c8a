//! `retrace schema` end to end: the real binary, the seed's example answers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::process::Output;

use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

fn retrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_retrace"))
        .args(args)
        .output()
        .unwrap()
}

fn fixture(name: &str) -> String {
    retrace_test_support::package_dir()
        .join("../schema/tests/fixtures")
        .join(format!("{name}.json"))
        .to_string_lossy()
        .into_owned()
}

fn stdout_json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stdout)))
}

#[test]
fn generate_response_prints_the_committed_schema() {
    let output = retrace(&["schema", "generate", "response"]);
    assert_eq!(output.status.code(), Some(0));
    let committed =
        retrace_test_support::package_dir().join("../schema/schemas/response.schema.json");
    let committed: Value =
        serde_json::from_str(&std::fs::read_to_string(committed).unwrap()).unwrap();
    assert_eq!(stdout_json(&output), committed);
}

#[test]
fn generate_applies_options_lenient_and_version() {
    let output = retrace(&[
        "schema",
        "generate",
        "response",
        "--option",
        "requireReasoning=false",
        "--lenient",
        "--schema-version",
        "2.0.1",
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let schema = stdout_json(&output);
    assert_eq!(schema["required"], json!(["decision"]));
    assert_eq!(schema["additionalProperties"], true);
    assert_eq!(schema["$id"], "urn:retrace:schema:response:2.0.1");

    let output = retrace(&[
        "schema",
        "generate",
        "analysis",
        "element-detection",
        "--option",
        "includeCoordinates=false",
    ]);
    assert_eq!(output.status.code(), Some(0));
    let schema = stdout_json(&output);
    assert_eq!(
        schema["properties"]["analysisType"]["const"],
        "ELEMENT_DETECTION"
    );
    assert!(
        schema["properties"]["visualElements"]["items"]["properties"]
            .get("boundingBox")
            .is_none()
    );

    let output = retrace(&[
        "schema",
        "generate",
        "comparison",
        "--option",
        "includePixelDifferences=true",
    ]);
    assert_eq!(output.status.code(), Some(0));
    assert!(
        stdout_json(&output)["required"]
            .as_array()
            .unwrap()
            .contains(&json!("pixelDifferences"))
    );
}

#[test]
fn a_bad_option_or_type_is_an_error_naming_the_valid_ones() {
    let output = retrace(&[
        "schema",
        "generate",
        "response",
        "--option",
        "includeCoordinates=true",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "retrace: unknown option `includeCoordinates` for response schemas; valid options: \
         includeOptionalFields, requireReasoning, validationMode\n"
    );
    let output = retrace(&["schema", "generate", "analysis", "HEATMAP"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown analysis type `HEATMAP`"));
}

#[test]
fn validate_accepts_the_seeds_examples() {
    for name in [
        "seed_response_retry",
        "seed_response_proceed",
        "seed_response_abort",
    ] {
        let output = retrace(&["schema", "validate", "response", &fixture(name)]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&output.stdout)
        );
        assert_eq!(String::from_utf8_lossy(&output.stdout), "valid\n");
    }
    let output = retrace(&[
        "schema",
        "validate",
        "analysis",
        "ELEMENT_DETECTION",
        &fixture("seed_analysis_element_detection"),
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout_json(&output),
        json!({ "valid": true, "errors": [], "warnings": [], "executor_compatible": true })
    );
    let output = retrace(&[
        "schema",
        "validate",
        "comparison",
        &fixture("seed_comparison"),
    ]);
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn validate_reports_an_invalid_answer_with_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let mut answer: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("seed_response_abort")).unwrap())
            .unwrap();
    answer["command"] = json!({ "action": "GET_DOM", "parameters": {} });
    let path = dir.path().join("answer.txt");
    std::fs::write(&path, format!("My answer:\n```json\n{answer}\n```\n")).unwrap();
    let path = path.to_string_lossy().into_owned();

    let output = retrace(&["schema", "validate", "response", &path, "--json"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout_json(&output),
        json!({
            "valid": false,
            "errors": [{
                "field": "command",
                "message": "decision ABORT forbids a command",
                "value": { "action": "GET_DOM", "parameters": {} },
                "expected_type": "nothing",
                "path": ["command"]
            }],
            "warnings": [],
            "executor_compatible": false
        })
    );

    let output = retrace(&["schema", "validate", "response", &path]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "invalid: 1 error\n  command: decision ABORT forbids a command \
         (got {\"action\":\"GET_DOM\",\"parameters\":{}}, expected nothing)\n\
         the command cannot be executed as written\n"
    );
}

#[test]
fn validate_checks_variables_and_image_size_when_given() {
    let output = retrace(&[
        "schema",
        "validate",
        "response",
        &fixture("seed_response_proceed"),
        "--variable",
        "other",
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout_json(&output)["errors"][0]["field"],
        "command.parameters.text"
    );

    let output = retrace(&[
        "schema",
        "validate",
        "analysis",
        "ELEMENT_DETECTION",
        &fixture("seed_analysis_element_detection"),
        "--image-size",
        "320x240",
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let result = stdout_json(&output);
    assert_eq!(
        result["errors"][0]["field"],
        "visualElements[0].boundingBox"
    );
    assert_eq!(
        result["errors"][0]["message"],
        "extends past the image's right edge (x + width = 400 > 320)"
    );
}

#[test]
fn validate_fails_with_exit_2_on_unreadable_input() {
    let output = retrace(&["schema", "validate", "response", "/nonexistent/answer.json"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .starts_with("retrace: cannot read /nonexistent/answer.json")
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("prose.txt");
    std::fs::write(&path, "I could not decide.").unwrap();
    let output = retrace(&["schema", "validate", "response", &path.to_string_lossy()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("the answer holds no JSON object"));
}
