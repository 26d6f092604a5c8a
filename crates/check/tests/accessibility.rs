//! The accessibility-tree layer of `run_check`, in real headless Chromium against small pages
//! served by two page servers (baseline and candidate, the same path on each):
//!
//! - An image whose alt text changes with its pixels: the pixel box no element explains is
//!   typed by the accessibility change inside it, content naming both names.
//! - A button's `aria-label` changes while the only pixel change (1 px elsewhere) is under the
//!   tolerance: a FAIL of its own, content naming both names, at the button's box.
//! - Only the `aria-label` changes and the screenshots are byte-identical: PASS, and the
//!   accessibility layer is not even run (identical bytes end the check).
//! - A table refactored into an ARIA-less grid of divs, and a heading into a styled div, that
//!   render the same pixels: PASS; and with a 1 px change under the tolerance (so the layer
//!   runs), still PASS, the heading's role change reported as not counting.
//! - A checkbox checked in the candidate: its changed pixels are typed by its state, an
//!   interaction naming the checkbox.
//! - A masked button renamed, with a 1 px change under the tolerance elsewhere: PASS (a mask
//!   hides an element from the accessibility layer as from the pixels).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use retrace_check::CheckSpec;
use retrace_check::Retry;
use retrace_check::Viewport;
use retrace_check::run_check;
use retrace_protocol::events::ChangeKind;
use retrace_protocol::events::DifferenceKind;
use retrace_protocol::events::Events;
use retrace_protocol::events::PageCheck;
use retrace_protocol::events::Verdict;
use retrace_test_support::html_server::HtmlServer;
use retrace_test_support::html_server::serve_html;
use retrace_test_support::require;
use serde_json::Value;

/// The page's path on both servers.
const PATH: &str = "/page";

/// A page: `body` in a plain document with no margins, in a font every machine has.
fn page(body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>t</title>\
         <style>body{{margin:0;font:16px/24px monospace;color:#111;background:#fff}}\
         button{{font:inherit;width:160px;height:40px}}</style></head>\
         <body>{body}</body></html>"
    )
}

/// One black (or, `false`, white) pixel at 600,400: a change of 1 pixel.
fn dot(black: bool) -> String {
    let colour = if black { "#000" } else { "#fff" };
    format!(
        "<div style=\"position:absolute;left:600px;top:400px;width:1px;height:1px;\
         background:{colour}\"></div>"
    )
}

/// `/page` of `baseline` against `/page` of `candidate` at 1280x720, no retries; 10 differing
/// pixels are tolerated.
fn check_spec(baseline: &HtmlServer, candidate: &HtmlServer) -> (CheckSpec, tempfile::TempDir) {
    let out = tempfile::tempdir().unwrap();
    let mut spec = CheckSpec {
        baseline: baseline.url("/"),
        candidate: candidate.url("/"),
        pages: vec![PATH.to_owned()],
        viewports: vec![Viewport {
            width: 1280,
            height: 720,
        }],
        jobs: 1,
        out_dir: out.path().to_path_buf(),
        retry: Retry {
            retries: 0,
            backoff_ms: vec![100],
        },
        ..CheckSpec::default()
    };
    spec.thresholds.max_diff_pixels = 10;
    (spec, out)
}

/// Checks `baseline_body` against `candidate_body`.
async fn check(baseline_body: &str, candidate_body: &str) -> (PageCheck, Value) {
    check_masked(baseline_body, candidate_body, &[]).await
}

/// Checks `baseline_body` against `candidate_body` with `masks`.
async fn check_masked(
    baseline_body: &str,
    candidate_body: &str,
    masks: &[&str],
) -> (PageCheck, Value) {
    let baseline = serve_html(&[(PATH, &page(baseline_body))]);
    let candidate = serve_html(&[(PATH, &page(candidate_body))]);
    let (mut spec, _out) = check_spec(&baseline, &candidate);
    spec.capture.masks = masks.iter().map(|m| (*m).to_owned()).collect();
    let result = run_check(&spec, &Events::none()).await.unwrap();
    let page = result.pages.into_iter().next().unwrap();
    let file = page
        .evidence
        .iter()
        .find(|p| p.ends_with("result.json"))
        .unwrap_or_else(|| panic!("no result.json: {page:?}"));
    let summary: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    (page, summary)
}

/// A 64x64 image of one colour, as a data URL, with its alt text.
fn image(colour: &str, alt: &str) -> String {
    format!(
        "<img style=\"position:absolute;left:200px;top:100px\" width=\"64\" height=\"64\" \
         alt=\"{alt}\" src=\"data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' \
         width='64' height='64'%3E%3Crect width='64' height='64' fill='%23{colour}'/%3E%3C/svg%3E\">"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_whose_alt_text_changes_with_its_pixels_is_content_naming_both_names() {
    require!(Chromium);
    let (page, summary) = check(
        &image("c00", "Revenue, first quarter"),
        &image("00c", "Revenue, second quarter"),
    )
    .await;
    assert_eq!(page.verdict, Verdict::Fail, "{page:?}");
    assert_eq!(page.differences.len(), 1, "{:?}", page.differences);
    let found = &page.differences[0];
    assert_eq!(
        (found.kind, found.change),
        (DifferenceKind::Content, Some(ChangeKind::Text)),
        "{found:?}"
    );
    assert!(
        found.description.contains("img \"Revenue, first quarter\"")
            && found.description.contains("\"Revenue, second quarter\""),
        "{found:?}"
    );
    let region = found.region.unwrap();
    assert!(
        region.x >= 199.0 && region.x + region.width <= 265.0 && region.y >= 99.0,
        "the image's pixels: {region:?}"
    );
    assert_eq!(summary["accessibility"]["changes"][0]["kind"], "renamed");
}

/// A button named by `aria-label`, and the 1-pixel dot in black or white.
fn labelled_button(label: &str, black_dot: bool) -> String {
    format!(
        "<button style=\"position:absolute;left:40px;top:300px\" aria-label=\"{label}\">Go\
         </button>{}",
        dot(black_dot)
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_renamed_button_fails_even_when_the_pixels_are_under_the_tolerance() {
    require!(Chromium);
    let (page, summary) = check(
        &labelled_button("Start free trial", true),
        &labelled_button("Start your trial", false),
    )
    .await;
    let diff_pixels = summary["diff_pixels"].as_u64().unwrap();
    assert!(
        (1..=10).contains(&diff_pixels),
        "one pixel differs, under the tolerance: {summary:#}"
    );
    assert_eq!(page.verdict, Verdict::Fail, "{page:?}");
    assert_eq!(page.differences.len(), 1, "{:?}", page.differences);
    let found = &page.differences[0];
    assert_eq!(
        (found.kind, found.change),
        (DifferenceKind::Content, Some(ChangeKind::Text)),
        "{found:?}"
    );
    assert_eq!(
        found.description,
        "button \"Start free trial\" is now named \"Start your trial\""
    );
    let region = found.region.unwrap();
    assert!(
        (region.x - 40.0).abs() <= 1.0
            && (region.y - 300.0).abs() <= 1.0
            && (region.width - 160.0).abs() <= 1.0,
        "the button's box: {region:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_renamed_button_with_byte_identical_pixels_passes_with_no_further_work() {
    require!(Chromium);
    let (page, summary) = check(
        &labelled_button("Start free trial", true),
        &labelled_button("Start your trial", true),
    )
    .await;
    assert_eq!(page.verdict, Verdict::Pass, "{page:?}");
    assert_eq!(summary["diff_pixels"], 0, "{summary:#}");
    assert!(
        summary["accessibility"]["changes"].is_null(),
        "identical bytes: the trees are not compared: {summary:#}"
    );
    assert!(!page.evidence.iter().any(|p| p.ends_with("diff.png")));
}

/// Plans in a `<table>` under an `<h2>`.
const TABLE: &str = "<h2 class=\"t\">Plans</h2><table class=\"g\"><thead><tr><th>Plan</th>\
    <th>Seats</th><th>Price</th></tr></thead><tbody><tr><td>Starter</td><td>3</td>\
    <td>$9</td></tr><tr><td>Team</td><td>20</td><td>$49</td></tr></tbody></table>";

/// The same plans in a grid of divs under a styled div, no ARIA.
const GRID: &str = "<div class=\"t\">Plans</div><div class=\"g\"><div class=\"h\">Plan</div>\
    <div class=\"h\">Seats</div><div class=\"h\">Price</div><div>Starter</div><div>3</div>\
    <div>$9</div><div>Team</div><div>20</div><div>$49</div></div>";

/// Styles that make both render the same pixels.
const PLAN_STYLE: &str = "<style>.t{display:block;margin:0;padding:8px;font:700 16px/24px \
    monospace;height:24px}table.g{border-collapse:collapse;border-spacing:0}\
    .g th,.g td,.g div{padding:0;width:120px;height:24px;text-align:left;vertical-align:top;\
    font:16px/24px monospace}.g th,.g .h{font-weight:700}div.g{display:grid;\
    grid-template-columns:repeat(3,120px);grid-auto-rows:24px}</style>";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_refactored_into_a_grid_of_divs_that_looks_the_same_passes() {
    require!(Chromium);
    let table = format!("{PLAN_STYLE}{TABLE}");
    let grid = format!("{PLAN_STYLE}{GRID}");
    let (page, summary) = check(&table, &grid).await;
    assert_eq!(page.verdict, Verdict::Pass, "{page:?}");
    assert_eq!(summary["diff_pixels"], 0, "the same pixels: {summary:#}");

    // One pixel apart, under the tolerance: the trees are compared, and a role that went
    // while its text stayed does not count.
    let (page, summary) = check(&format!("{table}{}", dot(true)), &grid).await;
    assert_eq!(page.verdict, Verdict::Pass, "{page:?}");
    let changes = summary["accessibility"]["changes"].as_array().unwrap();
    assert!(
        changes.iter().any(|c| c["kind"] == "role_changed"
            && c["significant"] == false
            && c["before"]["role"] == "heading"),
        "{changes:?}"
    );
    assert!(
        changes.iter().all(|c| c["significant"] == false),
        "{changes:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_masked_button_renamed_passes() {
    require!(Chromium);
    let (page, summary) = check_masked(
        &labelled_button("Start free trial", true),
        &labelled_button("Start your trial", false),
        &["button"],
    )
    .await;
    assert!(
        summary["diff_pixels"].as_u64().unwrap() > 0,
        "the dot differs, so the trees are compared: {summary:#}"
    );
    assert_eq!(page.verdict, Verdict::Pass, "{page:?}");
    assert_eq!(summary["accessibility"]["changes"], serde_json::json!([]));
}

/// A labelled checkbox, checked or not.
fn checkbox(checked: bool) -> String {
    let checked = if checked { " checked" } else { "" };
    format!(
        "<label style=\"position:absolute;left:40px;top:40px\"><input type=\"checkbox\"{checked}>\
         Remember me</label>"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_checkbox_checked_is_an_interaction_naming_it() {
    require!(Chromium);
    let (page, _summary) = check(&checkbox(false), &checkbox(true)).await;
    assert_eq!(page.verdict, Verdict::Fail, "{page:?}");
    assert_eq!(page.differences.len(), 1, "{:?}", page.differences);
    let found = &page.differences[0];
    assert_eq!(
        (found.kind, found.change),
        (DifferenceKind::Interaction, Some(ChangeKind::State)),
        "{found:?}"
    );
    assert_eq!(found.description, "checkbox \"Remember me\" is now checked");
}
