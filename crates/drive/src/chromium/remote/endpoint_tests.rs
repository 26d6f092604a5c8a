use pretty_assertions::assert_eq;

use super::*;

fn parse(text: &str) -> Endpoint {
    Endpoint::parse(text).unwrap()
}

fn error(text: &str) -> String {
    Endpoint::parse(text).unwrap_err().to_string()
}

#[test]
fn parses_the_three_forms() {
    assert_eq!(parse("http://h:9222").kind(), EndpointKind::Discovery);
    assert_eq!(parse("https://h/chrome").kind(), EndpointKind::Discovery);
    assert_eq!(
        parse("ws://h:9222/devtools/browser/x").kind(),
        EndpointKind::DevTools
    );
    assert_eq!(parse("wss://h/x?token=a").kind(), EndpointKind::DevTools);
    assert_eq!(
        parse("selenium+http://hub:4444").kind(),
        EndpointKind::Selenium
    );
    assert_eq!(
        parse("  Selenium+https://hub/wd ").kind(),
        EndpointKind::Selenium
    );
    assert!(parse("wss://h/x").is_tls());
    assert!(!parse("selenium+http://hub:4444").is_tls());
}

#[test]
fn bad_endpoints_say_what_was_expected_without_the_token() {
    let message = error("ftp://h/x?token=s3cret");
    assert!(message.contains("unsupported scheme `ftp`"), "{message}");
    assert!(message.contains("selenium+http"), "{message}");
    assert!(!message.contains("s3cret"), "{message}");
    let message = error("selenium+ws://hub:4444");
    assert!(message.contains("http or https, not `ws`"), "{message}");
    let message = error("localhost:9222?token=s3cret");
    assert!(message.contains("connect endpoint"), "{message}");
    assert!(!message.contains("s3cret"), "{message}");
    let message = error("not a url at all");
    assert!(message.contains("not a URL"), "{message}");
}

#[test]
fn display_and_debug_hide_tokens_and_credentials() {
    let endpoint = parse("selenium+https://me:hunter2@hub:4444/wd?token=s3cret&region=eu");
    let shown = endpoint.to_string();
    assert_eq!(shown, "selenium+https://hub:4444/wd?token=***&region=eu");
    let debug = format!("{endpoint:?}");
    assert!(
        !debug.contains("s3cret") && !debug.contains("hunter2"),
        "{debug}"
    );
    // The credentials became a header and left the URL.
    let header = endpoint.credentials().unwrap();
    assert!(header.is_sensitive());
    let expected = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode("me:hunter2")
    );
    assert_eq!(header.to_str().unwrap(), expected);
    assert!(!endpoint.url().as_str().contains("hunter2"));
}

#[test]
fn redact_works_on_any_text() {
    assert_eq!(
        redact("wss://u:p@h/x?apiKey=1&a=2&access_token=3#frag"),
        "wss://u:***@h/x?apiKey=***&a=2&access_token=***#***"
    );
    assert_eq!(
        redact("ws://h:1/devtools/browser/x"),
        "ws://h:1/devtools/browser/x"
    );
    assert_eq!(redact("h?token"), "h?token");
}

#[test]
fn discovery_urls_keep_the_path_and_the_query() {
    let endpoint = parse("https://farm.example/chrome/?token=abc");
    assert_eq!(
        endpoint.join("/json/version").as_str(),
        "https://farm.example/chrome/json/version?token=abc"
    );
    let pasted = parse("http://127.0.0.1:9222/json/version");
    assert_eq!(
        pasted.join("/json/version").as_str(),
        "http://127.0.0.1:9222/json/version"
    );
}

#[test]
fn reported_websocket_urls_move_onto_the_users_host_port_and_scheme() {
    let endpoint = parse("https://farm.example:8443/?token=abc");
    let url = endpoint
        .rebase("ws://127.0.0.1:9222/devtools/browser/123", true)
        .unwrap();
    assert_eq!(
        url.as_str(),
        "wss://farm.example:8443/devtools/browser/123?token=abc"
    );

    // Behind a proxy prefix, the browser's path goes under it.
    let endpoint = parse("http://proxy:8080/chrome");
    let url = endpoint
        .rebase("ws://chrome-container:9222/devtools/browser/123", true)
        .unwrap();
    assert_eq!(url.as_str(), "ws://proxy:8080/chrome/devtools/browser/123");
    // A Grid reports its own path (and knows its prefix): kept as is.
    let hub = parse("selenium+http://hub.example:4444/wd/hub?token=t");
    let url = hub
        .rebase("ws://10.0.0.7:4444/session/abc/se/cdp?x=1&token=old", false)
        .unwrap();
    assert_eq!(
        url.as_str(),
        "ws://hub.example:4444/session/abc/se/cdp?x=1&token=t"
    );

    let message = endpoint
        .rebase("::not a url::", true)
        .unwrap_err()
        .to_string();
    assert!(message.contains("does not parse"), "{message}");
}

#[test]
fn sessions_are_counted_per_endpoint_whatever_the_token() {
    assert_eq!(
        parse("ws://farm:3000/?token=a").limit_key(),
        parse("ws://farm:3000/?token=b").limit_key()
    );
    assert_ne!(
        parse("ws://farm:3000/").limit_key(),
        parse("ws://farm:3001/").limit_key()
    );
}
