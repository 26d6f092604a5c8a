//! A desktop window's accessibility elements (read over AT-SPI, boxes relative to the window)
//! in the shapes the page layers compare: an [`AxTree`] for module `accessibility_diff`
//! (role, name, a field's text as its value, the states a person sees) and [`PageElement`]s
//! for the box typing of module `classify` (the role as the tag, the name or text as the
//! text). A desktop has no computed styles, so each element's colours are read from the
//! window's own pixels: its commonest colour is its background, the commonest of those far
//! from it its foreground; a dark theme then reads as a changed background.

use std::collections::HashMap;

use retrace_protocol::element::ElementInfo;
use retrace_protocol::element::Tristate;

use crate::accessibility::AxNode;
use crate::accessibility::AxTree;
use crate::accessibility::MAX_AX_NODES;
use crate::elements::PageElement;
use crate::pixels::Frame;

/// A pixel this far (summed over R, G and B) from the background is foreground.
const FOREGROUND_DISTANCE: u32 = 96;

/// The states a person can see, in the page tree's words, sorted.
fn states(element: &ElementInfo) -> Vec<String> {
    let mut found = Vec::new();
    match element.checked.or(element.pressed) {
        Some(Tristate::Mixed) => found.push("mixed"),
        Some(Tristate::True) if element.checked.is_some() => found.push("checked"),
        Some(Tristate::True) => found.push("pressed"),
        _ => {}
    }
    if element.selected == Some(true) {
        found.push("selected");
    }
    match element.expanded {
        Some(true) => found.push("expanded"),
        Some(false) => found.push("collapsed"),
        None => {}
    }
    if element.disabled {
        found.push("disabled");
    }
    let mut found: Vec<String> = found.into_iter().map(str::to_owned).collect();
    found.sort();
    found
}

/// A field's text, never a password's.
fn value(element: &ElementInfo) -> Option<String> {
    if element.input_type.as_deref() == Some("password") {
        return None;
    }
    let text = element.value.as_ref()?.expose();
    let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!text.is_empty()).then_some(text)
}

/// Whether an element shows anything: a box of at least one pixel.
fn shown(element: &ElementInfo) -> bool {
    element.bounds.width >= 1.0 && element.bounds.height >= 1.0
}

/// The elements as an accessibility tree (at most [`MAX_AX_NODES`]).
pub fn ax_tree(elements: &[ElementInfo]) -> AxTree {
    let mut tree = AxTree::default();
    for element in elements.iter().filter(|e| shown(e)) {
        if tree.nodes.len() >= MAX_AX_NODES {
            tree.truncated = true;
            break;
        }
        let b = element.bounds;
        tree.nodes.push(AxNode {
            role: element.role.clone(),
            level: None,
            name: element.name.clone(),
            value: value(element),
            states: states(element),
            x: b.x,
            y: b.y,
            width: b.width,
            height: b.height,
        });
    }
    tree
}

/// The elements as page elements, their colours read from `frame` (the window's pixels).
pub fn page_elements(elements: &[ElementInfo], frame: &Frame) -> Vec<PageElement> {
    elements
        .iter()
        .filter(|e| shown(e))
        .map(|element| {
            let b = element.bounds;
            let (background, foreground) = colours(frame, b.x, b.y, b.width, b.height);
            let text = match value(element) {
                Some(text) if element.name.is_empty() => text,
                _ => element.name.clone(),
            };
            PageElement {
                tag: element.role.clone(),
                text,
                x: b.x,
                y: b.y,
                width: b.width,
                height: b.height,
                color: foreground,
                background,
                border: String::new(),
            }
        })
        .collect()
}

/// `rgb(r, g, b)`.
fn css(rgb: [u8; 3]) -> String {
    format!("rgb({}, {}, {})", rgb[0], rgb[1], rgb[2])
}

/// The commonest colour of `frame` in the box, and the commonest of those far from it
/// (`none` when there is none); `none` for both when the box is off the frame.
fn colours(frame: &Frame, x: f64, y: f64, width: f64, height: f64) -> (String, String) {
    let clamp = |value: f64, most: u32| value.max(0.0).min(f64::from(most)) as u32;
    let (left, top) = (clamp(x, frame.width), clamp(y, frame.height));
    let (right, bottom) = (
        clamp(x + width, frame.width),
        clamp(y + height, frame.height),
    );
    let mut counts: HashMap<[u8; 3], u32> = HashMap::new();
    for row in top..bottom {
        for column in left..right {
            let at = (row as usize * frame.width as usize + column as usize) * 4;
            if let Some(pixel) = frame.rgba.get(at..at + 3) {
                *counts.entry([pixel[0], pixel[1], pixel[2]]).or_default() += 1;
            }
        }
    }
    let commonest = |pixels: &mut dyn Iterator<Item = (&[u8; 3], &u32)>| {
        pixels
            .max_by_key(|(rgb, count)| (**count, **rgb))
            .map(|(rgb, _)| *rgb)
    };
    let Some(background) = commonest(&mut counts.iter()) else {
        return ("none".to_owned(), "none".to_owned());
    };
    let far = |rgb: &[u8; 3]| {
        let distance: u32 = rgb
            .iter()
            .zip(background)
            .map(|(a, b)| u32::from(a.abs_diff(b)))
            .sum();
        distance >= FOREGROUND_DISTANCE
    };
    let foreground = commonest(&mut counts.iter().filter(|(rgb, _)| far(rgb)));
    (
        css(background),
        foreground.map(css).unwrap_or_else(|| "none".to_owned()),
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use retrace_protocol::element::BoundingBox;
    use retrace_protocol::element::FieldValue;

    use super::*;

    fn element(role: &str, name: &str, x: f64, y: f64, width: f64, height: f64) -> ElementInfo {
        ElementInfo {
            role: role.to_owned(),
            name: name.to_owned(),
            text: String::new(),
            tag: String::new(),
            selector: String::new(),
            bounds: BoundingBox {
                x,
                y,
                width,
                height,
            },
            checked: None,
            expanded: None,
            selected: None,
            pressed: None,
            disabled: false,
            focused: false,
            editable: false,
            input_type: None,
            value: None,
            receives_events: true,
            blocked_reason: None,
            listeners: None,
            text_style: None,
        }
    }

    #[test]
    fn states_text_and_colours_read_as_the_page_layers_read_them() {
        let mut check = element("check box", "Remember me", 10.0, 10.0, 20.0, 10.0);
        check.checked = Some(Tristate::True);
        check.disabled = true;
        let mut field = element("text", "", 0.0, 0.0, 4.0, 4.0);
        field.value = Some(FieldValue::new("  a  note ".to_owned()));
        let mut password = element("password text", "", 0.0, 0.0, 4.0, 4.0);
        password.value = Some(FieldValue::new("s3cret".to_owned()));
        password.input_type = Some("password".to_owned());
        let hidden = element("filler", "", 0.0, 0.0, 0.0, 0.0);
        let elements = [check, field, password, hidden];

        let tree = ax_tree(&elements);
        assert_eq!(tree.nodes.len(), 3, "the empty box is not shown");
        assert_eq!(tree.nodes[0].states, ["checked", "disabled"]);
        assert_eq!(tree.nodes[1].value.as_deref(), Some("a note"));
        assert_eq!(tree.nodes[2].value, None, "a password's text is never read");

        // A 4x4 frame: light grey, with one dark pixel.
        let mut rgba = [[200u8, 200, 200, 255]; 16].concat();
        rgba[20..24].copy_from_slice(&[10, 10, 10, 255]);
        let frame = Frame {
            width: 4,
            height: 4,
            rgba,
        };
        let page = page_elements(&elements, &frame);
        assert_eq!(page[1].tag, "text");
        assert_eq!(page[1].text, "a note", "a field without a name is its text");
        assert_eq!(page[1].background, "rgb(200, 200, 200)");
        assert_eq!(page[1].color, "rgb(10, 10, 10)");
        assert_eq!(page[0].background, "none", "off the frame");
    }
}
