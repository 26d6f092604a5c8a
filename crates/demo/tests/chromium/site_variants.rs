//! The content site's variants against the baseline, pixel by pixel in one browser: each
//! seeded change differs from the baseline only inside its documented box (and fills it, for
//! the boxes said to be tight), at 1280x800 and 1280x720; `identical-markup` and every variant
//! on the pages it does not change show the baseline's pixels; `console-error` logs an error
//! and throws.

use futures::StreamExt;
use retrace_demo::DemoConfig;
use retrace_demo::Variant;
use retrace_demo::site::seeded_change;
use retrace_demo::site::seeded_change_box;
use retrace_drive::BrowserBackend;
use retrace_drive::chromium::ChromiumPage;

use crate::common;

const CONTENT: [&str; 5] = [
    "/site/",
    "/site/pricing",
    "/site/features",
    "/site/about",
    "/site/contact",
];

/// The page at `path` with `?variant=`, settled, whole page.
async fn shot(page: &ChromiumPage, base: &str, path: &str, variant: Variant) -> common::Pixels {
    let url = format!("{}{path}?variant={variant}", base.trim_end_matches('/'));
    page.navigate(&url).await.unwrap();
    common::settled(page, true).await
}

/// Compares `variant` with the baseline on `paths` at `width`x`height`.
async fn compare(width: u32, height: u32, variants: &[Variant], paths: &[&str]) {
    let server = common::serve(DemoConfig::default()).await;
    let base = server.url();
    let browser = retrace_test_support::chromium!(width, height);
    let page = common::open(&browser, "about:blank").await;
    for path in paths {
        let baseline = shot(&page, &base, path, Variant::Baseline).await;
        for &variant in variants {
            if variant == Variant::NeverLoads
                && seeded_change(variant).is_some_and(|change| change.path == *path)
            {
                continue; // it never loads; the HTTP tests cover it
            }
            let candidate = shot(&page, &base, path, variant).await;
            let changed = common::diff_box(&baseline, &candidate);
            let at = format!("{variant} {path} at {width}x{height}");
            match seeded_change_box(variant, path) {
                None => assert_eq!(changed, None, "{at}: pixels differ from the baseline"),
                Some(documented) => {
                    let changed = changed.unwrap_or_else(|| panic!("{at}: nothing changed"));
                    assert!(
                        documented.contains(&changed),
                        "{at}: changed {changed:?} outside the documented {documented:?}"
                    );
                    if variant != Variant::Text {
                        assert_eq!(changed, documented, "{at}: the box is not tight");
                    }
                }
            }
        }
    }
}

const SEEDED: [Variant; 5] = [
    Variant::Shift,
    Variant::Text,
    Variant::Colour,
    Variant::Overlay,
    Variant::Removed,
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_variant_on_every_content_page_at_1280x800() {
    let variants: Vec<Variant> = Variant::ALL[1..].to_vec();
    compare(1280, 800, &variants, &CONTENT).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seeded_changes_and_identical_markup_at_1280x720() {
    let mut variants = SEEDED.to_vec();
    variants.push(Variant::IdenticalMarkup);
    compare(1280, 720, &variants, &CONTENT).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn documented_boxes_are_the_changed_elements_boxes() {
    let server = common::serve(DemoConfig::default()).await;
    let browser = retrace_test_support::chromium!(1280, 800);
    let page = common::open(&browser, "about:blank").await;
    for variant in SEEDED {
        let change = seeded_change(variant).unwrap();
        let documented = change.region.unwrap();
        page.navigate(&format!(
            "{}{}",
            server.url().trim_end_matches('/'),
            change.path
        ))
        .await
        .unwrap();
        let (x, y, width, height) = common::element_box(&page, change.selector).await;
        let grown = if variant == Variant::Shift { 4.0 } else { 0.0 };
        assert_eq!(
            (x, y, width, height + grown),
            (
                f64::from(documented.x),
                f64::from(documented.y),
                f64::from(documented.width),
                f64::from(documented.height)
            ),
            "{variant}: {}",
            change.selector
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn console_error_logs_an_error_and_throws_while_the_baseline_does_not() {
    use chromiumoxide::cdp::js_protocol::runtime::ConsoleApiCalledType;
    use chromiumoxide::cdp::js_protocol::runtime::EventConsoleApiCalled;
    use chromiumoxide::cdp::js_protocol::runtime::EventExceptionThrown;

    let server = common::serve(DemoConfig::default()).await;
    let browser = retrace_test_support::chromium!(1280, 800);
    let page = common::open(&browser, "about:blank").await;
    let mut console = page
        .cdp_page()
        .event_listener::<EventConsoleApiCalled>()
        .await
        .unwrap();
    let mut exceptions = page
        .cdp_page()
        .event_listener::<EventExceptionThrown>()
        .await
        .unwrap();
    let path = seeded_change(Variant::ConsoleError).unwrap().path;
    let base = server.url();
    let base = base.trim_end_matches('/');
    // The baseline first: events come in order, so any it caused would arrive first.
    page.navigate(&format!("{base}{path}")).await.unwrap();
    page.navigate(&format!("{base}{path}?variant=console-error"))
        .await
        .unwrap();
    let logged = tokio::time::timeout(common::DEADLINE, console.next())
        .await
        .expect("no console message")
        .unwrap();
    assert_eq!(logged.r#type, ConsoleApiCalledType::Error);
    let text = serde_json::to_string(&logged.args).unwrap();
    assert!(text.contains("seeded console error"), "{text}");
    let thrown = tokio::time::timeout(common::DEADLINE, exceptions.next())
        .await
        .expect("no uncaught exception")
        .unwrap();
    let text = serde_json::to_string(&thrown.exception_details).unwrap();
    assert!(text.contains("seeded uncaught exception"), "{text}");
}
