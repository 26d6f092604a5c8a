//! The differing-pixel count equals pixelmatch 7.2's for every shared screenshot pair.

use retrace_test_support::read_jsonl;
use retrace_test_support::vectors_dir;
use retrace_vision::Diff;
use retrace_vision::DiffOptions;
use retrace_vision::decode_png;
use retrace_vision::diff;

#[test]
fn every_pixelmatch_count_is_reproduced() {
    let rows = read_jsonl(&vectors_dir().join("pixelmatch.jsonl"));
    assert!(!rows.is_empty());
    let mut failures = Vec::new();
    for row in &rows {
        let load = |key: &str| {
            let path = vectors_dir().join(row[key].as_str().unwrap());
            decode_png(&std::fs::read(&path).unwrap()).unwrap()
        };
        let (a, b) = (load("original"), load("variant"));
        let options = DiffOptions {
            threshold: row["threshold"].as_f64().unwrap(),
            draw: false,
            ..DiffOptions::default()
        };
        let Diff::Pixels(result) = diff(&a, &b, &options) else {
            panic!("{}: unexpected layout difference", row["variant"]);
        };
        let want = row["diff_pixels"].as_u64().unwrap();
        if result.diff_pixels != want {
            failures.push(format!(
                "{}: got {}, want {want}",
                row["variant"], result.diff_pixels
            ));
        }
        if want > 0 {
            assert!(!result.changed_areas.is_empty(), "{}", row["variant"]);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
