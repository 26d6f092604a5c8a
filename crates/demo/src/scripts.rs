//! How a page's JavaScript reaches it: inline in the HTML (the default), or late: the HTML
//! holds only a loader that, after the `load` event, inserts `<script src=/assets/NAME.js?...>`,
//! which the server answers after the configured delay (`script_delay_ms`). Until it arrives
//! the page looks complete but its controls do nothing, and a request is in flight.
//!
//! Every script ends with [`READY_MARK`], so a test can tell it has run.

use crate::page_options::PageOptions;

/// The statement every page script ends with: `window.ledgerlineReady` is `true` once the
/// page's script has run.
pub const READY_MARK: &str = "window.ledgerlineReady=true;\n";

/// The late login page script's file name under `/assets/`.
pub const LOGIN_FILE: &str = "login.js";
/// The late dashboard script's file name under `/assets/`.
pub const DASHBOARD_FILE: &str = "dashboard.js";

/// Where a page's script goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageScript {
    /// In the HTML.
    Inline(String),
    /// Loaded after the `load` event from `src`.
    Late {
        /// The script's URL path and query.
        src: String,
    },
}

impl PageScript {
    /// Places the script `body` of the page whose late script is `/assets/{file}`: inline, or
    /// late when `options` ask for a delay. The late script's URL carries the request's
    /// parameters, so the server builds the same script and applies the same delay.
    pub fn place(file: &str, options: &PageOptions, body: String) -> PageScript {
        match options.script_delay_ms {
            None => PageScript::Inline(body),
            Some(_) => PageScript::Late {
                src: format!("/assets/{file}{}", options.carry),
            },
        }
    }

    /// The HTML to put at the end of the body.
    pub fn to_html(&self) -> String {
        match self {
            PageScript::Inline(body) => format!("<script>{body}</script>"),
            // `src` holds only canonical parameter values (names, digits, `,` `&` `=` `?`).
            PageScript::Late { src } => format!(
                "<script>window.addEventListener('load',function(){{\
                 var s=document.createElement('script');s.src='{src}';\
                 document.body.appendChild(s);}});</script>"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::DemoConfig;
    use crate::page_options::AppQuery;
    use crate::page_options::resolve;

    #[test]
    fn inline_unless_a_delay_is_asked_for() {
        let inline = resolve(&DemoConfig::default(), &AppQuery::default()).unwrap();
        assert_eq!(
            PageScript::place(DASHBOARD_FILE, &inline, "x();".into()).to_html(),
            "<script>x();</script>"
        );
        let late = resolve(
            &DemoConfig {
                script_delay_ms: Some(900),
                ..DemoConfig::default()
            },
            &AppQuery::default(),
        )
        .unwrap();
        let html = PageScript::place(DASHBOARD_FILE, &late, "x();".into()).to_html();
        assert!(!html.contains("x();"), "{html}");
        assert!(html.contains("addEventListener('load'"), "{html}");
        assert!(html.contains("s.src='/assets/dashboard.js'"), "{html}");
    }
}
