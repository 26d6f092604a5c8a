//! Browsers behind an authenticating proxy (headers, `?token=`) and behind TLS (`wss://`).

use pretty_assertions::assert_eq;
use retrace_drive::Backend;
use retrace_drive::DriveError;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::chromium::ConnectOptions;
use retrace_drive::chromium::remote::parse_header_lines;

use crate::support;
use crate::support::TOKEN;

#[tokio::test]
async fn a_header_authenticated_proxy_refuses_without_the_header_and_works_with_it() {
    let server = support::serve_pages();
    let chromium = support::local_browser().await;
    let proxy = support::auth_proxy(&chromium).await;

    // Without the header: discovery is refused, and the error names the endpoint and the
    // answer.
    let error = ChromiumBrowser::connect(&proxy.http_url(), 640, 480)
        .await
        .unwrap_err();
    assert!(matches!(error, DriveError::Launch { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.contains(&proxy.http_url()), "{message}");
    assert!(message.contains("HTTP 401"), "{message}");

    // With it (as the CLI would parse it): discovery, the upgrade and the whole run go through.
    let mut options = ConnectOptions::parse(&proxy.http_url()).unwrap();
    options.headers = parse_header_lines(&format!("Authorization: Bearer {TOKEN}")).unwrap();
    let browser = ChromiumBrowser::connect_with(&options, 640, 480)
        .await
        .unwrap();
    assert!(browser.endpoint().unwrap().starts_with(&proxy.http_url()));
    assert_eq!(browser.pid(), None);
    let page = support::drive(&browser, &server).await;
    // No secret in what a log or an error could show.
    assert!(!format!("{options:?}").contains(TOKEN));

    // The upgrade itself carries the header: a websocket endpoint given directly (no
    // discovery) works with the header and is refused without it.
    let ws_url = browser.ws_url().to_owned();
    assert!(ws_url.starts_with(&format!(
        "ws://127.0.0.1:{}/devtools/browser/",
        proxy.port()
    )));
    let mut direct = ConnectOptions::parse(&ws_url).unwrap();
    let error = ChromiumBrowser::connect_with(&direct, 640, 480)
        .await
        .unwrap_err();
    assert!(error.to_string().contains("401"), "{error}");
    direct.headers = options.headers.clone();
    let second = ChromiumBrowser::connect_with(&direct, 640, 480)
        .await
        .unwrap();
    second.open_page().await.unwrap();
    second.close().await.unwrap();

    // The proxy going away mid-run is a lost session, not a test failure.
    drop(proxy);
    let error = page.screenshot().await.unwrap_err();
    assert!(matches!(error, DriveError::SessionLost { .. }), "{error:?}");
    assert!(
        error.is_retryable() && error.is_infrastructure(),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(
        message.contains("was lost while taking a screenshot"),
        "{message}"
    );
}

#[tokio::test]
async fn a_token_in_the_query_string_reaches_discovery_and_the_websocket() {
    let server = support::serve_pages();
    let chromium = support::local_browser().await;
    let proxy = support::auth_proxy(&chromium).await;

    let wrong = format!("{}/?token=wrong-one", proxy.http_url());
    let error = ChromiumBrowser::connect(&wrong, 640, 480)
        .await
        .unwrap_err();
    let message = error.to_string();
    assert!(message.contains("HTTP 401"), "{message}");
    assert!(message.contains("token=***"), "{message}");
    assert!(
        !message.contains("wrong-one"),
        "the token leaked: {message}"
    );

    let endpoint = format!("{}/?token={TOKEN}", proxy.http_url());
    let browser = ChromiumBrowser::connect(&endpoint, 640, 480).await.unwrap();
    assert!(
        browser.ws_url().ends_with(&format!("?token={TOKEN}")),
        "the token rides on the websocket URL: {}",
        browser.ws_url()
    );
    let shown = browser.endpoint().unwrap();
    assert!(!shown.contains(TOKEN), "{shown}");
    let page = support::drive(&browser, &server).await;
    drop(page);
    browser.close().await.unwrap();
}

#[tokio::test]
async fn wss_through_a_tls_proxy_trusts_the_given_ca() {
    let server = support::serve_pages();
    let chromium = support::local_browser().await;
    let certificates = support::TestCertificates::generate();
    let proxy = support::tls_proxy(&chromium, &certificates).await;
    let endpoint = format!("https://127.0.0.1:{}", proxy.port());
    let headers = parse_header_lines(&format!("Authorization: Bearer {TOKEN}")).unwrap();

    // The test CA is not among the platform's roots: the handshake fails, naming the endpoint.
    let mut options = ConnectOptions::parse(&endpoint).unwrap();
    options.headers = headers.clone();
    let error = ChromiumBrowser::connect_with(&options, 640, 480)
        .await
        .unwrap_err();
    let message = error.to_string();
    assert!(message.contains(&endpoint), "{message}");
    assert!(message.to_lowercase().contains("certificate"), "{message}");

    options.ca_file = Some(certificates.ca_file());
    let browser = ChromiumBrowser::connect_with(&options, 640, 480)
        .await
        .unwrap();
    assert!(
        browser.ws_url().starts_with(&format!(
            "wss://127.0.0.1:{}/devtools/browser/",
            proxy.port()
        )),
        "{}",
        browser.ws_url()
    );
    let page = support::drive(&browser, &server).await;
    // A full-page screenshot is one large CDP message through TLS and the relay.
    let full = page.capture(true).await.unwrap();
    assert!(full.png.len() > 1000);
    drop(page);
    browser.close().await.unwrap();

    // `wss://` given directly works too.
    let (_, browser_path) = chromium.ws_url().split_once("/devtools/").unwrap();
    let wss = format!("wss://localhost:{}/devtools/{browser_path}", proxy.port());
    let mut direct = ConnectOptions::parse(&wss).unwrap();
    direct.headers = headers;
    direct.ca_file = Some(certificates.ca_file());
    let browser = ChromiumBrowser::connect_with(&direct, 640, 480)
        .await
        .unwrap();
    browser.open_page().await.unwrap();
}
