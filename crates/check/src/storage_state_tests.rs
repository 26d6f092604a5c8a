#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

const STATE: &str = r#"{
  "cookies": [
    {"name": "session", "value": "s3cret", "domain": "127.0.0.1", "path": "/",
     "expires": -1, "httpOnly": true, "secure": false, "sameSite": "Lax"},
    {"name": "shared", "value": "x", "domain": ".example.com", "path": "/app"}
  ],
  "origins": [
    {"origin": "http://127.0.0.1:8080", "localStorage": [{"name": "token", "value": "t"}]}
  ]
}"#;

fn write(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

#[test]
fn a_playwright_state_reads_and_hides_its_values() {
    let (_dir, path) = write(STATE);
    let state = load_storage_state(&path).unwrap();
    assert_eq!(state.cookies.len(), 2);
    assert_eq!(state.cookies[0].same_site, Some(SameSite::Lax));
    assert!(state.cookies[0].http_only);
    assert_eq!(
        state.cookies[1].expires, -1.0,
        "no expiry: a session cookie"
    );
    assert!(!format!("{state:?}").contains("s3cret"));
}

#[test]
fn a_bad_state_file_is_named_with_its_field() {
    let cases = [
        (
            r#"{"cookies":[{"name":"a","value":"b","domain":"h","path":"/","sameSite":"Sometimes"}]}"#,
            "cookies[0].sameSite",
        ),
        (
            r#"{"cookies":[{"name":"a","domain":"h","path":"/"}]}"#,
            "missing field `value`",
        ),
        (
            r#"{"cookies":[{"name":"a","value":"b","domain":"","path":"/"}]}"#,
            "cookies[0].domain",
        ),
        (
            r#"{"cookies":[{"name":"a","value":"b","domain":"h","path":"x"}]}"#,
            "cookies[0].path",
        ),
        (
            r#"{"origins":[{"origin":"nowhere","localStorage":[]}]}"#,
            "origins[0].origin",
        ),
        (r#"{"cookies": 3}"#, "cookies"),
        ("not json", "-"),
    ];
    for (text, named) in cases {
        let (_dir, path) = write(text);
        let error = load_storage_state(&path).unwrap_err().to_string();
        assert!(error.contains("state.json"), "{text}: {error}");
        assert!(error.contains(named), "{text}: {error}");
    }
}

#[test]
fn local_storage_follows_the_host_when_only_the_port_differs() {
    let (_dir, path) = write(STATE);
    let state = load_storage_state(&path).unwrap();
    let (origin, items) = state.local_storage_for("http://127.0.0.1:9000/").unwrap();
    assert_eq!(origin, "http://127.0.0.1:9000");
    assert_eq!(items[0].name, "token");
    assert!(state.local_storage_for("http://localhost:9000/").is_none());
}

#[test]
fn a_cookie_of_the_sides_host_is_set_for_the_sides_url() {
    let (_dir, path) = write(STATE);
    let state = load_storage_state(&path).unwrap();
    let own = cookie_param(
        &state.cookies[0],
        "http://127.0.0.1:9000",
        Some("127.0.0.1"),
    );
    assert_eq!(own.url.as_deref(), Some("http://127.0.0.1:9000/"));
    assert_eq!(own.domain, None);
    let other = cookie_param(
        &state.cookies[1],
        "http://127.0.0.1:9000",
        Some("127.0.0.1"),
    );
    assert_eq!(other.domain.as_deref(), Some(".example.com"));
    assert_eq!(other.path.as_deref(), Some("/app"));
}
