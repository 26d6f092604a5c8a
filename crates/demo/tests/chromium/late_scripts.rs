//! Late scripts: with `script_delay_ms`, the dashboard looks complete after `load` while its
//! script is still on the way; until it arrives "New invoice" does nothing and the network is
//! not quiet; once it has run the page shows the same pixels as with an inline script.
//!
//! No timing is assumed: each observation made "before the script arrived" is checked against
//! `window.ledgerlineReady` read after it, and an attempt where the script arrived too soon to
//! tell is repeated with a longer delay.

use retrace_demo::DemoConfig;
use retrace_drive::BrowserBackend;
use retrace_drive::chromium::ChromiumPage;

use crate::common;

const READY: &str = "window.ledgerlineReady===true";
const MODAL_OPEN: &str = "!document.getElementById('modal').hidden";

/// Signs in with late scripts of `delay_ms` and waits for the dashboard's `load` event and the
/// late script's element, not for the script itself.
async fn late_dashboard(page: &ChromiumPage, base: &str, delay_ms: u64) {
    page.navigate(&format!("{base}?script_delay_ms={delay_ms}"))
        .await
        .unwrap();
    common::js(
        page,
        &format!(
            "document.getElementById('username').value='{}';\
             document.getElementById('password').value='{}';\
             document.getElementById('login-form').submit();true",
            retrace_demo::DEMO_USERNAME,
            retrace_demo::DEMO_PASSWORD
        ),
    )
    .await;
    common::wait_for_js(
        page,
        "location.pathname==='/dashboard'&&document.readyState==='complete'&&\
         document.querySelector('script[src^=\"/assets/dashboard.js\"]')!==null",
    )
    .await;
}

/// One attempt; `false` when the script arrived before the checks could tell.
async fn new_invoice_is_inert_until_the_script_arrives(
    page: &ChromiumPage,
    base: &str,
    delay_ms: u64,
) -> bool {
    late_dashboard(page, base, delay_ms).await;
    common::click_on(page, "#new-invoice").await;
    let after_click = common::js(page, &format!("[{MODAL_OPEN},{READY}]")).await;
    if after_click[1] == true {
        return false;
    }
    assert_eq!(
        after_click[0], false,
        "New invoice opened the modal before its script arrived"
    );

    let quiet = page.wait_for_network_idle(500, 1500).await;
    let ready = common::js(page, READY).await == true;
    match quiet {
        Ok(()) => assert!(
            ready,
            "the network went quiet with the script still on the way"
        ),
        Err(error) => assert!(
            error.to_string().contains("in flight"),
            "unexpected error: {error}"
        ),
    }

    common::wait_for_js(page, READY).await;
    common::click_on(page, "#new-invoice").await;
    common::wait_for_js(page, MODAL_OPEN).await;
    true
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_invoice_does_nothing_until_the_late_script_arrives() {
    let server = common::serve(DemoConfig::default()).await;
    let browser = retrace_test_support::chromium!(1280, 800);
    let page = common::open(&browser, "about:blank").await;
    for delay_ms in [4_000, 12_000, 30_000] {
        if new_invoice_is_inert_until_the_script_arrives(&page, &server.url(), delay_ms).await {
            return;
        }
    }
    panic!("the late script always arrived before the first click could be checked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_script_leaves_the_same_pixels_as_an_inline_one() {
    let server = common::serve(DemoConfig::default()).await;
    let browser = retrace_test_support::chromium!(1280, 800);
    let late = common::open(&browser, "about:blank").await;
    late_dashboard(&late, &server.url(), 300).await;
    common::wait_for_js(&late, READY).await;
    let inline = common::open(&browser, "about:blank").await;
    common::sign_in(&inline, &server.url(), "").await;
    let late_pixels = common::settled(&late, false).await;
    let inline_pixels = common::settled(&inline, false).await;
    // Two pages drawn by the same browser can still differ by a unit of a colour channel at
    // an anti-aliased edge (the side cards' rounded corners, rasterised on other tiles):
    // pixels count as different past the threshold a person could see (pixelmatch's 0.1,
    // anti-aliased pixels included), as `retrace check` and replay's stillness count them.
    let options = retrace_vision::DiffOptions {
        include_aa: true,
        draw: false,
        ..retrace_vision::DiffOptions::default()
    };
    let (width, height) = (late_pixels.width, late_pixels.height);
    let diff = retrace_vision::diff_rgba(
        &late_pixels.rgba,
        &inline_pixels.rgba,
        width,
        height,
        &options,
    )
    .unwrap();
    assert_eq!(
        diff.diff_pixels,
        0,
        "the pages differ within {:?}",
        common::diff_box(&late_pixels, &inline_pixels)
    );
    // The late script is the whole script: the modal and its Save draft work.
    common::click_on(&late, "#new-invoice").await;
    common::wait_for_js(&late, MODAL_OPEN).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_login_page_script_arrives_late_too() {
    let server = common::serve(DemoConfig {
        script_delay_ms: Some(200),
        ..DemoConfig::default()
    })
    .await;
    let browser = retrace_test_support::chromium!(1280, 800);
    let page = common::open(&browser, &server.url()).await;
    common::wait_for_js(
        &page,
        "document.querySelector('script[src^=\"/assets/login.js\"]')!==null",
    )
    .await;
    common::wait_for_js(&page, READY).await;
}
