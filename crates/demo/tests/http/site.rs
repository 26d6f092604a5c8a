//! The content site over HTTP: the index, every page in every variant, what each variant
//! changes (and that it changes nothing else), the assets, and the page that never loads.

use std::time::Duration;
use std::time::Instant;

use reqwest::StatusCode;
use reqwest::header;
use retrace_demo::DemoConfig;
use retrace_demo::DemoServer;
use retrace_demo::Variant;
use retrace_demo::site::PageKind;
use retrace_demo::site::seeded_change;
use retrace_demo::site::site_pages;

use crate::common::get;
use crate::common::latency_header;
use crate::common::serve;
use crate::common::text;

/// A server whose app-wide variant is `variant`.
async fn serve_variant(variant: Variant) -> DemoServer {
    serve(DemoConfig {
        variant,
        ..DemoConfig::default()
    })
    .await
}

/// `path` (`/site/...`) relative to the server's base URL.
fn rel(path: &str) -> &str {
    path.trim_start_matches('/')
}

#[tokio::test]
async fn the_index_lists_every_page_and_every_page_answers() {
    let server = serve(DemoConfig::default()).await;
    let listed = text(&server, "site/pages.txt", None).await;
    let paths: Vec<&str> = listed.lines().collect();
    let pages = site_pages();
    assert_eq!(
        paths,
        pages.iter().map(|p| p.path.as_str()).collect::<Vec<_>>()
    );
    assert!(pages.len() >= 5 + 7 + 50);
    let count = |kind| pages.iter().filter(|page| page.kind == kind).count();
    assert_eq!(count(PageKind::Content), 5);
    assert_eq!(count(PageKind::Unsteady), 7);
    assert_eq!(count(PageKind::Catalog), 50);
    assert_eq!(count(PageKind::Stateful), 2);

    let json: serde_json::Value = get(&server, "site/pages.json", None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(json["pages"].as_array().unwrap().len(), pages.len());
    let shift = &json["variants"][2];
    assert_eq!(shift["name"], "shift");
    assert_eq!(shift["seeded_change"]["path"], "/site/pricing");
    assert_eq!(
        shift["seeded_change"]["box"],
        serde_json::json!({"x": 472, "y": 260, "width": 336, "height": 236})
    );

    let mut catalog = Vec::new();
    for path in &paths {
        let response = get(&server, rel(path), None).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert_eq!(response.headers()[header::CACHE_CONTROL], "no-store");
        let body = response.text().await.unwrap();
        assert!(body.starts_with("<!doctype html>"), "{path}");
        assert!(
            !body.contains("http://") && !body.contains("https://"),
            "{path} loads something external"
        );
        if path.starts_with("/site/catalog/") {
            catalog.push(body);
        }
    }
    let mut distinct = catalog.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), catalog.len(), "catalogue pages repeat");
}

#[tokio::test]
async fn a_variant_changes_its_page_only_and_the_rest_stays_byte_identical() {
    let baseline = serve_variant(Variant::Baseline).await;
    for variant in &Variant::ALL[1..] {
        let candidate = serve_variant(*variant).await;
        let changed_path = seeded_change(*variant).map(|change| change.path);
        for page in site_pages() {
            let path = page.path.as_str();
            let changes_this = changed_path == Some(path)
                || (*variant == Variant::IdenticalMarkup && page.kind == PageKind::Content);
            if *variant == Variant::NeverLoads && changes_this {
                continue; // below
            }
            let before = text(&baseline, rel(path), None).await;
            let after = text(&candidate, rel(path), None).await;
            assert_eq!(before == after, !changes_this, "{variant} {path}");
        }
    }
}

#[tokio::test]
async fn each_seeded_change_is_in_the_html() {
    let server = serve(DemoConfig::default()).await;
    let page = |path: &str, variant: Variant| {
        let server = &server;
        let path = format!("{}?variant={variant}", rel(path));
        async move { text(server, &path, None).await }
    };
    let text_change = page("/site/", Variant::Text).await;
    assert!(text_change.contains(">Start your trial</a>"));
    assert!(!text_change.contains("Start free trial"));
    assert!(
        page("/site/", Variant::Baseline)
            .await
            .contains(">Start free trial</a>")
    );
    assert!(
        page("/site/pricing", Variant::Shift)
            .await
            .contains("<article class=\"card moved\" id=\"plan-pro\">")
    );
    let colour = page("/site/features", Variant::Colour).await;
    assert!(colour.contains("id=\"feature-invoices-icon\" style=\"background:#0f9a8e\""));
    assert!(!colour.contains("#0f766e\"></span>"));
    let removed = page("/site/about", Variant::Removed).await;
    assert!(!removed.contains("team-margaret") && removed.contains("team-linus"));
    let noisy = page("/site/", Variant::ConsoleError).await;
    assert!(noisy.contains("console.error(") && noisy.contains("throw new Error("));
    assert!(
        !page("/site/", Variant::Baseline)
            .await
            .contains("console.error(")
    );
    // The variant asked for is carried into the navigation links.
    assert!(noisy.contains("href=\"/site/pricing?variant=console-error\""));
}

#[tokio::test]
async fn identical_markup_shares_no_structure_with_the_baseline() {
    let server = serve(DemoConfig::default()).await;
    for page in site_pages()
        .iter()
        .filter(|page| page.kind == PageKind::Content)
    {
        let alternate = text(
            &server,
            &format!("{}?variant=identical-markup", rel(&page.path)),
            None,
        )
        .await;
        for tag in [
            "<header", "<nav", "<main", "<h1", "<h2", "<ul", "<li>", "<li ", "<article", "<table",
            "<form", "<label", "<footer",
        ] {
            assert!(!alternate.contains(tag), "{} has {tag}", page.path);
        }
        for class in [
            "class=\"card",
            "class=\"hero",
            "class=\"logos",
            "class=\"site-",
        ] {
            assert!(!alternate.contains(class), "{} has {class}", page.path);
        }
    }
    let baseline = text(&server, "site/pricing", None).await;
    assert!(baseline.contains("<table class=\"compare\">"));
}

#[tokio::test]
async fn bad_variants_and_unknown_pages_are_named() {
    let server = serve(DemoConfig::default()).await;
    let bad = get(&server, "site/pricing?variant=prod", None).await;
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    let message = bad.text().await.unwrap();
    assert!(
        message.contains("`variant`") && message.contains("\"prod\""),
        "{message}"
    );
    for path in [
        "site/nope",
        "site/catalog/0",
        "site/catalog/51",
        "site/catalog/x",
        "site/assets/x.ttf",
    ] {
        let response = get(&server, path, None).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        assert!(response.text().await.unwrap().contains("/site/pages.txt"));
    }
    let root = get(&server, "site?variant=shift", None).await;
    assert_eq!(root.status(), StatusCode::SEE_OTHER);
    assert_eq!(root.headers()[header::LOCATION], "/site/?variant=shift");
}

#[tokio::test]
async fn the_web_font_comes_late_and_the_images_are_generated() {
    let server = serve(DemoConfig::default()).await;
    let started = Instant::now();
    let font = get(&server, "site/assets/ledgerline-display.ttf", None).await;
    assert!(started.elapsed() >= Duration::from_millis(retrace_demo::site::WEB_FONT_DELAY_MS));
    assert_eq!(font.status(), StatusCode::OK);
    assert_eq!(latency_header(&font), retrace_demo::site::WEB_FONT_DELAY_MS);
    assert_eq!(font.headers()[header::CONTENT_TYPE], "font/ttf");
    let bytes = font.bytes().await.unwrap();
    assert_eq!(&bytes[..4], &[0, 1, 0, 0]);

    let page = text(&server, "site/lazy-images", None).await;
    assert_eq!(
        page.matches("loading=\"lazy\"").count(),
        retrace_demo::site::LAZY_IMAGES as usize
    );
    let tile = get(&server, "site/assets/tile-12.svg", None).await;
    assert_eq!(tile.headers()[header::CONTENT_TYPE], "image/svg+xml");
    assert!(tile.text().await.unwrap().starts_with("<svg"));
    let font_page = text(&server, "site/web-font", None).await;
    assert!(font_page.contains("font-display:swap"));
    assert!(
        text(&server, "site/caret", None)
            .await
            .contains(" autofocus>")
    );
}

#[tokio::test]
async fn the_never_loads_page_sends_its_start_and_hangs_until_shutdown() {
    let server = serve(DemoConfig::default()).await;
    let path = seeded_change(Variant::NeverLoads).unwrap().path;
    let mut response = get(&server, &format!("{}?variant=never-loads", rel(path)), None).await;
    assert_eq!(response.status(), StatusCode::OK);
    let first = response.chunk().await.unwrap().unwrap();
    let first = String::from_utf8(first.to_vec()).unwrap();
    assert!(
        first.starts_with("<!doctype html>") && first.ends_with("</header>"),
        "{first}"
    );
    // Nothing more comes (a bounded look: a slow machine cannot make it come).
    let more = tokio::time::timeout(Duration::from_secs(2), response.chunk()).await;
    assert!(more.is_err(), "the body went on: {more:?}");
    // Stopping the server cuts it off instead of waiting for it.
    tokio::time::timeout(Duration::from_secs(60), server.shutdown())
        .await
        .expect("shutdown waited for the endless response")
        .unwrap();
    let end = tokio::time::timeout(Duration::from_secs(60), response.chunk())
        .await
        .expect("the body did not end after shutdown");
    assert!(end.is_err(), "the body ended as if complete: {end:?}");
}
