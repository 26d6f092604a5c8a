//! What a check can be told about capturing, in real headless Chromium against the demo app:
//!
//! - `capture.masks`: the changed-text regression FAILs unmasked and PASSes with the changed
//!   button masked, the mask painted in the same colour over the same box on both sides'
//!   screenshots.
//! - `capture.ready_selector`: a selector matched after the load event lets the page PASS; one
//!   never matched makes it an ERROR naming the selector.
//! - A page that never holds still (the demo's ticker, rewritten by script every frame) is an
//!   ERROR saying what kept changing, with both last frames kept.
//! - An animated GIF (the demo's, 48 frames of 20 ms) is shown as its first frame on both
//!   sides: the page checked against itself is PASS, the first frame's colour in both shots.
//! - Each side gets a fresh browser context: the demo's first-visit page, which remembers a
//!   visit in a cookie (shared across ports of one host), looks the same on both sides.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use retrace_check::Frame;
use retrace_check::Timeouts;
use retrace_check::run_check;
use retrace_demo::Variant;
use retrace_demo::site::ANIMATED_GIF_BAR;
use retrace_demo::site::ANIMATED_GIF_FIRST_FRAME_BAR;
use retrace_demo::site::FIRST_VISIT_PATH;
use retrace_demo::site::Rect;
use retrace_demo::site::TICKER_PATH;
use retrace_demo::site::seeded_change;
use retrace_demo::site::seeded_change_box;
use retrace_protocol::events::Events;
use retrace_protocol::events::PageCheck;
use retrace_protocol::events::Verdict;
use retrace_test_support::demo::start_variant;
use retrace_test_support::require;

use common::spec as spec_of;
use common::summary;

/// The colour `MASK_JS` paints.
const MASK_COLOUR: [u8; 4] = [255, 0, 255, 255];

/// The evidence file of `page` named `name`.
fn evidence<'a>(page: &'a PageCheck, name: &str) -> &'a Path {
    page.evidence
        .iter()
        .find(|p| p.ends_with(name))
        .unwrap_or_else(|| panic!("no {name} in {:?}", page.evidence))
}

/// Pixels inside `area` (one pixel in from each edge, where a fractional layout may blend)
/// that are not the mask's colour.
fn unmasked_pixels(png: &Path, area: Rect) -> usize {
    let frame = Frame::from_png(&std::fs::read(png).unwrap()).unwrap();
    let mut unmasked = 0;
    for y in area.y + 1..area.bottom() - 1 {
        for x in area.x + 1..area.right() - 1 {
            let at = ((y * frame.width + x) * 4) as usize;
            if frame.rgba[at..at + 4] != MASK_COLOUR {
                unmasked += 1;
            }
        }
    }
    unmasked
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mask_over_the_changed_text_makes_it_pass_and_shows_in_both_screenshots() {
    require!(Chromium);
    let baseline = start_variant(Variant::Baseline).await;
    let candidate = start_variant(Variant::Text).await;
    let seeded = seeded_change(Variant::Text).unwrap();
    let changed = seeded_change_box(Variant::Text, seeded.path).unwrap();

    let (mut spec, _out) = spec_of(&baseline, &candidate, &[seeded.path]);
    spec.retry.retries = 0;
    let unmasked = run_check(&spec, &Events::none()).await.unwrap();
    let page = &unmasked.pages[0];
    assert_eq!(page.verdict, Verdict::Fail, "{}", summary(&unmasked.pages));
    for side in ["baseline.png", "candidate.png"] {
        assert!(unmasked_pixels(evidence(page, side), changed) > 0, "{side}");
    }

    let (mut spec, _out) = spec_of(&baseline, &candidate, &[seeded.path]);
    spec.retry.retries = 0;
    spec.capture.masks = vec![seeded.selector.to_owned()];
    let masked = run_check(&spec, &Events::none()).await.unwrap();
    let page = &masked.pages[0];
    assert_eq!(page.verdict, Verdict::Pass, "{}", summary(&masked.pages));
    for side in ["baseline.png", "candidate.png"] {
        assert_eq!(unmasked_pixels(evidence(page, side), changed), 0, "{side}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ready_selector_is_waited_for_and_one_that_never_matches_is_an_error_naming_it() {
    require!(Chromium);
    let baseline = start_variant(Variant::Baseline).await;
    let candidate = start_variant(Variant::IdenticalMarkup).await;
    // The transition page adds `in` to the panel two frames after its load event.
    let (mut spec, _out) = spec_of(&baseline, &candidate, &["/site/transition"]);
    spec.capture.ready_selector = Some("#entering.in".to_owned());
    let ready = run_check(&spec, &Events::none()).await.unwrap();
    assert_eq!(
        ready.pages[0].verdict,
        Verdict::Pass,
        "{}",
        summary(&ready.pages)
    );

    let (mut spec, _out) = spec_of(&baseline, &candidate, &["/site/transition"]);
    spec.retry.retries = 0;
    spec.timeouts = Timeouts {
        readiness_ms: 1_500,
        ..Timeouts::default()
    };
    spec.capture.ready_selector = Some("#entering.gone".to_owned());
    let never = run_check(&spec, &Events::none()).await.unwrap();
    let page = &never.pages[0];
    assert_eq!(page.verdict, Verdict::Error, "{}", summary(&never.pages));
    let error = page.error.as_deref().unwrap_or_default();
    assert!(
        error.starts_with("baseline:")
            && error.contains("not ready: the ready selector did not settle within 1500 ms")
            && error.contains("ready selector `#entering.gone` never appeared"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_never_holds_still_is_an_error_naming_what_changed_with_both_frames_kept() {
    require!(Chromium);
    let baseline = start_variant(Variant::Baseline).await;
    let (mut spec, out) = spec_of(&baseline, &baseline, &[TICKER_PATH]);
    spec.retry.retries = 0;
    spec.capture.max_shots = 4;
    let result = run_check(&spec, &Events::none()).await.unwrap();
    let page = &result.pages[0];
    assert_eq!(page.verdict, Verdict::Error, "{}", summary(&result.pages));
    let error = page.error.as_deref().unwrap_or_default();
    assert!(
        error.starts_with("baseline:")
            && error.contains("never held still: 4 screenshots in a row")
            && error.contains("what kept changing: the box at ")
            && error.contains(", in p \"Frame "),
        "{error}"
    );
    let frames: Vec<Frame> = ["baseline-unstable-1.png", "baseline-unstable-2.png"]
        .iter()
        .map(|name| {
            let path = evidence(page, name);
            assert!(path.starts_with(out.path()), "{path:?}");
            Frame::from_png(&std::fs::read(path).unwrap()).unwrap()
        })
        .collect();
    assert!(
        frames[0] != frames[1],
        "the kept frames are the two that differ"
    );
}

/// How many pixels of the screenshot `png` are exactly `colour`.
fn pixels_of(png: &Path, colour: [u8; 3]) -> usize {
    let frame = Frame::from_png(&std::fs::read(png).unwrap()).unwrap();
    frame
        .rgba
        .chunks_exact(4)
        .filter(|p| p[..3] == colour && p[3] == 255)
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_animated_gif_is_shown_as_its_first_frame_on_both_sides() {
    require!(Chromium);
    let baseline = start_variant(Variant::Baseline).await;
    let candidate = start_variant(Variant::IdenticalMarkup).await;
    let (mut spec, _out) = spec_of(&baseline, &candidate, &["/site/animated-image"]);
    spec.retry.retries = 0;
    let result = run_check(&spec, &Events::none()).await.unwrap();
    let page = &result.pages[0];
    assert_eq!(page.verdict, Verdict::Pass, "{}", summary(&result.pages));
    for side in ["baseline.png", "candidate.png"] {
        let shot = evidence(page, side);
        // The bar is 8x16 GIF pixels shown 4 times as large, pixelated.
        let first = pixels_of(shot, ANIMATED_GIF_FIRST_FRAME_BAR);
        assert_eq!(first, 32 * 64, "{side}: the first frame's bar");
        assert_eq!(
            pixels_of(shot, ANIMATED_GIF_BAR),
            0,
            "{side}: a later frame"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_side_starts_with_no_cookie_from_the_other() {
    require!(Chromium);
    // Two servers on two ports of one host: cookies ignore ports, so a context shared by the
    // sides would show the candidate the baseline's cookie ("Welcome back!").
    let baseline = start_variant(Variant::Baseline).await;
    let candidate = start_variant(Variant::Baseline).await;
    let (mut spec, _out) = spec_of(&baseline, &candidate, &[FIRST_VISIT_PATH]);
    spec.retry.retries = 0;
    let result = run_check(&spec, &Events::none()).await.unwrap();
    let page = &result.pages[0];
    assert_eq!(page.verdict, Verdict::Pass, "{}", summary(&result.pages));
}
