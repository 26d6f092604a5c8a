//! The opt-in awkward parts of the invoicing app over HTTP: the rename layout, faults, the
//! "Mark as sent" checkbox, late scripts, and a 3 s sign-in; each from the app-wide config or
//! a query parameter carried through the login redirect and the sign-out link.

use std::time::Duration;
use std::time::Instant;

use reqwest::StatusCode;
use reqwest::header;
use retrace_demo::DemoConfig;
use retrace_demo::Fault;
use retrace_demo::Faults;
use retrace_demo::Latency;
use retrace_demo::Layout;

use crate::common::get;
use crate::common::latency_header;
use crate::common::login;
use crate::common::serve;
use crate::common::session_cookie;
use crate::common::text;

const PASSWORD: &str = retrace_demo::DEMO_PASSWORD;

#[tokio::test]
async fn rename_changes_only_the_new_invoice_label() {
    let server = serve(DemoConfig::default()).await;
    let cookie = session_cookie(&server).await;
    let v1 = text(&server, "dashboard", Some(&cookie)).await;
    let rename = text(&server, "dashboard?layout=rename", Some(&cookie)).await;
    assert!(rename.contains(
        "id=\"new-invoice\" type=\"button\"><span class=\"same-width\" \
         data-reserve=\"New invoice\">Add invoice</span></button>"
    ));
    let expected = v1
        .replace("layout-v1", "layout-rename")
        .replace("href=\"/logout\"", "href=\"/logout?layout=rename\"")
        .replace(
            "type=\"button\">New invoice</button>",
            "type=\"button\"><span class=\"same-width\" data-reserve=\"New invoice\">\
             Add invoice</span></button>",
        );
    assert_eq!(rename, expected);
    // The login page is v1's but for the body class and the carried layout.
    let v1_login = text(&server, "", None).await;
    let rename_login = text(&server, "?layout=rename", None).await;
    assert_eq!(
        rename_login,
        v1_login
            .replace("layout-v1", "layout-rename")
            .replace("action=\"/login\"", "action=\"/login?layout=rename\"")
    );
    let response = login(&server, "?layout=rename", "demo", PASSWORD).await;
    assert_eq!(
        response.headers()[header::LOCATION],
        "/dashboard?layout=rename"
    );
    assert_eq!(
        retrace_demo::new_invoice_button_label(Layout::Rename),
        "Add invoice"
    );
    assert_eq!(
        retrace_demo::report_button_label(Layout::Rename),
        "Generate report"
    );
}

#[tokio::test]
async fn faults_are_carried_through_sign_in_and_add_their_scripts() {
    let server = serve(DemoConfig::default()).await;
    let query = "?fault=amount-rewritten,save-ignores-clicks";
    let login_page = text(&server, query, None).await;
    let canonical = "?fault=save-ignores-clicks,amount-rewritten";
    assert!(login_page.contains(&format!("action=\"/login{canonical}\"")));
    let response = login(&server, canonical, "demo", PASSWORD).await;
    assert_eq!(
        response.headers()[header::LOCATION],
        format!("/dashboard{canonical}").as_str()
    );
    let cookie = session_cookie(&server).await;
    let faulty = text(&server, &format!("dashboard{canonical}"), Some(&cookie)).await;
    assert!(faulty.contains(&format!("href=\"/logout{canonical}\"")));
    assert!(faulty.contains("stopImmediatePropagation"));
    assert!(faulty.contains("replace(/\\./g,'')"));
    let plain = text(&server, "dashboard", Some(&cookie)).await;
    assert!(!plain.contains("stopImmediatePropagation"));
    assert!(!plain.contains("replace(/\\./g,'')"));
    // The faults change scripts only: the markup before the script is the same.
    let markup = |page: &str| page[..page.find("<script>").unwrap()].replace(canonical, "");
    assert_eq!(markup(&faulty), markup(&plain));

    let bad = get(&server, "dashboard?fault=slow", Some(&cookie)).await;
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    let message = bad.text().await.unwrap();
    assert!(
        message.contains("`fault`") && message.contains("\"slow\""),
        "{message}"
    );
}

#[tokio::test]
async fn app_wide_faults_apply_and_fault_none_turns_them_off() {
    let server = serve(DemoConfig {
        faults: Faults::of(&[Fault::SaveIgnoresClicks]),
        ..DemoConfig::default()
    })
    .await;
    let cookie = session_cookie(&server).await;
    assert!(
        text(&server, "dashboard", Some(&cookie))
            .await
            .contains("stopImmediatePropagation")
    );
    let off = text(&server, "dashboard?fault=none", Some(&cookie)).await;
    assert!(!off.contains("stopImmediatePropagation"));
    assert!(off.contains("href=\"/logout?fault=none\""));
}

#[tokio::test]
async fn the_mark_as_sent_checkbox_is_opt_in() {
    let server = serve(DemoConfig::default()).await;
    let cookie = session_cookie(&server).await;
    let checkbox = "<input class=\"checkbox\" id=\"modal-sent\" type=\"checkbox\">Mark as sent";
    assert!(
        !text(&server, "dashboard", Some(&cookie))
            .await
            .contains("modal-sent\"")
    );
    for query in [
        "?mark_sent=1",
        "?mark_sent=on",
        "?fault=mark-sent-ignores-clicks",
    ] {
        let page = text(&server, &format!("dashboard{query}"), Some(&cookie)).await;
        assert!(page.contains(checkbox), "{query}");
    }
    let bad = get(&server, "dashboard?mark_sent=maybe", Some(&cookie)).await;
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);

    let app_wide = serve(DemoConfig {
        mark_sent: true,
        ..DemoConfig::default()
    })
    .await;
    let cookie = session_cookie(&app_wide).await;
    assert!(
        text(&app_wide, "dashboard", Some(&cookie))
            .await
            .contains(checkbox)
    );
    assert!(
        !text(&app_wide, "dashboard?mark_sent=0", Some(&cookie))
            .await
            .contains(checkbox)
    );
}

#[tokio::test]
async fn late_scripts_leave_only_a_loader_and_arrive_after_their_delay() {
    let server = serve(DemoConfig::default()).await;
    let cookie = session_cookie(&server).await;
    let inline = text(&server, "dashboard", Some(&cookie)).await;
    assert!(inline.contains("byId('modal-form').addEventListener('submit'"));
    assert!(!inline.contains("/assets/dashboard.js"));

    let late = text(&server, "dashboard?script_delay_ms=400", Some(&cookie)).await;
    assert!(
        !late.contains("addEventListener('submit'"),
        "the script is inline"
    );
    assert!(late.contains("window.addEventListener('load'"));
    assert!(late.contains("s.src='/assets/dashboard.js?script_delay_ms=400'"));
    let markup = |page: &str| page[..page.find("<script>").unwrap()].to_owned();
    assert_eq!(
        markup(&late).replace("?script_delay_ms=400", ""),
        markup(&inline)
    );
    let login_page = text(&server, "?script_delay_ms=400", None).await;
    assert!(login_page.contains("s.src='/assets/login.js?script_delay_ms=400'"));
    assert!(login_page.contains("action=\"/login?script_delay_ms=400\""));

    let started = Instant::now();
    let script = get(
        &server,
        "assets/dashboard.js?script_delay_ms=400&fault=amount-rewritten",
        None,
    )
    .await;
    let body_arrived = started.elapsed();
    assert_eq!(script.status(), StatusCode::OK);
    assert_eq!(latency_header(&script), 400);
    assert!(
        body_arrived >= Duration::from_millis(400),
        "{body_arrived:?}"
    );
    assert_eq!(
        script.headers()[header::CONTENT_TYPE],
        "text/javascript; charset=utf-8"
    );
    let body = script.text().await.unwrap();
    assert!(body.contains("addEventListener('submit'"));
    assert!(
        body.contains("replace(/\\./g,'')"),
        "the request's faults are in it"
    );
    assert!(body.ends_with("window.ledgerlineReady=true;\n"));
    let login_script = get(&server, "assets/login.js?script_delay_ms=0", None).await;
    assert_eq!(latency_header(&login_script), 0);
    assert!(login_script.text().await.unwrap().contains("Signing in..."));

    assert_eq!(
        get(&server, "assets/other.js", None).await.status(),
        StatusCode::NOT_FOUND
    );
    for bad in ["soon", "600001"] {
        let response = get(
            &server,
            &format!("dashboard?script_delay_ms={bad}"),
            Some(&cookie),
        )
        .await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{bad}");
        assert!(
            response
                .text()
                .await
                .unwrap()
                .contains(&format!("\"{bad}\""))
        );
    }
}

#[tokio::test]
async fn an_app_wide_script_delay_applies_and_off_overrides_it() {
    let server = serve(DemoConfig {
        script_delay_ms: Some(250),
        ..DemoConfig::default()
    })
    .await;
    let cookie = session_cookie(&server).await;
    let late = text(&server, "dashboard", Some(&cookie)).await;
    assert!(late.contains("s.src='/assets/dashboard.js'"));
    assert_eq!(
        latency_header(&get(&server, "assets/dashboard.js", None).await),
        250
    );
    let inline = text(&server, "dashboard?script_delay_ms=off", Some(&cookie)).await;
    assert!(inline.contains("addEventListener('submit'"));
    assert!(inline.contains("href=\"/logout?script_delay_ms=off\""));
}

#[tokio::test]
async fn a_three_second_latency_holds_the_sign_in_submit() {
    let server = serve(DemoConfig {
        latency: Latency::Fixed(3000),
        ..DemoConfig::default()
    })
    .await;
    let started = Instant::now();
    let response = login(&server, "?layout=v2", "demo", PASSWORD).await;
    assert!(started.elapsed() >= Duration::from_millis(3000));
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(latency_header(&response), 3000);
    assert_eq!(response.headers()[header::LOCATION], "/dashboard?layout=v2");
}
