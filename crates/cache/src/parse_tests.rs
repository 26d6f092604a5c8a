use super::*;
use serde_json::json;

fn parse(value: Value) -> Result<CacheFile> {
    let bytes = serde_json::to_vec(&value).unwrap();
    parse_bytes(
        Path::new("t.json"),
        &bytes,
        "2026-01-01T00:00:00Z".parse().unwrap(),
    )
}

fn minimal() -> Value {
    json!({
        "metadata": {"version": "0.3", "created_at": "2026-11-21T23:24:20.485424Z"},
        "trajectory": [{"id": "toolu_1", "name": "computer", "input": {"action": "left_click", "coordinate": [1, 2]}, "type": "tool_use"}],
    })
}

#[test]
fn defaults_fill_missing_metadata() {
    let file = parse(minimal()).unwrap();
    assert_eq!(file.metadata.execution_attempts, 0);
    assert!(file.metadata.is_valid);
    assert!(file.metadata.visual_validation.is_none());
    assert!(file.cache_parameters.is_empty());
    assert_eq!(file.format, CacheFormat::Object);
}

#[test]
fn errors_name_the_json_path() {
    let mut v = minimal();
    v["metadata"]["created_at"] = json!(12);
    let e = parse(v).unwrap_err().to_string();
    assert_eq!(
        e,
        "t.json: metadata.created_at: expected an RFC 3339 timestamp, got 12"
    );

    let mut v = minimal();
    v["metadata"]["last_executed_at"] = json!("last tuesday");
    let e = parse(v).unwrap_err().to_string();
    assert_eq!(
        e,
        "t.json: metadata.last_executed_at: expected an RFC 3339 timestamp, got \"last tuesday\""
    );

    let mut v = minimal();
    v["trajectory"][0]["input"] = json!("click");
    let e = parse(v).unwrap_err().to_string();
    assert_eq!(
        e,
        "t.json: trajectory[0].input: expected an object, got a string"
    );

    let mut v = minimal();
    v["trajectory"][0]["id"] = json!(5);
    let e = parse(v).unwrap_err().to_string();
    assert!(
        e.starts_with("t.json: trajectory[0].id: invalid type: integer `5`"),
        "{e}"
    );

    let mut v = minimal();
    v["metadata"]["execution_attempts"] = json!(-1);
    let e = parse(v).unwrap_err().to_string();
    assert!(
        e.starts_with("t.json: metadata.execution_attempts: invalid value"),
        "{e}"
    );

    let mut v = minimal();
    v["metadata"]["failures"] = json!([{"timestamp": "2026-11-21T23:24:20Z", "step_index": "six", "error_message": "x", "failure_count_at_step": 1}]);
    let e = parse(v).unwrap_err().to_string();
    assert!(
        e.starts_with("t.json: metadata.failures[0].step_index: invalid type"),
        "{e}"
    );
}

#[test]
fn missing_trajectory_and_wrong_top_level() {
    let mut v = minimal();
    v.as_object_mut().unwrap().remove("trajectory");
    let e = parse(v).unwrap_err().to_string();
    assert_eq!(e, "t.json: (top level): missing field `trajectory`");
    let e = parse(json!("hello")).unwrap_err().to_string();
    assert!(
        e.contains("(top level): expected an object with metadata and trajectory"),
        "{e}"
    );
    let e = parse(json!([{"id": "a", "name": "b", "input": {}}, {"id": "c", "input": {}}]))
        .unwrap_err()
        .to_string();
    assert_eq!(e, "t.json: [1]: missing field `name`");
}

#[test]
fn syntax_errors_give_line_and_column() {
    let text = b"{\n  \"metadata\": {\n    \"version\": \"0.3\",\n";
    let e = parse_bytes(Path::new("t.json"), text, jiff::Timestamp::UNIX_EPOCH).unwrap_err();
    let CacheError::Syntax { line, message, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!(*line, 4);
    assert!(message.contains("truncated"), "{message}");
    let e = parse_bytes(
        Path::new("t.json"),
        b"{\"a\": tru}",
        jiff::Timestamp::UNIX_EPOCH,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("t.json: invalid JSON at line 1, column "),
        "{e}"
    );
    let e = parse_bytes(Path::new("t.json"), b"  \n", jiff::Timestamp::UNIX_EPOCH)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "t.json: file is empty; expected a JSON cache file");
}

#[test]
fn unknown_fields_are_kept_at_every_level() {
    let mut v = minimal();
    v["future"] = json!({"a": 1});
    v["metadata"]["note"] = json!("kept");
    v["metadata"]["visual_validation"] =
        json!({"enabled": true, "method": "phash", "region_size": 50, "threshold": 10});
    v["trajectory"][0]["extra_content"] = json!({"x": [1]});
    let file = parse(v).unwrap();
    assert_eq!(file.extra["future"], json!({"a": 1}));
    assert_eq!(file.metadata.extra["note"], json!("kept"));
    assert_eq!(
        file.metadata.visual_validation.as_ref().unwrap().extra["threshold"],
        json!(10)
    );
    let out = file.to_json();
    assert_eq!(out["future"], json!({"a": 1}));
    assert_eq!(out["metadata"]["note"], json!("kept"));
    assert_eq!(out["metadata"]["visual_validation"]["threshold"], json!(10));
    assert_eq!(out["trajectory"][0]["extra_content"], json!({"x": [1]}));
    assert_eq!(out["trajectory"][0]["visual_representation"], Value::Null);
    assert_eq!(out["trajectory"][0]["cache_control"], Value::Null);
}

#[test]
fn size_limit_is_checked_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.json");
    std::fs::File::create(&path).unwrap().set_len(1000).unwrap();
    let e = read_bytes(&path, 999).unwrap_err().to_string();
    assert!(
        e.contains("file is 1000 bytes, larger than the limit of 999 bytes"),
        "{e}"
    );
    let e = read_bytes(dir.path(), 999).unwrap_err().to_string();
    assert!(e.ends_with("is a directory, not a cache file"), "{e}");

    let fifo = dir.path().join("pipe.json");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let e = read_bytes(&fifo, 999).unwrap_err().to_string();
    assert!(
        e.ends_with("is a special file (device, socket or pipe), not a cache file"),
        "{e}"
    );
}

/// A step written in the computer toolset's form (named by its action, with
/// `toolset_name`) reads as every other step: replay, checks and exports see one shape.
#[test]
fn toolset_form_steps_read_as_computer_steps() {
    let file = parse(json!({"metadata": {"version": "0.3", "created_at": "2026-11-21T23:24:20.485424Z"}, "trajectory": [{
        "type": "tool_use", "id": "t1", "name": "left_click", "toolset_name": "computer",
        "input": {"coordinate": [640, 400]}
    }]}))
    .unwrap();
    let step = &file.trajectory[0];
    assert_eq!(step.name, "computer");
    assert_eq!(
        step.input,
        json!({"action": "left_click", "coordinate": [640, 400]})
    );
    assert!(!step.extra.contains_key("toolset_name"));
}

/// A leading UTF-8 byte-order mark (Notepad, PowerShell) is accepted; bytes that are not
/// UTF-8 are a syntax error naming the line and column.
#[test]
fn a_byte_order_mark_is_skipped_and_bytes_not_utf8_are_named_by_line_and_column() {
    let at = "2026-01-01T00:00:00Z".parse().unwrap();
    let text = serde_json::to_vec_pretty(&minimal()).unwrap();
    let with_bom = [b"\xEF\xBB\xBF".as_slice(), &text].concat();
    assert_eq!(
        parse_bytes(Path::new("t.json"), &with_bom, at).unwrap(),
        parse_bytes(Path::new("t.json"), &text, at).unwrap()
    );
    let latin1 = String::from_utf8(text)
        .unwrap()
        .replace("toolu_1", "caf\u{e9}")
        .replace('\u{e9}', "\u{fffd}")
        .into_bytes();
    let latin1: Vec<u8> = latin1
        .windows(3)
        .position(|w| w == "\u{fffd}".as_bytes())
        .map(|at| [&latin1[..at], b"\xe9", &latin1[at + 3..]].concat())
        .unwrap();
    let error = parse_bytes(Path::new("t.json"), &latin1, at)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("t.json: invalid JSON at line 8, column"),
        "{error}"
    );
}
