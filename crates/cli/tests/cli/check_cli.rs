//! `retrace check` end to end: two demo servers (baseline and a candidate with the 4 px
//! shift), real headless Chromium, the binary's lines, JSON document and exit codes; a bad
//! spec file is named with its field; a pages file's page masks apply to their page only, and
//! a bad pages file (JSON or TOML) is named with its field; a TOML pages file's per-page
//! ready selector is waited for on its page only, in place of `--ready-selector`; each
//! retry's wait is announced before it; `--judge` with a scripted model over the real
//! Anthropic protocol (its verdict in the lines and the JSON, a rerun served from the cache),
//! and `--judge` with no key refused before a browser starts; the suite file's `[timeouts]`
//! under a spec file's, echoed in the JSON and HTML reports.
//! A window check (`--display`) names a display with no X server, and flags of the other
//! form, before anything starts.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// What only its end-to-end tests use is unused in the fast tier (the e2e build lints it).
#![cfg_attr(not(feature = "e2e"), allow(unused_imports, dead_code))]

use retrace_test_support::cli::json_summary;
use retrace_test_support::cli::run_retrace;
use retrace_test_support::cli::runtime;
use retrace_test_support::demo::DemoThread;
use retrace_test_support::fake_model::FakeAnthropic;
use retrace_test_support::fake_model::ScriptStep;
use retrace_test_support::html_server::serve_html;
use retrace_test_support::require;

const BIN: &str = env!("CARGO_BIN_EXE_retrace");

#[cfg(feature = "e2e")] // the end-to-end tier: real Chromium
#[test]
fn a_shifted_page_fails_an_unchanged_page_passes_and_the_exit_code_says_so() {
    require!(Chromium);
    let baseline = DemoThread::variant(retrace_demo::Variant::Baseline);
    let candidate = DemoThread::variant(retrace_demo::Variant::Shift);
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

/// The suite file's `[timeouts]` are the check's time limits, under a spec file's and the
/// flags; the JSON document and the HTML report say which ran; a bad limit is an error
/// naming the suite file and the field, before a browser starts.
#[cfg(feature = "e2e")] // the end-to-end tier: real Chromium
#[test]
fn the_suite_files_timeouts_are_the_checks_and_the_reports_echo_them() {
    require!(Chromium);
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("retrace.toml");
    std::fs::write(
        &suite,
        "[timeouts]\nnavigation = 40\nmodel = 7\npage = 90\n",
    )
    .unwrap();
    let spec = dir.path().join("check.json");
    std::fs::write(&spec, r#"{"timeouts":{"model_ms":5000}}"#).unwrap();
    let baseline = DemoThread::variant(retrace_demo::Variant::Baseline);
    let candidate = DemoThread::variant(retrace_demo::Variant::Shift);
    let out = dir.path().join("out");
    let args = [
        "check",
        "--suite",
        suite.to_str().unwrap(),
        "--spec",
        spec.to_str().unwrap(),
        "--baseline",
        baseline.url(),
        "--candidate",
        candidate.url(),
        "--page",
        "/site/pricing",
        "--retries",
        "0",
        "--out",
        out.to_str().unwrap(),
        "--report",
        "html",
        "--json",
    ];
    let output = run_retrace(BIN, &args, None);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let document = json_summary(&output);
    let limits = &document["pages"][0]["timeouts"];
    // The suite's navigation and page limits; the spec file's model limit over the suite's.
    assert_eq!(
        (
            &limits["navigation_ms"],
            &limits["page_ms"],
            &limits["model_ms"],
            &limits["readiness_ms"]
        ),
        (
            &serde_json::json!(40_000),
            &serde_json::json!(90_000),
            &serde_json::json!(5_000),
            &serde_json::json!(30_000)
        ),
        "{document}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains("time limits: ") && html.contains("page_ms 90000"),
        "the report does not show the limits"
    );

    std::fs::write(&suite, "[timeouts]\npage = 0\n").unwrap();
    let output = run_retrace(BIN, &args, None);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("retrace.toml") && stderr.contains("timeouts.page"),
        "{stderr}"
    );
}

#[cfg(feature = "e2e")] // the end-to-end tier: real Chromium
#[test]
fn a_pages_file_masks_its_page_only() {
    require!(Chromium);
    let baseline = DemoThread::variant(retrace_demo::Variant::Baseline);
    let candidate = DemoThread::variant(retrace_demo::Variant::Text);
    let seeded = retrace_demo::site::seeded_change(retrace_demo::Variant::Text).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("pages.json");
    // The same page twice (a query the server ignores): masked, then not.
    let unmasked = format!("{}?unmasked", seeded.path);
    let listed = serde_json::json!({"pages": [
        {"path": seeded.path, "masks": [seeded.selector]},
        {"path": unmasked},
    ]});
    std::fs::write(&pages, listed.to_string()).unwrap();
    let out = dir.path().join("out");
    let args = [
        "check",
        "--baseline",
        baseline.url(),
        "--candidate",
        candidate.url(),
        "--pages",
        pages.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--retries",
        "0",
        "--json",
    ];
    let output = run_retrace(BIN, &args, None);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let document = json_summary(&output);
    let verdicts: Vec<(&str, &str)> = document["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["path"].as_str().unwrap(), p["verdict"].as_str().unwrap()))
        .collect();
    assert_eq!(
        verdicts,
        [(seeded.path, "PASS"), (unmasked.as_str(), "FAIL")],
        "{document}"
    );
}

#[cfg(feature = "e2e")] // the end-to-end tier: real Chromium
#[test]
fn each_retry_is_announced_with_its_wait_before_it() {
    require!(Chromium);
    let baseline = DemoThread::variant(retrace_demo::Variant::Baseline);
    let candidate = DemoThread::variant(retrace_demo::Variant::NeverLoads);
    let path = retrace_demo::site::seeded_change(retrace_demo::Variant::NeverLoads)
        .unwrap()
        .path;
    let out = tempfile::tempdir().unwrap();
    let args = [
        "check",
        "--baseline",
        baseline.url(),
        "--candidate",
        candidate.url(),
        "--page",
        path,
        "--out",
        out.path().to_str().unwrap(),
        // The candidate never loads: each attempt ends at this limit.
        "--timeout-ms",
        "3000",
        "--retries",
        "2",
        "--backoff-ms",
        "50,70",
    ];
    let output = run_retrace(BIN, &args, None);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    let retries: Vec<&str> = stdout.lines().filter(|l| l.starts_with("retry ")).collect();
    let head = format!("retry {path} @1280x720: attempt");
    assert_eq!(retries.len(), 2, "{stdout}");
    for (line, expected) in retries.iter().zip(["2 in 50 ms", "3 in 70 ms"]) {
        assert!(
            line.starts_with(&format!("{head} {expected}, after: candidate: "))
                && line.contains("did not load"),
            "{stdout}"
        );
    }
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("ERROR") && last.ends_with("(after 3 attempts)"),
        "{stdout}"
    );
}

/// A chart a timer draws 1 s after the load event (no request, no animation: nothing the
/// stabiliser waits for on its own); `#chart[data-ready]` matches once it is drawn.
const LATE_CHART: &str = "<!doctype html><html><body style=\"margin:0\">\
<div id=\"chart\" style=\"position:absolute;left:0;top:0;width:200px;height:100px\"></div>\
<script>addEventListener('load', () => setTimeout(() => {\
const chart = document.getElementById('chart'); chart.style.background = 'rgb(0, 128, 0)';\
chart.setAttribute('data-ready', ''); }, 1000));</script></body></html>";

/// A page complete at its load event.
const PLAIN: &str =
    "<!doctype html><html><body><main class=\"plain\">Nothing late here.</main></body></html>";

#[cfg(feature = "e2e")] // the end-to-end tier: real Chromium
#[test]
fn a_pages_own_ready_selector_is_waited_for_on_that_page_only() {
    require!(Chromium);
    let site = serve_html(&[("/late", LATE_CHART), ("/plain", PLAIN)]);
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("pages.toml");
    std::fs::write(
        &pages,
        "[[pages]]\npath = \"/late\"\nready_selector = \"#chart[data-ready]\"\n\n\
         [[pages]]\npath = \"/plain\"\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let url = site.url("/");
    let args = [
        "check",
        "--baseline",
        &url,
        "--candidate",
        &url,
        "--pages",
        pages.to_str().unwrap(),
        // Only /plain has it: /late is ready only if its own selector replaces it there,
        // and /plain only if /late's is not used there.
        "--ready-selector",
        "main.plain",
        "--timeout-ms",
        "15000",
        "--retries",
        "0",
        "--out",
        out.to_str().unwrap(),
        "--json",
    ];
    let output = run_retrace(BIN, &args, None);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let document = json_summary(&output);
    let verdicts: Vec<(&str, &str)> = document["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["path"].as_str().unwrap(), p["verdict"].as_str().unwrap()))
        .collect();
    assert_eq!(
        verdicts,
        [("/late", "PASS"), ("/plain", "PASS")],
        "{document}"
    );
    // The chart was waited for: both sides' screenshots show it drawn.
    for side in ["baseline.png", "candidate.png"] {
        let png = std::fs::read(out.join("late@1280x720/attempt-1").join(side)).unwrap();
        let frame = retrace_check::Frame::from_png(&png).unwrap();
        let at = ((50 * frame.width + 100) * 4) as usize;
        assert_eq!(frame.rgba[at..at + 4], [0, 128, 0, 255], "{side}");
    }
}

#[test]
fn a_bad_pages_file_is_an_error_naming_the_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("pages.json");
    std::fs::write(
        &pages,
        r##"{"pages":[{"path":"/a","masks":["#x"]},{"path":"b"}]}"##,
    )
    .unwrap();
    let output = run_retrace(
        BIN,
        &[
            "check",
            "--baseline",
            "http://127.0.0.1:9/",
            "--candidate",
            "http://127.0.0.1:9/",
            "--pages",
            pages.to_str().unwrap(),
            "--chromium",
            "/nonexistent/chromium",
        ],
        None,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("pages.json") && stderr.contains("pages[1].path") && stderr.contains("`b`"),
        "{stderr}"
    );

    // The same in TOML, and a value of the wrong type named with its line.
    for (text, expected) in [
        (
            "[[pages]]\npath = \"/a\"\n[[pages]]\npath = \"b\"\n",
            "pages[1].path: `b` is not a path",
        ),
        (
            "[[pages]]\npath = \"/a\"\nmasks = \"#x\"\n",
            "pages[0].masks: line 3: invalid type: string \"#x\", expected a sequence",
        ),
    ] {
        let pages = dir.path().join("pages.toml");
        std::fs::write(&pages, text).unwrap();
        let output = run_retrace(
            BIN,
            &[
                "check",
                "--baseline",
                "http://127.0.0.1:9/",
                "--candidate",
                "http://127.0.0.1:9/",
                "--pages",
                pages.to_str().unwrap(),
                "--chromium",
                "/nonexistent/chromium",
            ],
            None,
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        let named = format!("{}: {expected}", pages.display());
        assert!(stderr.contains(&named), "{named}\n{stderr}");
    }
}

#[cfg(feature = "e2e")] // the end-to-end tier: real Chromium
#[test]
fn a_judge_overrules_noise_and_a_rerun_is_served_from_its_cache() {
    require!(Chromium);
    let baseline = DemoThread::variant(retrace_demo::Variant::Baseline);
    let candidate = DemoThread::variant(retrace_demo::Variant::Overlay);
    let runtime = runtime();
    let answer = r#"{"verdict":"PASS","confidence":93,"visual_differences":[],"summary":"same"}"#;
    let fake = runtime.block_on(FakeAnthropic::start(vec![ScriptStep::text(answer)]));
    let base_url = fake.base_url();
    let out = tempfile::tempdir().unwrap();
    let args = [
        "check",
        "--baseline",
        baseline.url(),
        "--candidate",
        candidate.url(),
        "--page",
        "/site/features",
        "--out",
        out.path().to_str().unwrap(),
        "--retries",
        "0",
        "--judge",
        "--context",
        "icons.css:3",
        "--model",
        "claude-judge",
    ];
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let output = run_retrace(BIN, &json_args, Some(&base_url));
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let page = &json_summary(&output)["pages"][0];
    assert_eq!(page["verdict"], "PASS", "{page}");
    assert_eq!(page["judge"]["verdict"], "PASS", "{page}");
    assert_eq!(page["judge"]["confidence"], 93, "{page}");
    assert_eq!(page["judge"]["model"], "claude-judge", "{page}");
    assert_eq!(page["timeouts"]["model_ms"], 120_000, "{page}");
    assert_eq!(fake.requests().len(), 1);
    assert!(
        fake.requests()[0]
            .body()
            .to_string()
            .contains("icons.css:3")
    );

    let output = run_retrace(BIN, &args, Some(&base_url));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains(
            "PASS  /site/features @1280x720 (judge claude-judge: PASS, confidence 93, cached)"
        ),
        "{stdout}"
    );
    assert_eq!(fake.requests().len(), 1, "the rerun asked no model");
}

#[test]
fn a_judge_without_a_key_is_refused_before_any_browser_starts() {
    let output = run_retrace(
        BIN,
        &[
            "check",
            "--baseline",
            "http://127.0.0.1:9/",
            "--candidate",
            "http://127.0.0.1:9/",
            "--judge=always",
            "--chromium",
            "/nonexistent/chromium",
        ],
        None,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("ANTHROPIC_API_KEY"), "{stderr}");
    assert!(!stderr.contains("Chromium"), "{stderr}");
}

#[test]
fn a_window_check_names_a_missing_display_and_flags_of_the_other_form() {
    let window = ["check", "--window", "Probe", "--app", "true"];
    let run = |extra: &[&str]| {
        let mut args = window.to_vec();
        args.extend_from_slice(extra);
        let output = run_retrace(BIN, &args, None);
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(output.status.code(), Some(2), "{extra:?}: {stderr}");
        stderr
    };
    // No X server on the display: said before any application starts.
    let stderr = run(&["--display", ":4093"]);
    assert!(
        stderr.contains("--display :4093: the X server does not answer"),
        "{stderr}"
    );
    // Page flags on a window check, window flags on a page check.
    let stderr = run(&["--display", ":4093", "--page", "/pricing"]);
    assert!(stderr.contains("--page is for pages"), "{stderr}");
    let stderr = run(&["--baseline", "http://127.0.0.1:9/"]);
    assert!(
        stderr.contains("--app is for a window check: add --display"),
        "{stderr}"
    );
}
