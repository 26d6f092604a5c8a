//! The site's page index: every path a checker can visit, the same in every variant, as a Rust
//! list ([`site_pages`]), as JSON (`/site/pages.json`, with each variant's seeded change) and
//! as text (`/site/pages.txt`, one path a line, for a `--pages FILE`).

use serde::Serialize;

use super::catalog;
use super::content;
use super::stateful;
use super::unsteady;
use super::variant::Variant;
use super::variant::seeded_change;

/// What kind of page a site page is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PageKind {
    /// A content page: the variants' changes and the `identical-markup` markup apply to these.
    Content,
    /// Hard to screenshot stably (animation, transition, late font, lazy images, caret,
    /// sticky header); the same in every variant.
    Unsteady,
    /// A generated catalogue page; the same in every variant.
    Catalog,
    /// Its look depends on more than its markup (it never holds still, or it remembers a
    /// first visit in a cookie); the same in every variant.
    Stateful,
}

/// One page of the content site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SitePage {
    /// The URL path, e.g. `/site/pricing`.
    pub path: String,
    /// What kind of page it is.
    pub kind: PageKind,
}

/// Every page of the content site, content pages first, then the unsteady pages, the
/// catalogue, and the stateful pages.
pub fn site_pages() -> Vec<SitePage> {
    let page = |path: String, kind| SitePage { path, kind };
    content::PATHS
        .iter()
        .map(|path| page((*path).to_owned(), PageKind::Content))
        .chain(
            unsteady::PAGES
                .iter()
                .map(|(path, _, _)| page((*path).to_owned(), PageKind::Unsteady)),
        )
        .chain(
            (1..=catalog::CATALOG_PAGES)
                .map(|n| page(format!("/site/catalog/{n}"), PageKind::Catalog)),
        )
        .chain(
            stateful::PAGES
                .iter()
                .map(|(path, _, _)| page((*path).to_owned(), PageKind::Stateful)),
        )
        .collect()
}

/// `/site/pages.json`: the pages, and each variant with its seeded change (or `null`).
pub fn pages_json() -> serde_json::Value {
    let variants: Vec<serde_json::Value> = Variant::ALL
        .iter()
        .map(|variant| {
            serde_json::json!({
                "name": variant.as_str(),
                "seeded_change": seeded_change(*variant),
            })
        })
        .collect();
    serde_json::json!({
        "pages": site_pages(),
        "variants": variants,
    })
}

/// `/site/pages.txt`: one path a line.
pub fn pages_text() -> String {
    site_pages()
        .iter()
        .map(|page| format!("{}\n", page.path))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_lists_every_page_once() {
        let pages = site_pages();
        assert_eq!(pages.len(), 5 + 7 + 50 + 2);
        let mut paths: Vec<&str> = pages.iter().map(|page| page.path.as_str()).collect();
        paths.sort_unstable();
        paths.dedup();
        assert_eq!(paths.len(), pages.len());
        assert_eq!(pages_text().lines().count(), pages.len());
        let json = pages_json();
        assert_eq!(json["pages"][1]["path"], "/site/pricing");
        assert_eq!(json["pages"][1]["kind"], "content");
        assert_eq!(json["variants"][2]["name"], "shift");
        assert_eq!(json["variants"][2]["seeded_change"]["box"]["width"], 336);
        assert!(json["variants"][0]["seeded_change"].is_null());
    }
}
