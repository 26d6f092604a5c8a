//! The `identical-markup` variant's markup: the same blocks as the baseline, built from other
//! elements (divs, spans and `b` instead of header, nav, h1, ul, article, table, label), other
//! class names and ids, other nesting (a card's border is a 1 px padding of an outer box) and
//! other layout (absolute positions in the header, a grid for buttons and cards, floats for
//! tiles, a flex column for the blocks, flexbox rows instead of a table). It renders the same
//! pixels as the baseline; a correct visual checker passes it.

use super::blocks::Block;
use super::blocks::Card;
use super::blocks::ContentPage;
use super::blocks::NAVIGATION;
use crate::html::escape;

/// A content page in the other markup; `carry` is added to the navigation links.
pub fn render(page: &ContentPage, carry: &str) -> String {
    let links: String = NAVIGATION
        .iter()
        .map(|&(path, label)| {
            let class = if path == page.path {
                "mh-item on"
            } else {
                "mh-item"
            };
            format!("<a class=\"{class}\" href=\"{path}{carry}\">{label}</a>")
        })
        .collect();
    let blocks: String = page.blocks.iter().map(block).collect();
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{title} · Ledgerline</title><link rel=\"icon\" href=\"data:,\">\
         <style>{STYLE}</style></head><body class=\"pub\">\
         <div id=\"masthead\"><div class=\"mh-in\"><a class=\"mh-logo\" href=\"/site/{carry}\">\
         <b class=\"mh-sq\">L</b><b class=\"mh-word\">Ledgerline</b></a>\
         <div class=\"mh-menu\">{links}</div></div></div>\
         <div id=\"content\" class=\"col\">{blocks}</div>\
         <div id=\"bottom\"><p class=\"fine\">Ledgerline · a demo site for retrace</p></div>\
         </body></html>\n",
        title = escape(page.title),
    )
}

fn block(block: &Block) -> String {
    match block {
        Block::Hero {
            title,
            lead,
            actions,
        } => {
            let links = if actions.is_empty() {
                String::new()
            } else {
                let links: String = actions
                    .iter()
                    .map(|action| {
                        let kind = if action.primary { "go-main" } else { "go-alt" };
                        format!(
                            "<a class=\"go {kind}\" href=\"#\" style=\"width:{}px\">{}</a>",
                            action.width,
                            escape(action.label)
                        )
                    })
                    .collect();
                format!("<div class=\"intro-links\">{links}</div>")
            };
            format!(
                "<div class=\"intro\"><div class=\"intro-title\">{}</div>\
                 <div class=\"intro-text\">{}</div>{links}</div>",
                escape(title),
                escape(lead)
            )
        }
        Block::Tiles { heading, tiles } => {
            let chips: String = tiles
                .iter()
                .map(|tile| format!("<div class=\"chip\">{}</div>", escape(tile.label)))
                .collect();
            format!(
                "<div class=\"strip-wrap\"><div class=\"strip-cap\">{}</div>\
                 <div class=\"strip\">{chips}</div></div>",
                escape(heading)
            )
        }
        Block::Cards(cards) => {
            let panels: String = cards.iter().map(panel).collect();
            format!("<div class=\"grid3\">{panels}</div>")
        }
        Block::Table {
            heading,
            columns,
            rows,
        } => {
            let row = |cells: Vec<(&str, u32)>, class: &str| {
                let cells: String = cells
                    .iter()
                    .map(|(text, width)| {
                        format!(
                            "<div class=\"gt-cell\" style=\"width:{width}px\">{}</div>",
                            escape(text)
                        )
                    })
                    .collect();
                format!("<div class=\"{class}\">{cells}</div>")
            };
            let widths: Vec<u32> = columns.iter().map(|(_, width)| *width).collect();
            let head = row(columns.clone(), "gt-row gt-head");
            let body: String = rows
                .iter()
                .enumerate()
                .map(|(index, cells)| {
                    let class = if index % 2 == 1 { "gt-row z" } else { "gt-row" };
                    row(
                        cells.iter().copied().zip(widths.iter().copied()).collect(),
                        class,
                    )
                })
                .collect();
            format!(
                "<div><div class=\"tt\">{}</div><div class=\"gt\">{head}{body}</div></div>",
                escape(heading)
            )
        }
        Block::Text {
            heading,
            paragraphs,
        } => {
            let paragraphs: String = paragraphs
                .iter()
                .map(|text| format!("<div class=\"story-p\">{}</div>", escape(text)))
                .collect();
            format!(
                "<div class=\"story\"><div class=\"tt\">{}</div>{paragraphs}</div>",
                escape(heading)
            )
        }
        Block::Form { fields, submit } => {
            let rows: String = fields
                .iter()
                .map(|label| {
                    format!(
                        "<div class=\"mf-row\"><div class=\"mf-cap\">{}</div>\
                         <input class=\"mf-box\" type=\"text\" autocomplete=\"off\"></div>",
                        escape(label)
                    )
                })
                .collect();
            format!(
                "<div class=\"msg-form\">{rows}<button class=\"mf-send\" type=\"button\">{}</button></div>",
                escape(submit)
            )
        }
    }
}

fn panel(card: &Card) -> String {
    let square = card
        .icon
        .map(|(_, colour)| format!("<i class=\"sq\" style=\"background:{colour}\"></i>"))
        .unwrap_or_default();
    let amount = card
        .price
        .map(|price| format!("<div class=\"amt\">{}</div>", escape(price)))
        .unwrap_or_default();
    let lines: String = card
        .lines
        .iter()
        .map(|line| format!("<div class=\"ln\">{}</div>", escape(line)))
        .collect();
    format!(
        "<section class=\"panel\"><div class=\"panel-in\">{square}\
         <div class=\"panel-h\">{}</div>{amount}<div class=\"lns\">{lines}</div></div></section>",
        escape(card.title)
    )
}

const STYLE: &str = concat!(
    include_str!("site_reset.css"),
    r#"
#masthead{height:64px;background:#0f172a}
.mh-in{position:relative;width:1040px;height:64px;margin:0 auto}
.mh-logo{position:absolute;left:0;top:16px;width:280px;height:32px;color:#fff}
.mh-sq{position:absolute;left:0;top:0;width:32px;height:32px;border-radius:6px;background:#0f766e;text-align:center;font-size:18px;line-height:32px;font-weight:700}
.mh-word{position:absolute;left:44px;top:0;font-size:20px;line-height:32px;font-weight:700}
.mh-menu{position:absolute;left:280px;top:0;display:grid;grid-template-columns:repeat(5,96px)}
.mh-item{color:#cbd5e1;font-size:15px;line-height:64px}
.mh-item.on{color:#fff;font-weight:700}
.col{display:flex;flex-direction:column;row-gap:48px;width:1040px;margin:0 auto;padding-top:56px}
.intro-title{font-size:40px;line-height:48px;font-weight:700;color:#0f172a}
.intro-text{padding-top:16px;font-size:18px;line-height:28px;color:#475569}
.intro-links{display:grid;grid-auto-flow:column;justify-content:start;column-gap:16px;padding-top:32px}
.go{display:block;height:48px;border-radius:6px;font-size:16px;line-height:48px;font-weight:700;text-align:center}
.go-main{background:#0f766e;color:#fff}
.go-alt{background:#fff;color:#0f172a;border:1px solid #cbd5e1;line-height:46px}
.strip-cap{font-size:13px;line-height:20px;font-weight:700;letter-spacing:1px;text-transform:uppercase;color:#64748b}
.strip{height:72px;padding-top:16px}
.chip{float:left;width:160px;height:56px;margin-right:16px;background:#e2e8f0;color:#334155;font-size:15px;line-height:56px;font-weight:700;text-align:center}
.grid3{display:grid;grid-template-columns:repeat(3,336px);column-gap:16px}
.panel{height:232px;padding:1px;background:#d9e0e8}
.panel-in{height:230px;padding:24px;background:#fff}
.sq{display:block;width:48px;height:48px;margin-bottom:16px}
.panel-h{font-size:20px;line-height:28px;font-weight:700;color:#0f172a}
.amt{margin-top:8px;font-size:32px;line-height:40px;font-weight:700;color:#0f766e}
.lns{padding-top:12px}
.ln{font-size:15px;line-height:24px;color:#475569}
.tt{font-size:22px;line-height:32px;font-weight:700;color:#0f172a}
.gt{margin-top:16px;border:1px solid #d9e0e8;background:#fff}
.gt-row{display:flex}
.gt-cell{flex:none;padding:0 16px;font-size:15px;line-height:44px;color:#1f2933}
.gt-head .gt-cell{background:#e2e8f0;font-size:13px;font-weight:700;text-transform:uppercase;color:#475569}
.gt-row.z .gt-cell{background:#f8fafc}
.story-p{width:720px;padding-top:12px;font-size:16px;line-height:26px;color:#334155}
.mf-row+.mf-row{padding-top:20px}
.mf-cap{font-size:14px;line-height:20px;font-weight:700;color:#334155}
.mf-box{display:block;width:480px;height:40px;margin-top:8px;padding:0 12px;border:1px solid #cbd5e1;border-radius:6px;background:#fff;color:#0f172a;font-size:15px}
.mf-send{display:block;width:180px;height:48px;margin-top:28px;border:0;border-radius:6px;background:#0f766e;color:#fff;font-size:16px;line-height:48px;font-weight:700}
#bottom{margin-top:64px;background:#e2e8f0}
.fine{height:64px;color:#64748b;font-size:13px;line-height:64px;text-align:center}
"#
);
