//! The invoicing app over real HTTP: routes, login, layouts, latency and shutdown.

use reqwest::StatusCode;
use reqwest::header;
use retrace_demo::DemoConfig;
use retrace_demo::Latency;
use retrace_demo::Layout;

use crate::common::client;
use crate::common::get;
use crate::common::latency_header;
use crate::common::login;
use crate::common::serve;
use crate::common::session_cookie;
use crate::common::text;

#[tokio::test]
async fn login_page_has_the_form_and_no_external_resources() {
    let server = serve(DemoConfig::default()).await;
    let response = get(&server, "", None).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body = response.text().await.unwrap();
    for needle in [
        "id=\"username\"",
        "id=\"password\"",
        "id=\"sign-in\"",
        ">Sign in",
        "class=\"layout-v1 login\"",
    ] {
        assert!(body.contains(needle), "missing {needle}");
    }
    assert!(!body.contains("login-error"));
    assert!(!body.contains("src=\"http") && !body.contains("href=\"http"));
}

#[tokio::test]
async fn wrong_credentials_show_an_error_and_set_no_cookie() {
    let server = serve(DemoConfig::default()).await;
    let response = login(&server, "", "demo", "wrong-password").await;
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    assert!(response.headers().get(header::SET_COOKIE).is_none());
    let body = response.text().await.unwrap();
    assert!(body.contains("id=\"login-error\""));
    assert!(body.contains("Wrong username or password."));
    // The username typed is kept, the password is not echoed.
    assert!(body.contains("value=\"demo\""));
    assert!(!body.contains("wrong-password"));
}

#[tokio::test]
async fn right_credentials_lead_to_the_dashboard() {
    let server = serve(DemoConfig::default()).await;
    let response = login(&server, "", "demo", "retrace-demo-pw").await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(response.headers()[header::LOCATION], "/dashboard");
    let cookie = session_cookie(&server).await;
    assert_eq!(cookie, "retrace_demo_session=demo");

    let response = get(&server, "dashboard", Some(&cookie)).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body = response.text().await.unwrap();
    assert!(body.contains("<h1 id=\"welcome\">Welcome back, demo</h1>"));
    assert_eq!(
        body.matches("<tr data-invoice=").count(),
        retrace_demo::INVOICES.len()
    );
    for id in [
        "search",
        "generate-report",
        "report-result",
        "sync-panel",
        "modal",
        "new-invoice",
        "modal-close",
    ] {
        assert!(body.contains(&format!("id=\"{id}\"")), "missing #{id}");
    }
    assert!(body.contains("Generate report"));
    assert!(body.contains(">New invoice</button>"));
}

#[tokio::test]
async fn the_modal_offers_currencies_and_saved_drafts_show_theirs() {
    let server = serve(DemoConfig {
        recent_drafts: true,
        ..DemoConfig::default()
    })
    .await;
    let cookie = session_cookie(&server).await;
    let body = text(&server, "dashboard", Some(&cookie)).await;
    assert!(
        body.contains(
            "<select class=\"input\" id=\"modal-currency\" name=\"currency\" \
             aria-label=\"Currency\"><option value=\"USD\" data-sign=\"$\">USD</option>\
             <option value=\"EUR\" data-sign=\"€\">EUR</option>\
             <option value=\"GBP\" data-sign=\"£\">GBP</option></select>"
        ),
        "{body}"
    );
    assert!(!body.contains("id=\"recent-drafts\""));
    let save = |draft: serde_json::Value| {
        client()
            .post(format!("{}api/drafts", server.url()))
            .header(header::COOKIE, &cookie)
            .json(&draft)
            .send()
    };
    let saved =
        save(serde_json::json!({"customer": "Acme", "amount": "120.00", "currency": "EUR"}));
    assert_eq!(saved.await.unwrap().status(), StatusCode::OK);
    // A client that names no currency saves in the default one.
    let saved = save(serde_json::json!({"customer": "Globex", "amount": "5.00"}));
    assert_eq!(saved.await.unwrap().status(), StatusCode::OK);
    let body = text(&server, "dashboard", Some(&cookie)).await;
    assert!(
        body.contains("id=\"recent-drafts\" data-saved=\"2\""),
        "{body}"
    );
    assert!(
        body.contains("<ul><li>Globex &middot; $5.00</li><li>Acme &middot; €120.00</li></ul>"),
        "{body}"
    );
}

#[tokio::test]
async fn dashboard_and_report_need_a_session() {
    let server = serve(DemoConfig::default()).await;
    let response = get(&server, "dashboard", None).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(response.headers()[header::LOCATION], "/");
    let forged = get(&server, "dashboard", Some("retrace_demo_session=mallory")).await;
    assert_eq!(forged.status(), StatusCode::SEE_OTHER);
    let report = get(&server, "api/report", None).await;
    assert_eq!(report.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn report_sums_the_invoices() {
    let server = serve(DemoConfig::default()).await;
    let cookie = session_cookie(&server).await;
    let response = get(&server, "api/report", Some(&cookie)).await;
    assert_eq!(response.status(), StatusCode::OK);
    let json: serde_json::Value = response.json().await.unwrap();
    assert_eq!(json["invoices"], 8);
    assert_eq!(json["total_cents"], retrace_demo::total_cents());
    assert_eq!(json["total"], "$11,516.45");
    assert_eq!(json["latency_ms"], 0);
}

#[tokio::test]
async fn logout_clears_the_cookie() {
    let server = serve(DemoConfig::default()).await;
    let cookie = session_cookie(&server).await;
    let response = get(&server, "logout", Some(&cookie)).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let set_cookie = response.headers()[header::SET_COOKIE].to_str().unwrap();
    assert!(set_cookie.starts_with("retrace_demo_session=;"));
    assert!(set_cookie.contains("Max-Age=0"));
}

#[tokio::test]
async fn layout_query_selects_v2_and_survives_the_login_redirect() {
    let server = serve(DemoConfig::default()).await;
    let v2 = get(&server, "?layout=v2", None).await.text().await.unwrap();
    assert!(v2.contains("class=\"layout-v2 login\""));
    assert!(v2.contains("action=\"/login?layout=v2\""));

    let response = login(&server, "?layout=v2", "demo", "retrace-demo-pw").await;
    assert_eq!(response.headers()[header::LOCATION], "/dashboard?layout=v2");

    let cookie = session_cookie(&server).await;
    let v2 = get(&server, "dashboard?layout=v2", Some(&cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(v2.contains(">Export report</button>"));
    assert!(!v2.contains("Generate report"));
    // The New invoice button is relabelled; the modal it opens keeps its title.
    assert!(v2.contains("id=\"new-invoice\" type=\"button\">Add invoice</button>"));
    assert!(!v2.contains(">New invoice</button>"));
    assert!(v2.contains("<h2 id=\"modal-title\">New invoice</h2>"));
    let v1 = get(&server, "dashboard", Some(&cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(v1.contains(">Generate report</button>"));
    assert!(v1.contains("id=\"new-invoice\" type=\"button\">New invoice</button>"));
    assert!(!v1.contains("Add invoice"));
    assert!(v1.contains("class=\"layout-v1 dashboard\""));

    let bad = get(&server, "?layout=v9", None).await;
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    assert!(bad.text().await.unwrap().contains("\"v9\""));
}

#[tokio::test]
async fn app_wide_layout_flag_is_the_default_and_the_query_overrides_it() {
    let server = serve(DemoConfig {
        layout: Layout::V2,
        ..DemoConfig::default()
    })
    .await;
    let body = get(&server, "", None).await.text().await.unwrap();
    assert!(body.contains("class=\"layout-v2 login\""));
    assert!(body.contains("action=\"/login\""));
    let body = get(&server, "?layout=v1", None).await.text().await.unwrap();
    assert!(body.contains("class=\"layout-v1 login\""));
}

#[tokio::test]
async fn random_latency_is_drawn_inside_the_range_per_request() {
    let server = serve(DemoConfig {
        latency: Latency::Range {
            min_ms: 3,
            max_ms: 30,
        },
        ..DemoConfig::default()
    })
    .await;
    let cookie = session_cookie(&server).await;
    let mut seen = Vec::new();
    for _ in 0..12 {
        let response = get(&server, "api/report", Some(&cookie)).await;
        let header = latency_header(&response);
        let json: serde_json::Value = response.json().await.unwrap();
        assert_eq!(json["latency_ms"], header);
        assert!((3..=30).contains(&header), "latency {header} outside 3..30");
        seen.push(header);
    }
    let failed = login(&server, "", "demo", "nope").await;
    assert!((3..=30).contains(&latency_header(&failed)));
    let passed = login(&server, "", "demo", "retrace-demo-pw").await;
    assert!((3..=30).contains(&latency_header(&passed)));
    seen.sort_unstable();
    seen.dedup();
    assert!(seen.len() > 1, "12 draws from 3..=30 were all {seen:?}");
}

#[tokio::test]
async fn fixed_latency_applies_to_login_and_report() {
    let server = serve(DemoConfig {
        latency: Latency::Fixed(7),
        ..DemoConfig::default()
    })
    .await;
    let response = login(&server, "", "demo", "retrace-demo-pw").await;
    assert_eq!(latency_header(&response), 7);
    let cookie = session_cookie(&server).await;
    assert_eq!(
        latency_header(&get(&server, "api/report", Some(&cookie)).await),
        7
    );
    // Pages that are not slow on purpose carry no latency header.
    assert!(
        get(&server, "", None)
            .await
            .headers()
            .get(retrace_demo::LATENCY_HEADER)
            .is_none()
    );
}

#[tokio::test]
async fn random_port_is_reported_and_shutdown_stops_serving() {
    let server = serve(DemoConfig::default()).await;
    let addr = server.addr();
    assert_ne!(addr.port(), 0);
    assert_eq!(server.url(), format!("http://127.0.0.1:{}/", addr.port()));
    assert_eq!(
        get(&server, "healthz", None).await.text().await.unwrap(),
        "ok"
    );
    server.shutdown().await.unwrap();
    let after = client().get(format!("http://{addr}/healthz")).send().await;
    assert!(after.is_err(), "still serving after shutdown: {after:?}");
}

#[tokio::test]
async fn dropping_the_handle_stops_serving() {
    let server = serve(DemoConfig::default()).await;
    let addr = server.addr();
    drop(server);
    let mut refused = false;
    // Graceful shutdown runs on the server task; give it a bounded number of chances.
    for _ in 0..50 {
        if client()
            .get(format!("http://{addr}/healthz"))
            .send()
            .await
            .is_err()
        {
            refused = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(refused, "still serving on {addr} after drop");
}

#[tokio::test]
async fn binding_a_taken_port_names_the_address() {
    let server = serve(DemoConfig::default()).await;
    let error = retrace_demo::start(DemoConfig::default(), server.addr())
        .await
        .unwrap_err();
    let message = error.to_string();
    assert!(message.contains(&server.addr().to_string()), "{message}");
    assert!(matches!(error, retrace_demo::DemoError::Bind { .. }));
}

#[test]
fn v2_relabels_the_report_and_new_invoice_buttons_only() {
    let labels = |layout| {
        (
            retrace_demo::report_button_label(layout),
            retrace_demo::new_invoice_button_label(layout),
        )
    };
    assert_eq!(labels(Layout::V1), ("Generate report", "New invoice"));
    assert_eq!(labels(Layout::V2), ("Export report", "Add invoice"));
}
