//! The site's pages that are hard to screenshot stably, the same in every variant: an
//! infinite animation, a transition on load, a web font that swaps in late, lazy images below
//! the fold, a focused input with a blinking caret, a sticky header over a long page, and an
//! animated GIF. A visual checker has to wait them out, freeze them or mask them.

use super::assets;
use super::baseline_markup::behaviour_page;

/// Every unsteady page: path, title, and what makes it hard.
pub const PAGES: [(&str, &str, &str); 7] = [
    (
        "/site/animation",
        "Animation",
        "an infinite CSS animation (a spinner and a sliding bar)",
    ),
    (
        "/site/transition",
        "Transition",
        "a panel that fades and slides in over 1.2 s after the load event, then stays",
    ),
    (
        "/site/web-font",
        "Web font",
        "a web font requested after the load event and answered 1.5 s later (font-display: swap)",
    ),
    (
        "/site/lazy-images",
        "Lazy images",
        "12 generated images with loading=lazy, the first below the fold",
    ),
    (
        "/site/caret",
        "Caret",
        "an autofocused text field whose caret blinks",
    ),
    (
        "/site/sticky-header",
        "Sticky header",
        "a header that sticks to the top of a 40-section page",
    ),
    (
        "/site/animated-image",
        "Animated image",
        "an animated GIF, 48 frames of 20 ms looping forever, that CSS cannot freeze",
    ),
];

/// The unsteady page at `path`, or `None`. `carry` is added to the navigation links.
pub fn render(path: &str, carry: &str) -> Option<String> {
    let (_, title, what) = PAGES.iter().find(|(p, _, _)| *p == path)?;
    let (css, main, script) = match path {
        "/site/animation" => (ANIMATION_CSS, ANIMATION_HTML.to_owned(), ""),
        "/site/transition" => (TRANSITION_CSS, TRANSITION_HTML.to_owned(), TRANSITION_JS),
        "/site/web-font" => (WEB_FONT_CSS, WEB_FONT_HTML.to_owned(), WEB_FONT_JS),
        "/site/lazy-images" => (LAZY_CSS, lazy_images(), ""),
        "/site/caret" => (CARET_CSS, CARET_HTML.to_owned(), ""),
        "/site/animated-image" => (ANIMATED_CSS, ANIMATED_HTML.to_owned(), ""),
        _ => (STICKY_CSS, long_article(), ""),
    };
    Some(behaviour_page(title, what, path, carry, css, &main, script))
}

const ANIMATION_CSS: &str = "
.spinner{width:64px;height:64px;border:8px solid #e2e8f0;border-top-color:#0f766e;border-radius:50%;animation:spin 1s linear infinite}
.bar{position:relative;width:480px;height:8px;margin-top:32px;background:#e2e8f0;overflow:hidden}
.bar span{position:absolute;left:0;top:0;width:160px;height:8px;background:#0f766e;animation:slide 1.6s ease-in-out infinite}
@keyframes spin{to{transform:rotate(360deg)}}
@keyframes slide{from{transform:translateX(-160px)}to{transform:translateX(480px)}}
";
const ANIMATION_HTML: &str =
    "<div><div class=\"spinner\" id=\"spinner\"></div><div class=\"bar\"><span></span></div></div>";

const TRANSITION_CSS: &str = "
.entering{width:480px;padding:24px;background:#fff;border:1px solid #d9e0e8;opacity:0;transform:translateY(24px);transition:opacity 1.2s ease-out,transform 1.2s ease-out}
.entering.in{opacity:1;transform:none}
.entering h2{font-size:20px;line-height:28px}
.entering p{margin-top:8px;color:#475569}
";
const TRANSITION_HTML: &str = "<div class=\"entering\" id=\"entering\"><h2>Welcome aboard</h2>\
<p>This panel eases into place after the page has loaded.</p></div>";
/// Two frames after `load`, so the starting state is painted before the transition.
const TRANSITION_JS: &str = "window.addEventListener('load',function(){requestAnimationFrame(\
function(){requestAnimationFrame(function(){document.getElementById('entering').classList.add('in');});});});";

const WEB_FONT_CSS: &str = "
.display{font-family:\"Ledgerline Display\",sans-serif;font-size:40px;line-height:56px;color:#0f172a}
.display-small{margin-top:16px;font-family:\"Ledgerline Display\",sans-serif;font-size:20px;line-height:32px;color:#334155}
";
/// The `@font-face` rule arrives with the `load` event, so the font is requested after it and
/// swaps in [`assets::WEB_FONT_DELAY_MS`] later: a page that has loaded, then changes.
const WEB_FONT_JS: &str = "window.addEventListener('load',function(){var s=document.createElement('style');\
s.textContent='@font-face{font-family:\"Ledgerline Display\";src:url(/site/assets/ledgerline-display.ttf) \
format(\"truetype\");font-display:swap}';document.head.appendChild(s);});";
const WEB_FONT_HTML: &str = "<div><p class=\"display\" id=\"display-text\">Ledgerline keeps your books tidy</p>\
<p class=\"display-small\">Set in a web font that arrives late and swaps in.</p></div>";

const LAZY_CSS: &str = "
.gallery figure{width:480px;margin-top:80px}
.gallery img{display:block;width:480px;height:320px;background:#e2e8f0}
.gallery figcaption{margin-top:8px;font-size:14px;color:#475569}
.gallery .spacer{height:480px;padding-top:24px;color:#475569}
";

fn lazy_images() -> String {
    let figures: String = (1..=assets::LAZY_IMAGES)
        .map(|n| {
            format!(
                "<figure><img loading=\"lazy\" src=\"/site/assets/tile-{n}.svg\" width=\"480\" \
                 height=\"320\" alt=\"Generated tile {n}\" id=\"tile-{n}\">\
                 <figcaption>Generated tile {n} of {}</figcaption></figure>",
                assets::LAZY_IMAGES
            )
        })
        .collect();
    format!(
        "<div class=\"gallery\"><p class=\"spacer\">Scroll down: the images below load only \
         when they come near the viewport.</p>{figures}</div>"
    )
}

const CARET_CSS: &str = "
.help label{display:block;font-size:14px;line-height:20px;font-weight:700;color:#334155}
.help input{display:block;width:480px;height:40px;margin-top:8px;padding:0 12px;border:1px solid #0f766e;border-radius:6px;background:#fff;color:#0f172a;font-size:15px;outline:none}
";
const CARET_HTML: &str = "<div class=\"help\"><label for=\"help-search\">Search the help centre</label>\
<input id=\"help-search\" type=\"text\" autocomplete=\"off\" autofocus></div>";

const ANIMATED_CSS: &str = "
.progress img{display:block;width:256px;height:64px;image-rendering:pixelated}
.progress p{margin-top:8px;font-size:14px;color:#475569}
";
/// The GIF shown four times its size, pixelated, so each of its pixels is a 4 px square.
const ANIMATED_HTML: &str = "<figure class=\"progress\"><img id=\"progress\" \
src=\"/site/assets/progress.gif\" width=\"256\" height=\"64\" alt=\"Progress\">\
<p>Working on it: the bar keeps moving.</p></figure>";

const STICKY_CSS: &str = "
.site-header{position:sticky;top:0;z-index:10}
.chapter h2{font-size:22px;line-height:32px;margin-top:32px}
.chapter p{width:720px;margin-top:8px;color:#334155}
";

/// 40 numbered sections of fixed text, about 6000 px tall.
fn long_article() -> String {
    (1..=40)
        .map(|n| {
            format!(
                "<section class=\"chapter\" id=\"chapter-{n}\"><h2>Section {n}</h2>\
                 <p>Section {n} of the Ledgerline handbook. Invoices are numbered in order, \
                 dated the day they are sent, and due thirty days later unless the customer's \
                 terms say otherwise.</p><p>Keep scrolling: the header above stays where it \
                 is while this text moves under it.</p></section>"
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_page_renders_and_others_do_not() {
        for (path, title, _) in PAGES {
            let html = render(path, "").unwrap();
            assert!(html.contains(&format!("<h1>{title}</h1>")), "{path}");
        }
        assert!(render("/site/pricing", "").is_none());
    }
}
