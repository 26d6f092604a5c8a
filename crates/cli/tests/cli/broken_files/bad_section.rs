//! A `[[files]]` section of `retrace.toml` that cannot be used spoils only the tests it
//! matches; a bad setting for every test still stops the suite.

use std::path::Path;

use retrace_test_support::suite_run;

use super::retrace;
use super::text;
use super::unescape;

/// The demo flow's parameters, as flags.
fn demo_params() -> [String; 4] {
    [
        "--param".into(),
        format!("username={}", retrace_demo::DEMO_USERNAME),
        "--param".into(),
        format!("password={}", retrace_demo::DEMO_PASSWORD),
    ]
}

/// `retrace run flows` in `root` with the demo's parameters and every report into `out`.
fn run_flows(root: &Path) -> std::process::Output {
    let params = demo_params();
    let mut args = vec![
        "run",
        "flows",
        "--report",
        "html,junit,json",
        "--out",
        "out",
    ];
    args.extend(params.iter().map(String::as_str));
    retrace(root, &args)
}

/// Three good recordings of the demo flow and a suite file whose second section, matching
/// only `flows/b.json`, sets `threshold = "ten"`: a.json and c.json run and pass in real
/// Chromium, b.json is an error naming the suite file, the section and its pattern, the
/// field, the value, its line and column, on the console and in the JSON, JUnit and HTML
/// reports, and the run exits 2. The same setting in `[defaults]` stops the whole suite,
/// named alike, before any test runs.
#[test]
fn a_bad_files_section_spoils_only_the_tests_it_matches() {
    retrace_test_support::require!(Chromium);
    let app = retrace_test_support::demo::DemoThread::start(
        retrace_test_support::demo::DemoConfig::default(),
    );
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for name in ["a", "b", "c"] {
        suite_run::write_recording(
            root,
            &format!("flows/{name}.json"),
            retrace_runner::demo::DEMO_RECORDING,
        );
    }
    let url = app.url();
    std::fs::write(
        root.join("retrace.toml"),
        format!(
            "[defaults]\nurl = \"{url}\"\n\n[[files]]\nmatch = \"flows/*.json\"\n\
             tags = [\"flows\"]\n\n[[files]]\nmatch = \"flows/b.json\"\nthreshold = \"ten\"\n"
        ),
    )
    .unwrap();
    let out = run_flows(root);
    let console = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{console}\n{}",
        text(&out.stderr)
    );
    let named = "flows/b.json: retrace.toml: files[1].threshold = \"ten\" (line 10, column 13, \
                 in the section matching \"flows/b.json\"): invalid type: string \"ten\", \
                 expected u32";
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join("out/report.json")).unwrap()).unwrap();
    assert_eq!(report["totals"]["tests"], 3, "{report:#}");
    assert_eq!(report["totals"]["passed"], 2, "{report:#}");
    assert_eq!(report["totals"]["error"], 1, "{report:#}");
    let spoiled = report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|test| test["id"] == "flows/b.json")
        .unwrap();
    assert_eq!(spoiled["status"], "error", "{spoiled:#}");
    assert_eq!(spoiled["attempts"][0]["error"], named, "{spoiled:#}");
    let junit = unescape(&std::fs::read_to_string(root.join("out/junit.xml")).unwrap());
    let html = unescape(&std::fs::read_to_string(root.join("out/report.html")).unwrap());
    assert!(junit.contains(named), "JUnit lacks {named}:\n{junit}");
    assert!(html.contains(named), "HTML lacks {named}");
    assert!(
        console.contains(named),
        "the console lacks {named}:\n{console}"
    );

    std::fs::write(
        root.join("retrace.toml"),
        format!("[defaults]\nurl = \"{url}\"\nthreshold = \"ten\"\n"),
    )
    .unwrap();
    std::fs::remove_dir_all(root.join("out")).unwrap();
    let out = run_flows(root);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let named = "retrace: retrace.toml: defaults.threshold (line 3, column 13): invalid type: \
                 string \"ten\", expected u32";
    assert!(stderr.contains(named), "{stderr}\nlacks\n{named}");
    assert!(
        !root.join("out").exists(),
        "a suite that did not start wrote reports"
    );
}
