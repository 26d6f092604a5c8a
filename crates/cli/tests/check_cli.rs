//! `retrace check` end to end: two demo servers (baseline and a candidate with the 4 px
//! shift), real headless Chromium, the binary's lines, JSON document and exit codes; a bad
//! spec file is named with its field.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use retrace_test_support::cli::json_summary;
use retrace_test_support::cli::run_retrace;
use retrace_test_support::demo::DemoConfig;
use retrace_test_support::demo::DemoThread;
use retrace_test_support::require;

const BIN: &str = env!("CARGO_BIN_EXE_retrace");

fn demo(variant: retrace_demo::Variant) -> DemoThread {
    DemoThread::start(DemoConfig {
        variant,
        ..DemoConfig::default()
    })
}

#[test]
fn a_shifted_page_fails_an_unchanged_page_passes_and_the_exit_code_says_so() {
    require!(Chromium);
    let baseline = demo(retrace_demo::Variant::Baseline);
    let candidate = demo(retrace_demo::Variant::Shift);
    let out = tempfile::tempdir().unwrap();
    let out_dir = out.path().to_str().unwrap();
    let common = [
        "check",
        "--baseline",
        baseline.url(),
        "--candidate",
        candidate.url(),
        "--out",
        out_dir,
        "--retries",
        "0",
        "--jobs",
        "2",
    ];
    let mut args = common.to_vec();
    args.extend(["--page", "/site/pricing", "--page", "/site/about"]);
    let output = run_retrace(BIN, &args, None);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("FAIL  /site/pricing @1280x720"), "{stdout}");
    assert!(stdout.contains("layout/shift at 472,"), "{stdout}");
    assert!(stdout.contains("PASS  /site/about @1280x720"), "{stdout}");
    assert!(
        out.path()
            .join("site_pricing@1280x720/attempt-1/diff.png")
            .exists()
    );

    let mut args = common.to_vec();
    args.extend(["--page", "/site/about", "--json"]);
    let output = run_retrace(BIN, &args, None);
    assert_eq!(output.status.code(), Some(0));
    let document = json_summary(&output);
    assert_eq!(document["pages"][0]["verdict"], "PASS", "{document}");
    assert_eq!(document["pages"][0]["path"], "/site/about");
}

#[test]
fn a_bad_spec_is_an_error_naming_the_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("check.json");
    std::fs::write(
        &spec,
        r#"{"baseline":"http://a","candidate":"http://b","viewports":["wide"]}"#,
    )
    .unwrap();
    let output = run_retrace(BIN, &["check", "--spec", spec.to_str().unwrap()], None);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("check.json")
            && stderr.contains("viewports[0]")
            && stderr.contains("`wide`"),
        "{stderr}"
    );
    let output = run_retrace(BIN, &["check", "--baseline", "http://a"], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--candidate"));
}
