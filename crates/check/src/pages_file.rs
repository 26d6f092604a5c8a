//! A pages file (`retrace check --pages FILE`): the pages to check, each with masks of its
//! own, as TOML (a name ending `.toml`) or JSON (any other name):
//!
//! ```toml
//! [[pages]]
//! path = "/site/"
//! masks = ["#cta-trial", ".ad"]
//! ready_selector = "#chart[data-ready]"
//!
//! [[pages]]
//! path = "/site/pricing"
//! ```
//!
//! ```json
//! {"pages": [
//!   {"path": "/site/", "masks": ["#cta-trial", ".ad"], "ready_selector": "#chart[data-ready]"},
//!   {"path": "/site/pricing"}
//! ]}
//! ```
//!
//! A page's `masks` (CSS selectors) are painted over on that page only, identically on both
//! sides, in addition to the check's `capture.masks`; its `ready_selector` (CSS) must match a
//! visible element before that page is made still, in place of the check's
//! `capture.ready_selector` there (other pages keep the check's). [`load_pages`] reads and validates the
//! file, naming the file, the entry and the field of anything wrong (`pages[1].path`; a TOML
//! file's reading errors also name the line), and [`CheckSpec::add_pages`] puts its pages into
//! a spec.

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
    /// A CSS selector this page waits for (visible) before it is made still, in place of the
    /// check's `--ready-selector` on this page.
    #[serde(default)]
    pub ready_selector: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PagesFile {
    pages: Vec<PageEntry>,
}

/// A bad field (`pages[1].path`, or `-` for the whole file) and what is wrong with it.
type Bad = (String, String);

/// Reads the pages file at `path` (TOML when its name ends `.toml`, else JSON) and validates
/// it: at least one page, each path starting with `/` and listed once, no empty selector.
pub fn load_pages(path: &Path) -> Result<Vec<PageEntry>, SpecError> {
    let in_file = |(field, message): Bad| SpecError {
        file: Some(path.to_path_buf()),
        field,
        message,
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| in_file(("-".to_owned(), format!("cannot read it: {e}"))))?;
    let is_toml = path
        .extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("toml"));
    let file = if is_toml {
        parse_toml(&text)
    } else {
        parse_json(&text)
    }
    .map_err(in_file)?;
    validate(&file.pages).map_err(in_file)?;
    Ok(file.pages)
}

/// `pages[1].path` from a deserialiser's path (`-` for the whole document).
fn field_of(path: &serde_path_to_error::Path) -> String {
    let field = path.to_string();
    if field == "." { "-".to_owned() } else { field }
}

fn parse_json(text: &str) -> Result<PagesFile, Bad> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        let hint = "(read as JSON; a name ending .toml is read as TOML)";
        ("-".to_owned(), format!("not JSON {hint}: {e}"))
    })?;
    if !value.is_object() {
        let expected = r#"an object with a `pages` list: {"pages": [{"path": "/"}]}"#;
        return Err(("-".to_owned(), format!("expected {expected}")));
    }
    serde_path_to_error::deserialize(value)
        .map_err(|error| (field_of(error.path()), error.into_inner().to_string()))
}

fn parse_toml(text: &str) -> Result<PagesFile, Bad> {
    serde_path_to_error::deserialize(toml::Deserializer::new(text)).map_err(|error| {
        let field = field_of(error.path());
        let error = error.into_inner();
        let line = error.span().map(|span| {
            let before = text.get(..span.start).unwrap_or(text);
            before.matches('\n').count() + 1
        });
        let message = error.message().trim_end();
        match line {
            Some(line) => (field, format!("line {line}: {message}")),
            None => (field, message.to_owned()),
        }
    })
}

/// The first bad field of `pages` and what is wrong with it.
fn validate(pages: &[PageEntry]) -> Result<(), Bad> {
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
        if page
            .ready_selector
            .as_ref()
            .is_some_and(|s| s.trim().is_empty())
        {
            return Err((
                format!("pages[{index}].ready_selector"),
                "an empty CSS selector".to_owned(),
            ));
        }
    }
    Ok(())
}

impl CheckSpec {
    /// Checks `entries`' pages (in place of the spec's), each with its own masks and ready
    /// selector.
    pub fn add_pages(&mut self, entries: Vec<PageEntry>) {
        self.pages.clear();
        for entry in entries {
            if let Some(selector) = entry.ready_selector {
                let own = &mut self.capture.page_ready_selectors;
                own.insert(entry.path.clone(), selector);
            }
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
#[path = "pages_file_tests.rs"]
mod tests;
