//! `run_check` in real headless Chromium against the demo app's content site: two demo
//! servers play "production" (the baseline variant) and "refactored" (a candidate variant).
//!
//! - Every page against itself and against the identical-markup refactor is PASS, a few runs
//!   in a row (`RETRACE_CHECK_RUNS=20` for the 20 runs; the seeded regressions and
//!   the console error are checked as many times).
//! - Each seeded regression is FAIL with the right difference type and a box overlapping the
//!   demo's documented box of the change; the console error is a `console_error` difference.
//! - The page that never loads is ERROR after the configured retries, every attempt logged
//!   and every backoff announced (`CheckRetryScheduled`, its wait, the ERROR before it);
//!   with a page total shorter than its navigation limit, ERROR at that total, not retried.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use retrace_check::Timeouts;
use retrace_check::run_check;
use retrace_demo::Variant;
use retrace_demo::site::seeded_change;
use retrace_demo::site::seeded_change_box;
use retrace_protocol::events::ChangeKind;
use retrace_protocol::events::DifferenceKind;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use retrace_protocol::events::MemorySink;
use retrace_protocol::events::TestStatus;
use retrace_protocol::events::Verdict;
use retrace_test_support::demo::start_variant;
use retrace_test_support::require;

use common::spec;
use common::summary;

const CONTENT: [&str; 5] = [
    "/site/",
    "/site/pricing",
    "/site/features",
    "/site/about",
    "/site/contact",
];
const UNSTEADY: [&str; 7] = [
    "/site/animation",
    "/site/transition",
    "/site/web-font",
    "/site/lazy-images",
    "/site/caret",
    "/site/sticky-header",
    "/site/animated-image",
];

/// Only these pages of the PASS test (`RETRACE_CHECK_PAGES=/site/a,/site/b`), for stress
/// runs of one page; all by default.
fn only_pages() -> Option<Vec<String>> {
    std::env::var("RETRACE_CHECK_PAGES")
        .ok()
        .map(|v| v.split(',').map(str::to_owned).collect())
}

/// How many times the PASS pages are checked (`RETRACE_CHECK_RUNS`, default 2).
fn runs() -> usize {
    std::env::var("RETRACE_CHECK_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_against_themselves_and_the_identical_markup_refactor_pass() {
    require!(Chromium);
    let baseline = start_variant(Variant::Baseline).await;
    let refactor = start_variant(Variant::IdenticalMarkup).await;
    let mut pages: Vec<&str> = CONTENT.to_vec();
    pages.extend(UNSTEADY);
    let only = only_pages();
    if let Some(only) = &only {
        pages.retain(|p| only.iter().any(|o| o == p));
    }
    for run in 1..=runs() {
        for candidate in [&baseline, &refactor] {
            let (spec, out) = spec(&baseline, candidate, &pages);
            let sink = MemorySink::new();
            let events = Events::none().with(sink.clone());
            let result = run_check(&spec, &events).await.unwrap();
            assert_eq!(result.pages.len(), pages.len());
            let bad: Vec<_> = result
                .pages
                .iter()
                .filter(|p| p.verdict != Verdict::Pass || p.attempts.len() != 1)
                .cloned()
                .collect();
            assert!(
                bad.is_empty(),
                "run {run}, candidate {}: not PASS first time:\n{}",
                candidate.url(),
                summary(&bad)
            );
            let finished = sink
                .events()
                .iter()
                .filter(|e| matches!(e, Event::TestFinished(t) if t.status == TestStatus::Passed))
                .count();
            assert_eq!(finished, pages.len());
            // Evidence: both screenshots of every page, no diff image for identical pixels.
            let first = &result.pages[0];
            assert!(first.evidence.iter().any(|p| p.ends_with("baseline.png")));
            assert!(
                first
                    .evidence
                    .iter()
                    .all(|p| p.exists() && p.starts_with(out.path()))
            );
            assert!(!first.evidence.iter().any(|p| p.ends_with("diff.png")));
        }
    }
}

/// The seeded regressions and the change each must be reported as.
const SEEDED: [(Variant, DifferenceKind, ChangeKind); 5] = [
    (Variant::Shift, DifferenceKind::Layout, ChangeKind::Shift),
    (Variant::Text, DifferenceKind::Content, ChangeKind::Text),
    (Variant::Colour, DifferenceKind::Styling, ChangeKind::Colour),
    (
        Variant::Overlay,
        DifferenceKind::Styling,
        ChangeKind::Pixels,
    ),
    (
        Variant::Removed,
        DifferenceKind::Content,
        ChangeKind::Removed,
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_seeded_regression_fails_with_its_type_and_box() {
    require!(Chromium);
    let baseline = start_variant(Variant::Baseline).await;
    for run in 1..=runs() {
        for (variant, kind, change) in SEEDED {
            let candidate = start_variant(variant).await;
            let seeded = seeded_change(variant).unwrap();
            let documented = seeded_change_box(variant, seeded.path).unwrap();
            let (spec, _out) = spec(&baseline, &candidate, &[seeded.path]);
            let result = run_check(&spec, &Events::none()).await.unwrap();
            let page = &result.pages[0];
            let at = format!("run {run}, {variant} {}", seeded.path);
            assert_eq!(
                page.verdict,
                Verdict::Fail,
                "{at}: {}",
                summary(&result.pages)
            );
            assert_eq!(page.attempts.len(), 1, "{at}: a FAIL is never retried");
            assert!(
                page.differences.iter().all(|d| d.region.is_some()),
                "{at}: {:?}",
                page.differences
            );
            let hit = page.differences.iter().find(|d| {
                let r = d.region.unwrap();
                r.x < f64::from(documented.right())
                    && r.x + r.width > f64::from(documented.x)
                    && r.y < f64::from(documented.bottom())
                    && r.y + r.height > f64::from(documented.y)
            });
            let hit = hit.unwrap_or_else(|| {
                panic!(
                    "{at}: no box overlaps {documented:?}: {:?}",
                    page.differences
                )
            });
            assert_eq!(
                (hit.kind, hit.change),
                (kind, Some(change)),
                "{at}: {hit:?}"
            );
            assert!(
                page.evidence.iter().any(|p| p.ends_with("diff.png")),
                "{at}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_console_error_only_the_candidate_logs_fails_as_console_error() {
    require!(Chromium);
    let baseline = start_variant(Variant::Baseline).await;
    let candidate = start_variant(Variant::ConsoleError).await;
    let path = seeded_change(Variant::ConsoleError).unwrap().path;
    for run in 1..=runs() {
        let (spec, _out) = spec(&baseline, &candidate, &[path]);
        let result = run_check(&spec, &Events::none()).await.unwrap();
        let page = &result.pages[0];
        assert_eq!(
            page.verdict,
            Verdict::Fail,
            "run {run}: {}",
            summary(&result.pages)
        );
        let kinds: Vec<_> = page.differences.iter().map(|d| d.kind).collect();
        assert!(
            kinds.iter().all(|k| *k == DifferenceKind::ConsoleError) && kinds.len() == 2,
            "run {run}: a console.error and an uncaught exception, nothing else: {:?}",
            page.differences
        );
        let text = serde_json::to_string(&page.differences).unwrap();
        assert!(text.contains("seeded console error"), "{text}");
        assert!(text.contains("seeded uncaught exception"), "{text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_never_loads_is_an_error_after_its_retries() {
    require!(Chromium);
    let baseline = start_variant(Variant::Baseline).await;
    let candidate = start_variant(Variant::NeverLoads).await;
    let path = seeded_change(Variant::NeverLoads).unwrap().path;
    let (mut spec, _out) = spec(&baseline, &candidate, &[path]);
    // The page never loads, so this limit is always reached; the baseline loads in far less.
    spec.timeouts = Timeouts {
        navigation_ms: 8_000,
        ..Timeouts::default()
    };
    spec.retry.backoff_ms = vec![100, 250];
    let sink = MemorySink::new();
    let events = Events::none().with(sink.clone());
    let result = run_check(&spec, &events).await.unwrap();
    let page = &result.pages[0];
    assert_eq!(page.verdict, Verdict::Error, "{}", summary(&result.pages));
    assert_eq!(page.attempts.len(), 3, "the first attempt and 2 retries");
    for attempt in &page.attempts {
        let error = attempt.error.as_deref().unwrap_or_default();
        assert_eq!(attempt.verdict, Verdict::Error);
        assert!(
            error.starts_with("candidate:") && error.contains("did not load"),
            "{error}"
        );
    }
    // Each attempt logged, and each backoff announced before its wait, with the ERROR
    // before it: attempt 1, wait 100 ms, attempt 2, wait 250 ms, attempt 3.
    let logged: Vec<(&str, u32, u64, String)> = sink
        .events()
        .iter()
        .filter_map(|e| match e {
            Event::CheckAttemptFinished {
                path: p, attempt, ..
            } if p == path => Some((
                "attempt",
                attempt.attempt,
                0,
                attempt.error.clone().unwrap_or_default(),
            )),
            Event::CheckRetryScheduled {
                path: p,
                viewport,
                attempt,
                wait_ms,
                reason,
            } if p == path => {
                assert_eq!(*viewport, (1280, 720));
                Some(("retry", *attempt, *wait_ms, reason.clone()))
            }
            _ => None,
        })
        .collect();
    let shape: Vec<(&str, u32, u64)> = logged.iter().map(|(k, n, w, _)| (*k, *n, *w)).collect();
    assert_eq!(
        shape,
        [
            ("attempt", 1, 0),
            ("retry", 2, 100),
            ("attempt", 2, 0),
            ("retry", 3, 250),
            ("attempt", 3, 0),
        ]
    );
    for pair in logged.windows(2) {
        if pair[1].0 == "retry" {
            assert_eq!(pair[1].3, pair[0].3, "a retry names the ERROR before it");
        }
    }
    let report = sink.events().into_iter().find_map(|e| match e {
        Event::TestFinished(t) => Some(t),
        _ => None,
    });
    assert_eq!(report.unwrap().status, TestStatus::Error);
    assert_eq!(result.verdict(), Verdict::Error);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_out_of_its_total_time_is_an_error_naming_the_limit_and_not_retried() {
    require!(Chromium);
    let baseline = start_variant(Variant::Baseline).await;
    let candidate = start_variant(Variant::NeverLoads).await;
    let path = seeded_change(Variant::NeverLoads).unwrap().path;
    let (mut spec, _out) = spec(&baseline, &candidate, &[path]);
    // The page never loads: its 3 s total ends long before the 60 s navigation limit would.
    spec.timeouts = Timeouts {
        navigation_ms: 60_000,
        page_ms: 3_000,
        ..Timeouts::default()
    };
    let result = run_check(&spec, &Events::none()).await.unwrap();
    let page = &result.pages[0];
    assert_eq!(page.verdict, Verdict::Error, "{}", summary(&result.pages));
    assert_eq!(page.attempts.len(), 1, "no time is left for a retry");
    let error = page.error.as_deref().unwrap_or_default();
    assert!(error.contains("timeouts.page_ms (3000 ms)"), "{error}");
    assert_eq!(page.timeouts["page_ms"], 3_000);
}
