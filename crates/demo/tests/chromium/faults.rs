//! The faults, with real mouse clicks and key presses: each control misbehaves as documented
//! with its fault, and behaves without it (so the test can tell the two apart).

use retrace_demo::DemoConfig;
use retrace_drive::chromium::ChromiumPage;

use crate::common;

const ROWS: &str = "document.querySelectorAll('#invoices tr[data-invoice]').length";

/// Signs in with `query`, opens the New invoice modal and fills it in.
async fn open_filled_modal(page: &ChromiumPage, base: &str, query: &str) {
    common::sign_in(page, base, query).await;
    common::click_on(page, "#new-invoice").await;
    common::wait_for_js(page, "!document.getElementById('modal').hidden").await;
    common::click_on(page, "#modal-customer").await;
    common::type_text(page, "Acme Corp").await;
    common::click_on(page, "#modal-amount").await;
    common::type_text(page, "120.00").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn save_draft_ignores_clicks_with_its_fault() {
    let server = common::serve(DemoConfig::default()).await;
    let browser = retrace_test_support::chromium!(1280, 800);

    let faulty = common::open(&browser, "about:blank").await;
    open_filled_modal(&faulty, &server.url(), "?fault=save-ignores-clicks").await;
    common::count_clicks(&faulty, "#modal-save").await;
    common::click_on(&faulty, "#modal-save").await;
    common::wait_for_js(&faulty, "window.clicksSeen===1").await;
    let state = common::js(
        &faulty,
        &format!("[document.getElementById('modal').hidden,{ROWS}]"),
    )
    .await;
    assert_eq!(state, serde_json::json!([false, 8]), "modal hidden?, rows");

    let working = common::open(&browser, "about:blank").await;
    open_filled_modal(&working, &server.url(), "").await;
    common::click_on(&working, "#modal-save").await;
    common::wait_for_js(
        &working,
        &format!("document.getElementById('modal').hidden&&{ROWS}===9"),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mark_as_sent_ignores_clicks_with_its_fault() {
    let server = common::serve(DemoConfig::default()).await;
    let browser = retrace_test_support::chromium!(1280, 800);
    let checked = "document.getElementById('modal-sent').checked";

    let faulty = common::open(&browser, "about:blank").await;
    open_filled_modal(&faulty, &server.url(), "?fault=mark-sent-ignores-clicks").await;
    common::count_clicks(&faulty, "#modal-sent").await;
    common::click_on(&faulty, "#modal-sent").await;
    common::wait_for_js(&faulty, "window.clicksSeen===1").await;
    assert_eq!(common::js(&faulty, checked).await, false);
    // Its label is no way round it either.
    common::click_on(&faulty, "label[for=modal-sent]").await;
    common::wait_for_js(&faulty, "window.clicksSeen>=2").await;
    assert_eq!(common::js(&faulty, checked).await, false);

    let working = common::open(&browser, "about:blank").await;
    open_filled_modal(&working, &server.url(), "?mark_sent=1").await;
    common::click_on(&working, "#modal-sent").await;
    common::wait_for_js(&working, checked).await;
    common::click_on(&working, "#modal-save").await;
    common::wait_for_js(
        &working,
        "document.querySelector('tr[data-invoice=\"INV-1049\"] .badge')?.textContent==='Pending'",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_amount_field_drops_the_decimal_point_with_its_fault() {
    let server = common::serve(DemoConfig::default()).await;
    let browser = retrace_test_support::chromium!(1280, 800);
    let amount = "document.getElementById('modal-amount').value";

    let faulty = common::open(&browser, "about:blank").await;
    open_filled_modal(&faulty, &server.url(), "?fault=amount-rewritten").await;
    common::wait_for_js(&faulty, &format!("{amount}==='12000'")).await;
    common::click_on(&faulty, "#modal-save").await;
    common::wait_for_js(
        &faulty,
        "document.querySelector('tr[data-invoice=\"INV-1049\"] td.num')?.textContent==='$12000'",
    )
    .await;

    let working = common::open(&browser, "about:blank").await;
    open_filled_modal(&working, &server.url(), "").await;
    assert_eq!(common::js(&working, amount).await, "120.00");
}
