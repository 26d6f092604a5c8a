//! What each side's page is made of, read from its DOM right after its screenshot: every
//! visible element with its page box, its own text (direct text nodes, or an input's value)
//! and its colours. The classifier matches these across sides to say what a changed box is.

use serde::Deserialize;
use serde::Serialize;

use crate::cluster::PixelBox;

/// At most this many elements are read (a huge page still gets checked, its later elements
/// just do not help typing differences).
pub const MAX_ELEMENTS: usize = 20_000;

/// One visible element.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageElement {
    /// Lower-case tag name.
    pub tag: String,
    /// Its own text, whitespace collapsed.
    pub text: String,
    /// Page box: left.
    pub x: f64,
    /// Page box: top.
    pub y: f64,
    /// Page box: width.
    pub width: f64,
    /// Page box: height.
    pub height: f64,
    /// Computed `color`.
    pub color: String,
    /// Computed `background-color`.
    pub background: String,
    /// Computed border colour (top).
    pub border: String,
}

impl PageElement {
    /// Whether its box shares a pixel with `area`.
    pub fn intersects(&self, area: &PixelBox) -> bool {
        self.x < f64::from(area.right())
            && self.x + self.width > f64::from(area.x)
            && self.y < f64::from(area.bottom())
            && self.y + self.height > f64::from(area.y)
    }

    /// Whether its box holds `area` grown by `margin` on every side.
    pub fn encloses(&self, area: &PixelBox, margin: f64) -> bool {
        self.x <= f64::from(area.x) - margin
            && self.y <= f64::from(area.y) - margin
            && self.x + self.width >= f64::from(area.right()) + margin
            && self.y + self.height >= f64::from(area.bottom()) + margin
    }

    /// A short name for people: `button "Start free trial"`.
    pub fn describe(&self) -> String {
        if self.text.is_empty() {
            format!(
                "{} ({}x{} at {}, {})",
                self.tag,
                self.width.round(),
                self.height.round(),
                self.x.round(),
                self.y.round()
            )
        } else {
            let text: String = self.text.chars().take(60).collect();
            format!("{} {text:?}", self.tag)
        }
    }
}

/// Reads every visible element as `[tag, text, x, y, w, h, color, background, border]`.
pub const ELEMENTS_JS: &str = r#"(() => {
  const out = [];
  if (!document.body) return out;
  for (const el of document.body.getElementsByTagName('*')) {
    if (out.length >= MAX) break;
    if (el.getAttribute('data-retrace-check')) continue;
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) continue;
    const s = getComputedStyle(el);
    if (s.visibility !== 'visible' || s.display === 'none' || s.opacity === '0') continue;
    let text = '';
    if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') text = el.value || el.placeholder || '';
    else for (const n of el.childNodes) if (n.nodeType === 3) text += n.textContent;
    text = text.replace(/\s+/g, ' ').trim();
    out.push([el.tagName.toLowerCase(), text, r.left + scrollX, r.top + scrollY, r.width, r.height,
              s.color, s.backgroundColor, s.borderTopColor]);
  }
  return out;
})()"#;

/// The script with its limit filled in.
pub fn elements_js() -> String {
    ELEMENTS_JS.replace("MAX", &MAX_ELEMENTS.to_string())
}

/// Parses what [`ELEMENTS_JS`] returned; rows of the wrong shape are skipped.
pub fn parse_elements(value: &serde_json::Value) -> Vec<PageElement> {
    let Some(rows) = value.as_array() else {
        return Vec::new();
    };
    rows.iter()
        .filter_map(|row| {
            let text = |i: usize| row.get(i)?.as_str().map(str::to_owned);
            let number = |i: usize| row.get(i)?.as_f64();
            Some(PageElement {
                tag: text(0)?,
                text: text(1)?,
                x: number(2)?,
                y: number(3)?,
                width: number(4)?,
                height: number(5)?,
                color: text(6)?,
                background: text(7)?,
                border: text(8)?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn rows_parse_and_boxes_relate_to_areas() {
        let value = serde_json::json!([
            [
                "button",
                "Go",
                10.0,
                20.0,
                100.0,
                40.0,
                "rgb(0, 0, 0)",
                "rgb(1, 2, 3)",
                "rgb(0, 0, 0)"
            ],
            ["div", 5]
        ]);
        let elements = parse_elements(&value);
        assert_eq!(elements.len(), 1);
        let button = &elements[0];
        let inside = PixelBox {
            x: 30,
            y: 30,
            width: 10,
            height: 10,
        };
        assert!(button.intersects(&inside) && button.encloses(&inside, 2.0));
        let beside = PixelBox { x: 110, ..inside };
        assert!(!button.intersects(&beside));
        assert_eq!(button.describe(), "button \"Go\"");
    }
}
