//! [`PageLocation`]: where a page is, as a step that navigates is recorded and checked by
//! ([`crate::checks::navigation`]); read by the screen probes, stored by the recorder and the
//! plan.

use serde::Deserialize;
use serde::Serialize;

/// Where a page is: its document's URL path and title (what a step that navigates is
/// checked by; the query and fragment are left out, see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageLocation {
    /// The URL path (`/dashboard`).
    pub path: String,
    /// The document's title.
    pub title: String,
}

impl PageLocation {
    /// The JavaScript expression that reads it from a page.
    pub const EXPRESSION: &'static str = "({path: location.pathname, title: document.title})";
}

impl std::fmt::Display for PageLocation {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{} (titled '{}')", self.path, self.title)
    }
}
