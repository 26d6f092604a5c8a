//! Unit tests of `spec`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

#[test]
fn a_json_spec_reads_with_defaults_and_bad_fields_are_named() {
    let spec = parse_spec(
        r#"{"baseline":"http://a/","candidate":"http://b","pages":["/x"],
           "viewports":["800x600"],"thresholds":{"max_diff_pixels":5}}"#,
    )
    .unwrap();
    spec.validate().unwrap();
    assert_eq!(
        spec.viewports[0],
        Viewport {
            width: 800,
            height: 600
        }
    );
    assert_eq!(spec.thresholds.max_diff_pixels, 5);
    assert_eq!(spec.thresholds.pixel_threshold, 0.1);
    assert_eq!(CheckSpec::url(&spec.baseline, "/x"), "http://a/x");

    let error = parse_spec(r#"{"viewports":["12x"]}"#).unwrap_err();
    assert_eq!(error.field, "viewports[0]");
    assert!(error.message.contains("`12x`"), "{error}");
    let error = parse_spec(r#"{"thresholds":{"pixel_treshold":1}}"#).unwrap_err();
    assert_eq!(error.field, "thresholds.pixel_treshold");
    let mut bad = spec.clone();
    bad.pages.push("x".to_owned());
    assert_eq!(bad.validate().unwrap_err().field, "pages[1]");
    let mut bad = spec;
    bad.thresholds.pixel_threshold = 2.0;
    assert_eq!(
        bad.validate().unwrap_err().field,
        "thresholds.pixel_threshold"
    );
}

#[test]
fn judge_options_and_timeouts_read_with_defaults_and_bad_ones_are_named() {
    let spec = parse_spec(
        r#"{"baseline":"http://a","candidate":"http://b",
           "judge":{"when":"always","context":"a.css:3"},"timeouts":{"model_ms":5}}"#,
    )
    .unwrap();
    spec.validate().unwrap();
    assert_eq!(spec.judge.when, crate::JudgeWhen::Always);
    assert_eq!(spec.judge.min_confidence, 80);
    assert_eq!(spec.timeouts.model(), Duration::from_millis(5));
    assert_eq!(spec.timeouts.page_ms, 600_000);
    assert!(spec.judgement_dir().ends_with("retrace-check/judgements"));
    let error = parse_spec(r#"{"judge":{"when":"sometimes"}}"#).unwrap_err();
    assert_eq!(error.field, "judge.when");
    let mut bad = spec.clone();
    bad.judge.min_confidence = 101;
    assert_eq!(bad.validate().unwrap_err().field, "judge.min_confidence");
    let mut bad = spec;
    bad.timeouts.model_ms = 0;
    assert_eq!(bad.validate().unwrap_err().field, "timeouts.model_ms");
}

#[test]
fn a_spec_file_error_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("check.json");
    std::fs::write(&path, r#"{"baseline":"ftp://x","candidate":"http://y"}"#).unwrap();
    let error = load_spec(&path).unwrap_err().to_string();
    assert!(
        error.contains("check.json") && error.contains("baseline"),
        "{error}"
    );
}

#[test]
fn a_spec_file_lies_over_its_base_field_by_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("check.json");
    std::fs::write(
        &path,
        r#"{"baseline":"http://a","candidate":"http://b","timeouts":{"page_ms":9000}}"#,
    )
    .unwrap();
    let mut base = CheckSpec::default();
    base.timeouts.navigation_ms = 1234;
    base.timeouts.page_ms = 1;
    base.viewports = vec!["800x600".parse().unwrap()];
    let spec = load_spec_over(&path, &base).unwrap();
    // The file's limit replaces the base's; the base's others stay.
    assert_eq!(spec.timeouts.page_ms, 9000);
    assert_eq!(spec.timeouts.navigation_ms, 1234);
    assert_eq!(spec.viewports, base.viewports);
    assert_eq!(spec.baseline, "http://a");
    // Over the defaults, a file reads as it reads alone.
    assert_eq!(
        load_spec_over(&path, &CheckSpec::default()).unwrap(),
        parse_spec(&std::fs::read_to_string(&path).unwrap()).unwrap()
    );
    std::fs::write(&path, r#"{"timeouts":{"page_mss":1}}"#).unwrap();
    let error = load_spec_over(&path, &base).unwrap_err();
    assert_eq!(error.field, "timeouts.page_mss");
    assert!(error.to_string().contains("check.json"), "{error}");
}

#[test]
fn backoff_repeats_its_last_wait() {
    let retry = Retry::default();
    assert_eq!(retry.backoff(1), Duration::from_secs(2));
    assert_eq!(retry.backoff(3), Duration::from_secs(8));
    assert_eq!(retry.backoff(9), Duration::from_secs(8));
}

#[test]
fn by_default_every_step_of_the_seeds_backoff_is_reached() {
    let retry = Retry::default();
    let waits: Vec<Duration> = (1..=retry.retries).map(|n| retry.backoff(n)).collect();
    let seconds = [2, 4, 8].map(Duration::from_secs);
    assert_eq!(waits, seconds, "one retry after each wait of 2, 4 and 8 s");
}
