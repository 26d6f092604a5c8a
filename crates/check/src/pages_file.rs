//! A pages file (`retrace check --pages FILE`): the pages to check, each with masks of its
//! own, as JSON:
//!
//! ```json
//! {"pages": [
//!   {"path": "/site/", "masks": ["#cta-trial", ".ad"]},
//!   {"path": "/site/pricing"}
//! ]}
//! ```
//!
//! A page's `masks` (CSS selectors) are painted over on that page only, identically on both
//! sides, in addition to the check's `capture.masks`. [`load_pages`] reads and validates the
//! file, naming the file and the field of anything wrong (`pages[1].path`), and
//! [`CheckSpec::add_pages`] puts its pages into a spec.

use std::path::Path;

use serde::Deserialize;

use crate::spec::CheckSpec;
use crate::spec::SpecError;

/// One page of a pages file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageEntry {
    /// The page's path, joined to both base URLs (`/site/pricing`).
    pub path: String,
    /// CSS selectors painted over on this page only.
    #[serde(default)]
    pub masks: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PagesFile {
    pages: Vec<PageEntry>,
}

/// Reads the pages file at `path` and validates it: at least one page, each path starting
/// with `/` and listed once, no empty selector.
pub fn load_pages(path: &Path) -> Result<Vec<PageEntry>, SpecError> {
    let in_file = |field: String, message: String| SpecError {
        file: Some(path.to_path_buf()),
        field,
        message,
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| in_file("-".to_owned(), format!("cannot read it: {e}")))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| in_file("-".to_owned(), format!("not JSON: {e}")))?;
    if !value.is_object() {
        let expected = r#"an object with a `pages` list: {"pages": [{"path": "/"}]}"#;
        return Err(in_file("-".to_owned(), format!("expected {expected}")));
    }
    let file: PagesFile = serde_path_to_error::deserialize(value).map_err(|error| {
        let field = error.path().to_string();
        let field = if field == "." { "-".to_owned() } else { field };
        in_file(field, error.into_inner().to_string())
    })?;
    validate(&file.pages).map_err(|(field, message)| in_file(field, message))?;
    Ok(file.pages)
}

/// The first bad field of `pages` and what is wrong with it.
fn validate(pages: &[PageEntry]) -> Result<(), (String, String)> {
    if pages.is_empty() {
        return Err(("pages".to_owned(), "no page to check".to_owned()));
    }
    for (index, page) in pages.iter().enumerate() {
        if !page.path.starts_with('/') {
            return Err((
                format!("pages[{index}].path"),
                format!("`{}` is not a path (it must start with `/`)", page.path),
            ));
        }
        if pages[..index].iter().any(|p| p.path == page.path) {
            return Err((
                format!("pages[{index}].path"),
                format!("`{}` is listed twice", page.path),
            ));
        }
        if let Some(at) = page.masks.iter().position(|m| m.trim().is_empty()) {
            return Err((
                format!("pages[{index}].masks[{at}]"),
                "an empty CSS selector".to_owned(),
            ));
        }
    }
    Ok(())
}

impl CheckSpec {
    /// Checks `entries`' pages (in place of the spec's), each with its own masks.
    pub fn add_pages(&mut self, entries: Vec<PageEntry>) {
        self.pages.clear();
        for entry in entries {
            if !entry.masks.is_empty() {
                self.capture
                    .page_masks
                    .entry(entry.path.clone())
                    .or_default()
                    .extend(entry.masks);
            }
            self.pages.push(entry.path);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn load(text: &str) -> Result<Vec<PageEntry>, SpecError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pages.json");
        std::fs::write(&path, text).unwrap();
        load_pages(&path)
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
}
