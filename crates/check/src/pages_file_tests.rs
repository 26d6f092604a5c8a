//! Unit tests of `pages_file`: both formats read to the same pages, and every bad file is
//! named with its entry and field.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

fn load_named(name: &str, text: &str) -> Result<Vec<PageEntry>, SpecError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    load_pages(&path)
}

fn load(text: &str) -> Result<Vec<PageEntry>, SpecError> {
    load_named("pages.json", text)
}

fn load_toml(text: &str) -> Result<Vec<PageEntry>, SpecError> {
    load_named("pages.toml", text)
}

#[test]
fn pages_with_their_masks_go_into_the_spec() {
    let pages = load(r##"{"pages":[{"path":"/a","masks":["#x"]},{"path":"/b"}]}"##).unwrap();
    let mut spec = CheckSpec::default();
    spec.capture.masks = vec![".ad".to_owned()];
    spec.add_pages(pages);
    assert_eq!(spec.pages, ["/a", "/b"]);
    assert_eq!(spec.masks_for("/a"), [".ad", "#x"]);
    assert_eq!(spec.masks_for("/b"), [".ad"]);
}

#[test]
fn a_toml_file_reads_to_the_same_pages_as_its_json_twin() {
    let toml = load_toml(
        r##"
# the pricing page's date changes daily
[[pages]]
path = "/a"
masks = ["#x", '.ad [data-x="1"]']

[[pages]]
path = "/b"
"##,
    )
    .unwrap();
    let json =
        load(r##"{"pages":[{"path":"/a","masks":["#x",".ad [data-x=\"1\"]"]},{"path":"/b"}]}"##)
            .unwrap();
    assert_eq!(toml, json);
    // The name decides, in any case; the same TOML named .json is not JSON.
    assert_eq!(
        load_named("PAGES.TOML", "[[pages]]\npath = \"/a\"\n").unwrap()[0].path,
        "/a"
    );
    let error = load("[[pages]]\npath = \"/a\"\n").unwrap_err();
    assert!(error.message.contains("read as JSON"), "{error}");
}

#[test]
fn a_bad_file_names_itself_and_the_field() {
    let cases = [
        (r#"{"pages":[{"path":"/a"},{"masks":[]}]}"#, "pages[1]"),
        (r#"{"pages":[{"path":"/a"},{"path":"b"}]}"#, "pages[1].path"),
        (
            r#"{"pages":[{"path":"/a"},{"path":"/a"}]}"#,
            "pages[1].path",
        ),
        (
            r##"{"pages":[{"path":"/a","masks":["#x",""]}]}"##,
            "pages[0].masks[1]",
        ),
        (
            r##"{"pages":[{"path":"/a","mask":["#x"]}]}"##,
            "pages[0].mask",
        ),
        (r#"{"pages":[]}"#, "pages"),
        (r#"["/a"]"#, "-"),
        (r#"{"pages":[{"path":"/a"}"#, "-"),
    ];
    for (text, field) in cases {
        let error = load(text).unwrap_err();
        assert_eq!(error.field, field, "{text}: {error}");
        assert!(error.to_string().contains("pages.json"), "{error}");
    }
}

#[test]
fn a_bad_toml_file_names_itself_the_entry_the_field_and_the_line() {
    let cases = [
        // (text, field, in the message)
        (
            "[[pages]]\npath = \"/a\"\n\n[[pages]]\nmasks = []\n",
            "pages[1]",
            "missing field `path`",
        ),
        (
            "[[pages]]\npath = \"/a\"\n\n[[pages]]\npath = 3\n",
            "pages[1].path",
            "line 5: invalid type: integer `3`",
        ),
        (
            "[[pages]]\npath = \"/a\"\nmask = [\"#x\"]\n",
            "pages[0].mask",
            "line 3: unknown field `mask`",
        ),
        (
            "[[pages]]\npath = \"/a\"\n[[pages]]\npath = \"b\"\n",
            "pages[1].path",
            "`b` is not a path",
        ),
        (
            "[[pages]]\npath = \"/a\"\nmasks = [\"#x\", \" \"]\n",
            "pages[0].masks[1]",
            "an empty CSS selector",
        ),
        ("pages = []\n", "pages", "no page to check"),
        ("[[pages]]\npath = \"/a\n", "-", "line 2:"),
        ("", "-", "missing field `pages`"),
    ];
    for (text, field, message) in cases {
        let error = load_toml(text).unwrap_err();
        let shown = error.to_string();
        assert_eq!(error.field, field, "{text:?}: {shown}");
        assert!(shown.contains("pages.toml"), "{shown}");
        assert!(error.message.contains(message), "{text:?}: {shown}");
    }
}

#[test]
fn a_pages_ready_selector_replaces_the_checks_on_that_page_only() {
    let pages = load_toml(
        "[[pages]]\npath = \"/a\"\nready_selector = \"#chart[data-ready]\"\n\n\
         [[pages]]\npath = \"/b\"\n",
    )
    .unwrap();
    let json =
        load(r##"{"pages":[{"path":"/a","ready_selector":"#chart[data-ready]"},{"path":"/b"}]}"##)
            .unwrap();
    assert_eq!(pages, json);
    let mut spec = CheckSpec::default();
    spec.add_pages(pages);
    assert_eq!(spec.ready_selector_for("/a"), Some("#chart[data-ready]"));
    assert_eq!(spec.ready_selector_for("/b"), None);
    spec.capture.ready_selector = Some("main".to_owned());
    assert_eq!(spec.ready_selector_for("/a"), Some("#chart[data-ready]"));
    assert_eq!(spec.ready_selector_for("/b"), Some("main"));

    let error = load_toml("[[pages]]\npath = \"/a\"\nready_selector = \" \"\n").unwrap_err();
    assert_eq!(error.field, "pages[0].ready_selector", "{error}");
    spec.baseline = "http://127.0.0.1:1/".to_owned();
    spec.candidate = "http://127.0.0.1:2/".to_owned();
    spec.validate().unwrap();
    spec.capture
        .page_ready_selectors
        .insert("/b".to_owned(), String::new());
    let error = spec.validate().unwrap_err();
    assert_eq!(
        error.field, "capture.page_ready_selectors.\"/b\"",
        "{error}"
    );
}
