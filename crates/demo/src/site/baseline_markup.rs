//! The site's baseline markup: semantic elements (header, nav, main, section, ul, article,
//! table, form, footer), flexbox rows and a real `<table>`. Every page of the site but the
//! `identical-markup` content pages is built from this shell.
//!
//! Everything that frames text has a fixed whole-pixel size and position (a 1040 px column
//! centred at x 120 at 1280 px wide, blocks 48 px apart), so the other markup can land every
//! glyph on the same pixel.

use super::blocks::Action;
use super::blocks::Block;
use super::blocks::CONSOLE_ERROR_SCRIPT;
use super::blocks::Card;
use super::blocks::ContentPage;
use super::blocks::NAVIGATION;
use crate::html::escape;

/// A content page in the baseline markup; `carry` (`""` or `?variant=...`) is added to the
/// navigation links.
pub fn render(page: &ContentPage, carry: &str) -> String {
    let main: String = page.blocks.iter().map(block).collect();
    let script = if page.console_error {
        CONSOLE_ERROR_SCRIPT
    } else {
        ""
    };
    document(page.title, page.path, carry, "", &main, script)
}

/// A demo page of one behaviour (an animation, a ticker...): a hero naming it (`title`, and
/// `what` it has) above `main`, in a whole [`document`].
pub fn behaviour_page(
    title: &str,
    what: &str,
    current: &str,
    carry: &str,
    extra_css: &str,
    main: &str,
    script: &str,
) -> String {
    let intro = format!(
        "<section class=\"hero\"><h1>{}</h1><p class=\"lead\">This page has {}.</p></section>",
        escape(title),
        escape(what)
    );
    document(
        title,
        current,
        carry,
        extra_css,
        &format!("{intro}{main}"),
        script,
    )
}

/// A whole site document: the shared stylesheet plus `extra_css`, the header with `current`
/// marked in the navigation, `main` (HTML) in the 1040 px column, the footer, and an inline
/// `script` when not empty.
pub fn document(
    title: &str,
    current: &str,
    carry: &str,
    extra_css: &str,
    main: &str,
    script: &str,
) -> String {
    let links: String = NAVIGATION
        .iter()
        .map(|&(path, label)| {
            let class = if path == current {
                " class=\"current\""
            } else {
                ""
            };
            format!("<a href=\"{path}{carry}\"{class}>{label}</a>")
        })
        .collect();
    let script = if script.is_empty() {
        String::new()
    } else {
        format!("<script>{script}</script>")
    };
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{title} · Ledgerline</title><link rel=\"icon\" href=\"data:,\">\
         <style>{STYLE}{extra_css}</style></head><body class=\"site\">\
         <header class=\"site-header\"><div class=\"site-bar\">\
         <a class=\"brand-link\" href=\"/site/{carry}\"><span class=\"mark\">L</span>\
         <span>Ledgerline</span></a><nav class=\"site-nav\">{links}</nav></div></header>\
         <main class=\"site-main\">{main}</main>\
         <footer class=\"site-footer\">Ledgerline · a demo site for retrace</footer>\
         {script}</body></html>\n",
        title = escape(title),
    )
}

fn block(block: &Block) -> String {
    match block {
        Block::Hero {
            title,
            lead,
            actions,
        } => {
            let actions = if actions.is_empty() {
                String::new()
            } else {
                let buttons: String = actions.iter().map(action).collect();
                format!("<div class=\"actions\">{buttons}</div>")
            };
            format!(
                "<section class=\"hero\"><h1>{}</h1><p class=\"lead\">{}</p>{actions}</section>",
                escape(title),
                escape(lead)
            )
        }
        Block::Tiles { heading, tiles } => {
            let items: String = tiles
                .iter()
                .map(|tile| format!("<li id=\"{}\">{}</li>", tile.id, escape(tile.label)))
                .collect();
            format!(
                "<section class=\"logos-block\"><h2 class=\"logos-title\">{}</h2>\
                 <ul class=\"logos\">{items}</ul></section>",
                escape(heading)
            )
        }
        Block::Cards(cards) => {
            let cards: String = cards.iter().map(card).collect();
            format!("<div class=\"cards\">{cards}</div>")
        }
        Block::Table {
            heading,
            columns,
            rows,
        } => {
            let cols: String = columns
                .iter()
                .map(|(_, width)| format!("<col style=\"width:{width}px\">"))
                .collect();
            let head: String = columns
                .iter()
                .map(|(name, _)| format!("<th>{}</th>", escape(name)))
                .collect();
            let body: String = rows
                .iter()
                .map(|row| {
                    let cells: String = row
                        .iter()
                        .map(|cell| format!("<td>{}</td>", escape(cell)))
                        .collect();
                    format!("<tr>{cells}</tr>")
                })
                .collect();
            format!(
                "<section><h2 class=\"section-title\">{}</h2><table class=\"compare\">\
                 <colgroup>{cols}</colgroup><thead><tr>{head}</tr></thead>\
                 <tbody>{body}</tbody></table></section>",
                escape(heading)
            )
        }
        Block::Text {
            heading,
            paragraphs,
        } => {
            let paragraphs: String = paragraphs
                .iter()
                .map(|text| format!("<p class=\"para\">{}</p>", escape(text)))
                .collect();
            format!(
                "<section class=\"text\"><h2 class=\"section-title\">{}</h2>{paragraphs}</section>",
                escape(heading)
            )
        }
        Block::Form { fields, submit } => {
            let fields: String = fields
                .iter()
                .enumerate()
                .map(|(index, label)| {
                    format!(
                        "<div class=\"field\"><label for=\"field-{index}\">{}</label>\
                         <input id=\"field-{index}\" type=\"text\" autocomplete=\"off\"></div>",
                        escape(label)
                    )
                })
                .collect();
            format!(
                "<form class=\"contact\" action=\"#\">{fields}\
                 <button type=\"button\">{}</button></form>",
                escape(submit)
            )
        }
    }
}

fn action(action: &Action) -> String {
    let id = action
        .id
        .map(|id| format!(" id=\"{id}\""))
        .unwrap_or_default();
    let kind = if action.primary {
        "primary"
    } else {
        "secondary"
    };
    format!(
        "<a class=\"button {kind}\"{id} href=\"#\" style=\"width:{}px\">{}</a>",
        action.width,
        escape(action.label)
    )
}

/// The `overlay` variant's layer over an icon: a background image, so the computed
/// `background-color` the checker reads stays the same.
const OVERLAY: &str =
    ";background-image:linear-gradient(rgba(255,255,255,.35),rgba(255,255,255,.35))";

fn card(card: &Card) -> String {
    let class = if card.shifted { "card moved" } else { "card" };
    let icon = card
        .icon
        .map(|(id, colour)| {
            let overlay = if card.overlaid { OVERLAY } else { "" };
            format!(
                "<span class=\"icon\" id=\"{id}\" style=\"background:{colour}{overlay}\"></span>"
            )
        })
        .unwrap_or_default();
    let price = card
        .price
        .map(|price| format!("<p class=\"price\">{}</p>", escape(price)))
        .unwrap_or_default();
    let lines: String = card
        .lines
        .iter()
        .map(|line| format!("<li>{}</li>", escape(line)))
        .collect();
    format!(
        "<article class=\"{class}\" id=\"{id}\">{icon}<h3>{title}</h3>{price}<ul>{lines}</ul></article>",
        id = card.id,
        title = escape(card.title),
    )
}

/// The baseline stylesheet. `site_reset` is shared with the other markup.
const STYLE: &str = concat!(
    include_str!("site_reset.css"),
    r#"
.site-header{height:64px;background:#0f172a}
.site-bar{display:flex;align-items:center;width:1040px;height:64px;margin:0 auto}
.brand-link{display:flex;align-items:center;width:280px;color:#fff;font-size:20px;line-height:32px;font-weight:700}
.brand-link .mark{display:block;width:32px;height:32px;margin-right:12px;border-radius:6px;background:#0f766e;text-align:center;font-size:18px;line-height:32px}
.site-nav{display:flex}
.site-nav a{display:block;width:96px;color:#cbd5e1;font-size:15px;line-height:64px}
.site-nav a.current{color:#fff;font-weight:700}
.site-main{width:1040px;margin:0 auto;padding-top:56px}
.site-main>*+*{margin-top:48px}
.hero h1{font-size:40px;line-height:48px;font-weight:700;color:#0f172a}
.hero .lead{margin-top:16px;font-size:18px;line-height:28px;color:#475569}
.hero .actions{display:flex;gap:16px;margin-top:32px}
.button{display:block;height:48px;border-radius:6px;font-size:16px;line-height:48px;font-weight:700;text-align:center}
.button.primary{background:#0f766e;color:#fff}
.button.secondary{background:#fff;color:#0f172a;border:1px solid #cbd5e1;line-height:46px}
.logos-title{font-size:13px;line-height:20px;font-weight:700;letter-spacing:1px;text-transform:uppercase;color:#64748b}
.logos{display:flex;gap:16px;margin-top:16px;list-style:none}
.logos li{width:160px;height:56px;background:#e2e8f0;color:#334155;font-size:15px;line-height:56px;font-weight:700;text-align:center}
.cards{display:flex;gap:16px}
.card{width:336px;height:232px;padding:24px;background:#fff;border:1px solid #d9e0e8}
.card.moved{position:relative;top:4px}
.card .icon{display:block;width:48px;height:48px;margin-bottom:16px}
.card h3{font-size:20px;line-height:28px;font-weight:700;color:#0f172a}
.card .price{margin-top:8px;font-size:32px;line-height:40px;font-weight:700;color:#0f766e}
.card ul{margin-top:12px;list-style:none}
.card li{font-size:15px;line-height:24px;color:#475569}
.section-title{font-size:22px;line-height:32px;font-weight:700;color:#0f172a}
.compare{width:1040px;margin-top:16px;border:1px solid #d9e0e8;border-spacing:0;table-layout:fixed;background:#fff}
.compare th,.compare td{padding:0 16px;text-align:left;font-size:15px;line-height:44px;font-weight:400;color:#1f2933}
.compare th{background:#e2e8f0;font-size:13px;font-weight:700;text-transform:uppercase;color:#475569}
.compare tbody tr:nth-child(even) td{background:#f8fafc}
.para{width:720px;margin-top:12px;font-size:16px;line-height:26px;color:#334155}
.contact .field+.field{margin-top:20px}
.contact label{display:block;font-size:14px;line-height:20px;font-weight:700;color:#334155}
.contact input{display:block;width:480px;height:40px;margin-top:8px;padding:0 12px;border:1px solid #cbd5e1;border-radius:6px;background:#fff;color:#0f172a;font-size:15px}
.contact button{display:block;width:180px;height:48px;margin-top:28px;border:0;border-radius:6px;background:#0f766e;color:#fff;font-size:16px;line-height:48px;font-weight:700}
.site-footer{height:64px;margin-top:64px;background:#e2e8f0;color:#64748b;font-size:13px;line-height:64px;text-align:center}
"#
);
