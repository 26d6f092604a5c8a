//! The page-side JavaScript behind the DOM queries: element boxes and the compact snapshot of
//! interactive elements (what GET_DOM shows a model).

use crate::backend::BoundingBox;

/// Returns the box of the innermost element at (x, y), or null.
pub fn element_box_at_js(x: i32, y: i32) -> String {
    format!(
        "(() => {{ const el = document.elementFromPoint({x}, {y}); if (!el) return null; \
         const r = el.getBoundingClientRect(); \
         return {{x: r.x, y: r.y, width: r.width, height: r.height}}; }})()"
    )
}

/// Returns the box of the first element matching `selector`, or null. The selector travels
/// as a JSON string literal, so quotes in it cannot break out of the script.
pub fn query_selector_js(selector: &str) -> String {
    let literal = serde_json::Value::String(selector.to_owned()).to_string();
    format!(
        "(() => {{ const el = document.querySelector({literal}); if (!el) return null; \
         const r = el.getBoundingClientRect(); \
         return {{x: r.x, y: r.y, width: r.width, height: r.height}}; }})()"
    )
}

/// Reads a `{x, y, width, height}` object as a box.
pub fn parse_box(value: &serde_json::Value) -> Option<BoundingBox> {
    let field = |name: &str| value.get(name).and_then(serde_json::Value::as_f64);
    Some(BoundingBox {
        x: field("x")?,
        y: field("y")?,
        width: field("width")?,
        height: field("height")?,
    })
}

/// A compact, size-bounded view of the page: `{url, title, elements: [...], truncated}`, where
/// each element (visible, interactive: links, buttons, form fields, elements with a role,
/// click handler or tab index) has a CSS `selector` that finds it, its `tag`, `role`,
/// trimmed `text` (at most 80 characters), `box` in CSS pixels, and `disabled` when it is.
/// At most 200 elements are listed.
pub const SNAPSHOT_JS: &str = r#"(() => {
  const MAX = 200, TEXT = 80;
  const cssEscape = (s) => (window.CSS && CSS.escape) ? CSS.escape(s) : s.replace(/[^\w-]/g, '\\$&');
  const selectorOf = (el) => {
    if (el.id) return '#' + cssEscape(el.id);
    const name = el.getAttribute('name');
    if (name) {
      const sel = el.tagName.toLowerCase() + '[name="' + name.replace(/"/g, '\\"') + '"]';
      if (document.querySelectorAll(sel).length === 1) return sel;
    }
    const parts = [];
    let node = el;
    while (node && node.nodeType === 1 && node !== document.documentElement) {
      if (node.id) { parts.unshift('#' + cssEscape(node.id)); break; }
      let part = node.tagName.toLowerCase();
      const parent = node.parentElement;
      if (parent) {
        const same = Array.from(parent.children).filter(c => c.tagName === node.tagName);
        if (same.length > 1) part += ':nth-of-type(' + (same.indexOf(node) + 1) + ')';
      }
      parts.unshift(part);
      node = parent;
    }
    return parts.join(' > ');
  };
  const query = 'a[href], button, input, select, textarea, summary, [role], [onclick], [tabindex], [contenteditable="true"]';
  const elements = [];
  let truncated = false;
  for (const el of document.querySelectorAll(query)) {
    const r = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    if (r.width === 0 || r.height === 0 || style.visibility === 'hidden' || style.display === 'none') continue;
    if (el.type === 'hidden') continue;
    if (elements.length >= MAX) { truncated = true; break; }
    let text = (el.innerText || el.value || el.getAttribute('aria-label') || el.getAttribute('placeholder') || el.getAttribute('title') || '').trim().replace(/\s+/g, ' ');
    if (el.type === 'password') text = '';
    if (text.length > TEXT) text = text.slice(0, TEXT - 1) + '…';
    const item = {
      selector: selectorOf(el),
      tag: el.tagName.toLowerCase(),
      role: el.getAttribute('role') || (el.type && el.tagName !== 'BUTTON' ? el.type : null) || el.tagName.toLowerCase(),
      text,
      box: {x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height)},
    };
    if (el.disabled) item.disabled = true;
    elements.push(item);
  }
  return {url: location.href, title: document.title, elements, truncated};
})()"#;
