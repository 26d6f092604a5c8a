//! The site's pages whose look depends on more than their markup, the same in every variant:
//! one that never holds still (a counter rewritten by script on every animation frame, which
//! freezing CSS animations cannot stop), and one that remembers a first visit in a cookie (a
//! browser that keeps cookies between the two sides of a check shows the second side a
//! different page). A visual checker must call the first an ERROR and keep the second's
//! sides apart.

use super::baseline_markup::behaviour_page;

/// The page that never holds still.
pub const TICKER_PATH: &str = "/site/ticker";
/// The page that remembers a first visit.
pub const FIRST_VISIT_PATH: &str = "/site/first-visit";
/// The cookie [`FIRST_VISIT_PATH`] sets (`ledgerline_seen=1`, path `/`, no expiry).
pub const FIRST_VISIT_COOKIE: &str = "ledgerline_seen";

/// Every page: path, title, and what it does.
pub const PAGES: [(&str, &str, &str); 2] = [
    (
        TICKER_PATH,
        "Ticker",
        "a counter that a script rewrites on every animation frame, so it never holds still",
    ),
    (
        FIRST_VISIT_PATH,
        "First visit",
        "a greeting that says \"first visit\" until a cookie it sets says you have been here",
    ),
];

const TICKER_CSS: &str = "
.ticker{font-size:32px;line-height:48px;font-variant-numeric:tabular-nums;color:#0f172a}
";
const TICKER_HTML: &str = "<p class=\"ticker\" id=\"ticker\">Frame 0</p>";
/// One more on every animation frame: no CSS animation or transition, nothing a freeze of
/// those stops.
const TICKER_JS: &str = "(function(){var n=0,el=document.getElementById('ticker');\
function tick(){n+=1;el.textContent='Frame '+n;requestAnimationFrame(tick);}\
requestAnimationFrame(tick);})();";

const FIRST_VISIT_CSS: &str = "
.greeting{font-size:28px;line-height:40px;color:#0f172a}
.greeting.back{color:#0f766e}
";
const FIRST_VISIT_HTML: &str =
    "<p class=\"greeting\" id=\"greeting\">Welcome! This is your first visit.</p>";
/// Reads the cookie before setting it, so the first visit in a browser says so and every
/// later one (any port of the same host: cookies ignore ports) says welcome back.
const FIRST_VISIT_JS: &str = "(function(){var el=document.getElementById('greeting');\
if(document.cookie.split('; ').indexOf('ledgerline_seen=1')>=0){\
el.textContent='Welcome back!';el.className='greeting back';}\
document.cookie='ledgerline_seen=1; path=/';})();";

/// The page at `path`, or `None`. `carry` is added to the navigation links.
pub fn render(path: &str, carry: &str) -> Option<String> {
    let (_, title, what) = PAGES.iter().find(|(p, _, _)| *p == path)?;
    let (css, main, script) = match path {
        TICKER_PATH => (TICKER_CSS, TICKER_HTML, TICKER_JS),
        _ => (FIRST_VISIT_CSS, FIRST_VISIT_HTML, FIRST_VISIT_JS),
    };
    Some(behaviour_page(title, what, path, carry, css, main, script))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_pages_render_with_their_scripts_and_others_do_not() {
        let ticker = render(TICKER_PATH, "").unwrap();
        assert!(
            ticker.contains("<h1>Ticker</h1>") && ticker.contains("requestAnimationFrame(tick)")
        );
        let first = render(FIRST_VISIT_PATH, "?variant=shift").unwrap();
        assert!(first.contains(FIRST_VISIT_COOKIE) && first.contains("first visit"));
        assert!(first.contains("?variant=shift"));
        assert!(render("/site/caret", "").is_none());
    }
}
