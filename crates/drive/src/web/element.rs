//! Finding an element by CSS selector and waiting until it can be used: present (to read
//! it), or visible, enabled, uncovered and still (to click or type into it).
//!
//! One page-side probe answers each poll; the polling, its timeout and the "same box twice"
//! stability rule live here in Rust.

use std::time::Duration;
use std::time::Instant;

use crate::backend::BoundingBox;
use crate::backend::BrowserBackend;
use crate::error::DriveError;

/// What the element must be before the command may proceed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// In the DOM (its text is read).
    Present,
    /// Visible, enabled, inside the viewport (scrolled there if needed), not covered.
    Clickable,
    /// Clickable, and a text field, text area or contenteditable that is not read-only.
    Editable,
}

impl Want {
    fn as_js(self) -> &'static str {
        match self {
            Want::Present => "present",
            Want::Clickable => "clickable",
            Want::Editable => "editable",
        }
    }
}

/// The element, once it is as wanted.
#[derive(Debug, Clone, PartialEq)]
pub struct Ready {
    /// Its box in CSS pixels (for [`Want::Clickable`] and [`Want::Editable`]).
    pub bounds: Option<BoundingBox>,
    /// Its trimmed text: the value of a form field, else its rendered text (for
    /// [`Want::Present`]).
    pub text: Option<String>,
}

/// Why waiting for an element ended without it.
#[derive(Debug)]
pub enum WaitFailure {
    /// The selector is not valid CSS (known at once; no waiting).
    Invalid(String),
    /// Nothing matched until the timeout.
    Missing,
    /// Something matched but stayed unusable; the last state, e.g. "is disabled".
    NotReady(String),
    /// The backend failed in a way polling cannot outlast (the page or browser is gone).
    Backend(DriveError),
}

/// The probe: returns `{state, detail?, box?, text?}` for the first match of `selector`.
fn probe_js(selector: &str, want: Want) -> String {
    let selector = serde_json::Value::String(selector.to_owned()).to_string();
    let want = want.as_js();
    format!("({PROBE_JS})({selector}, \"{want}\")")
}

const PROBE_JS: &str = r#"(sel, want) => {
  let el;
  try { el = document.querySelector(sel); } catch (e) { return {state: 'invalid', detail: String((e && e.message) || e)}; }
  if (!el) return {state: 'missing'};
  const describe = (n) => {
    let d = n.tagName.toLowerCase();
    if (n.id) return d + '#' + n.id;
    if (typeof n.className === 'string' && n.className.trim()) d += '.' + n.className.trim().split(/\s+/).join('.');
    return d;
  };
  const tag = el.tagName;
  if (want === 'present') {
    const raw = (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') ? el.value
      : (typeof el.innerText === 'string' ? el.innerText : el.textContent);
    return {state: 'ready', text: String(raw || '').trim()};
  }
  const style = getComputedStyle(el);
  let r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0 || style.visibility === 'hidden' || style.display === 'none' || style.opacity === '0') {
    return {state: 'not-ready', detail: 'is hidden'};
  }
  if (el.disabled || el.closest('fieldset[disabled]') || el.getAttribute('aria-disabled') === 'true') {
    return {state: 'not-ready', detail: 'is disabled'};
  }
  if (want === 'editable') {
    const nonText = ['button', 'submit', 'reset', 'checkbox', 'radio', 'file', 'image', 'range', 'color', 'hidden'];
    const textual = (tag === 'INPUT' && !nonText.includes(el.type)) || tag === 'TEXTAREA' || el.isContentEditable;
    if (!textual) return {state: 'not-ready', detail: 'is not a text field (' + describe(el) + ')'};
    if (el.readOnly) return {state: 'not-ready', detail: 'is read-only'};
  }
  if (r.bottom <= 0 || r.right <= 0 || r.top >= innerHeight || r.left >= innerWidth) {
    el.scrollIntoView({block: 'center', inline: 'center'});
    r = el.getBoundingClientRect();
  }
  const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
  if (cx < 0 || cy < 0 || cx >= innerWidth || cy >= innerHeight) {
    return {state: 'not-ready', detail: 'is outside the viewport'};
  }
  const top = document.elementFromPoint(cx, cy);
  if (top && top !== el && !el.contains(top) && !(top.tagName === 'LABEL' && top.control === el)) {
    return {state: 'not-ready', detail: 'is covered by ' + describe(top)};
  }
  return {state: 'ready', box: {x: r.x, y: r.y, width: r.width, height: r.height}};
}"#;

/// Puts the focus in the element `selector` matches and selects all of its content, so that
/// typing replaces it. Returns whether the element has the focus.
pub fn select_contents_js(selector: &str) -> String {
    let selector = serde_json::Value::String(selector.to_owned()).to_string();
    format!(
        "((sel) => {{ const el = document.querySelector(sel); if (!el) return false; el.focus(); \
         if (el.isContentEditable) {{ const range = document.createRange(); \
         range.selectNodeContents(el); const s = getSelection(); s.removeAllRanges(); \
         s.addRange(range); }} else {{ try {{ el.select(); }} catch (e) {{}} \
         let selected = false; try {{ selected = el.selectionStart === 0 && \
         el.selectionEnd === el.value.length; }} catch (e) {{}} \
         if (el.value && !selected) {{ el.value = ''; \
         el.dispatchEvent(new Event('input', {{bubbles: true}})); }} }} \
         return document.activeElement === el; }})({selector})"
    )
}

/// Polls `page` every `poll_ms` until the element `selector` matches is as `want`ed, or
/// `timeout_ms` passes. Interactive elements must show the same box on two polls in a row,
/// so a control still moving (an animation, a layout settling) is not clicked mid-flight.
/// Script errors while polling (a navigation replacing the document) count as "not yet".
pub async fn wait_for(
    page: &dyn BrowserBackend,
    selector: &str,
    want: Want,
    timeout_ms: u64,
    poll_ms: u64,
) -> Result<Ready, WaitFailure> {
    let script = probe_js(selector, want);
    let started = Instant::now();
    let mut last: Option<String> = None;
    let mut previous_box: Option<BoundingBox> = None;
    loop {
        match page.evaluate(&script).await {
            Ok(answer) => match answer.get("state").and_then(serde_json::Value::as_str) {
                Some("invalid") => {
                    return Err(WaitFailure::Invalid(detail_of(&answer)));
                }
                Some("ready") => {
                    let bounds = answer.get("box").and_then(parse_box);
                    let text = answer
                        .get("text")
                        .and_then(serde_json::Value::as_str)
                        .map(str::to_owned);
                    if want == Want::Present {
                        return Ok(Ready { bounds, text });
                    }
                    if bounds.is_some() && bounds == previous_box {
                        return Ok(Ready { bounds, text });
                    }
                    previous_box = bounds;
                    last = Some("is still moving".to_owned());
                }
                Some("not-ready") => {
                    previous_box = None;
                    last = Some(detail_of(&answer));
                }
                _ => {
                    previous_box = None;
                    last = None;
                }
            },
            Err(error @ (DriveError::BackendGone { .. } | DriveError::Launch { .. })) => {
                return Err(WaitFailure::Backend(error));
            }
            Err(error) => {
                // The document may be between two pages; try again until the timeout.
                tracing::debug!(%error, selector, "element probe failed; retrying");
                previous_box = None;
            }
        }
        if started.elapsed() >= Duration::from_millis(timeout_ms) {
            return Err(match last {
                Some(state) => WaitFailure::NotReady(state),
                None => WaitFailure::Missing,
            });
        }
        tokio::time::sleep(Duration::from_millis(poll_ms)).await;
    }
}

fn detail_of(answer: &serde_json::Value) -> String {
    answer
        .get("detail")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("is not usable")
        .to_owned()
}

fn parse_box(value: &serde_json::Value) -> Option<BoundingBox> {
    let field = |name: &str| value.get(name).and_then(serde_json::Value::as_f64);
    Some(BoundingBox {
        x: field("x")?,
        y: field("y")?,
        width: field("width")?,
        height: field("height")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_travel_as_json_string_literals() {
        let script = probe_js(r#"a[title="x"]'); alert(1); ('"#, Want::Clickable);
        assert!(
            script.ends_with(r#"("a[title=\"x\"]'); alert(1); ('", "clickable")"#),
            "{script}"
        );
        let script = select_contents_js("#a\"b");
        assert!(script.ends_with(r##"("#a\"b")"##), "{script}");
    }

    #[test]
    fn boxes_need_all_four_numbers() {
        let full = serde_json::json!({"x": 1.0, "y": 2, "width": 3, "height": 4.5});
        assert_eq!(
            parse_box(&full),
            Some(BoundingBox {
                x: 1.0,
                y: 2.0,
                width: 3.0,
                height: 4.5
            })
        );
        assert_eq!(
            parse_box(&serde_json::json!({"x": 1, "y": 2, "width": 3})),
            None
        );
    }
}
