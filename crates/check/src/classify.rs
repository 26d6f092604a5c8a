//! Typing a changed box: the elements of each side that touch it are matched across sides
//! (same tag, own text and box), and what does not match says what changed. An element found
//! on the other side with the same tag, text and size at another place moved (layout, shift);
//! one at the same place with other text was relabelled (content, text); one with no
//! counterpart was removed or added (content); when everything matches, a computed colour
//! that differs is a colour change (styling, [`ChangeKind::Colour`]), and otherwise the pixels
//! changed under elements the DOM shows unchanged (styling, [`ChangeKind::Pixels`]: an image,
//! a shadow, rendering). Containers without text of their own that hold the whole box are
//! context, not the change. A box no element explains is typed by a counting accessibility
//! change inside it, when there is one ([`classify_with_accessibility`]).

use retrace_protocol::events::ChangeKind;
use retrace_protocol::events::Difference;
use retrace_protocol::events::DifferenceKind;
use retrace_protocol::events::Severity;

use crate::accessibility_diff;
use crate::accessibility_diff::AxChange;
use crate::cluster::PixelBox;
use crate::elements::PageElement;

/// Boxes within this many pixels count as the same place.
const SAME_PLACE: f64 = 0.5;

fn same_size(a: &PageElement, b: &PageElement) -> bool {
    (a.width - b.width).abs() < SAME_PLACE && (a.height - b.height).abs() < SAME_PLACE
}

fn same_place(a: &PageElement, b: &PageElement) -> bool {
    same_size(a, b) && (a.x - b.x).abs() < SAME_PLACE && (a.y - b.y).abs() < SAME_PLACE
}

fn same_element(a: &PageElement, b: &PageElement) -> bool {
    a.tag == b.tag && a.text == b.text && same_place(a, b)
}

/// Overlap of two boxes over their union (0 to 1).
fn overlap(a: &PageElement, b: &PageElement) -> f64 {
    let width = (a.x + a.width).min(b.x + b.width) - a.x.max(b.x);
    let height = (a.y + a.height).min(b.y + b.height) - a.y.max(b.y);
    if width <= 0.0 || height <= 0.0 {
        return 0.0;
    }
    let shared = width * height;
    shared / (a.width * a.height + b.width * b.height - shared)
}

/// The elements of one side that may be the change in `area`.
fn touching<'a>(elements: &'a [PageElement], area: &PixelBox) -> Vec<&'a PageElement> {
    elements
        .iter()
        .filter(|e| e.intersects(area) && !(e.text.is_empty() && e.encloses(area, 2.0)))
        .collect()
}

fn difference(
    area: &PixelBox,
    kind: DifferenceKind,
    change: ChangeKind,
    severity: Severity,
    description: String,
) -> Difference {
    Difference {
        kind,
        severity,
        description,
        region: Some(area.to_bounding_box()),
        change: Some(change),
    }
}

/// The largest of `elements` (the outermost of a changed group).
fn largest<'a>(elements: &[&'a PageElement]) -> Option<&'a PageElement> {
    elements
        .iter()
        .copied()
        .max_by(|a, b| (a.width * a.height).total_cmp(&(b.width * b.height)))
}

/// Says what changed in `area`, from both sides' elements.
pub fn classify(
    area: &PixelBox,
    baseline: &[PageElement],
    candidate: &[PageElement],
) -> Difference {
    classify_with_accessibility(area, baseline, candidate, &[])
}

/// [`classify`], and when the elements cannot explain `area`, the accessibility tree's
/// changes inside it can (module `accessibility_diff`: an image whose name changed with its
/// pixels, a checkbox now checked).
pub fn classify_with_accessibility(
    area: &PixelBox,
    baseline: &[PageElement],
    candidate: &[PageElement],
    accessibility: &[AxChange],
) -> Difference {
    let before = touching(baseline, area);
    let after = touching(candidate, area);
    let gone: Vec<&PageElement> = before
        .iter()
        .copied()
        .filter(|e| !candidate.iter().any(|f| same_element(e, f)))
        .collect();
    let new: Vec<&PageElement> = after
        .iter()
        .copied()
        .filter(|f| !baseline.iter().any(|e| same_element(e, f)))
        .collect();

    // Moved: the same element, same size, elsewhere; the largest such says by how much.
    let mut moves: Vec<(&PageElement, &PageElement)> = gone
        .iter()
        .filter_map(|e| {
            new.iter()
                .filter(|f| f.tag == e.tag && f.text == e.text && same_size(e, f))
                .min_by(|a, b| {
                    let d = |f: &PageElement| (f.x - e.x).abs() + (f.y - e.y).abs();
                    d(a).total_cmp(&d(b))
                })
                .map(|f| (*e, *f))
        })
        .collect();
    moves.sort_by(|a, b| (b.0.width * b.0.height).total_cmp(&(a.0.width * a.0.height)));
    if let Some((from, to)) = moves.first() {
        let (dx, dy) = (to.x - from.x, to.y - from.y);
        return difference(
            area,
            DifferenceKind::Layout,
            ChangeKind::Shift,
            Severity::Minor,
            format!(
                "{} moved by ({}, {}) px",
                from.describe(),
                round(dx),
                round(dy)
            ),
        );
    }

    // Relabelled: the same kind of element at the same place, with other text.
    let relabelled = gone.iter().find_map(|e| {
        new.iter()
            .find(|f| f.tag == e.tag && f.text != e.text && overlap(e, f) > 0.5)
            .map(|f| (*e, *f))
    });
    if let Some((from, to)) = relabelled {
        return difference(
            area,
            DifferenceKind::Content,
            ChangeKind::Text,
            Severity::Major,
            format!(
                "the text of {} changed from {:?} to {:?}",
                from.tag, from.text, to.text
            ),
        );
    }

    match (largest(&gone), largest(&new)) {
        (Some(removed), None) => difference(
            area,
            DifferenceKind::Content,
            ChangeKind::Removed,
            Severity::Major,
            format!("{} is missing from the candidate", removed.describe()),
        ),
        (None, Some(added)) => difference(
            area,
            DifferenceKind::Content,
            ChangeKind::Added,
            Severity::Major,
            format!("{} is new in the candidate", added.describe()),
        ),
        (Some(removed), Some(added)) => difference(
            area,
            DifferenceKind::Layout,
            ChangeKind::Other,
            Severity::Major,
            format!("{} became {}", removed.describe(), added.describe()),
        ),
        (None, None) => colour_change(area, &before, candidate, accessibility),
    }
}

/// Every element matches: a colour changed under them, or something the DOM does not show.
fn colour_change(
    area: &PixelBox,
    before: &[&PageElement],
    candidate: &[PageElement],
    accessibility: &[AxChange],
) -> Difference {
    let recoloured = before.iter().find_map(|e| {
        let f = candidate.iter().find(|f| same_element(e, f))?;
        let pairs = [
            ("background", &e.background, &f.background),
            ("colour", &e.color, &f.color),
            ("border colour", &e.border, &f.border),
        ];
        pairs
            .into_iter()
            .find(|(_, a, b)| a != b)
            .map(|(what, a, b)| format!("the {what} of {} changed from {a} to {b}", e.describe()))
    });
    if recoloured.is_none()
        && let Some(explained) = accessibility_diff::explain(area, accessibility)
    {
        return explained;
    }
    let (change, description) = match recoloured {
        Some(description) => (ChangeKind::Colour, description),
        None => (
            ChangeKind::Pixels,
            format!(
                "pixels changed under unchanged elements ({} of them): an image, a shadow, a \
                 gradient or a rendering change the DOM does not show",
                before.len()
            ),
        ),
    };
    difference(
        area,
        DifferenceKind::Styling,
        change,
        Severity::Minor,
        description,
    )
}

fn round(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn element(tag: &str, text: &str, x: f64, y: f64, w: f64, h: f64) -> PageElement {
        PageElement {
            tag: tag.to_owned(),
            text: text.to_owned(),
            x,
            y,
            width: w,
            height: h,
            color: "rgb(0, 0, 0)".to_owned(),
            background: "rgba(0, 0, 0, 0)".to_owned(),
            border: "rgb(0, 0, 0)".to_owned(),
        }
    }

    fn area(x: u32, y: u32, width: u32, height: u32) -> PixelBox {
        PixelBox {
            x,
            y,
            width,
            height,
        }
    }

    fn page() -> Vec<PageElement> {
        vec![
            element("main", "", 0.0, 0.0, 1000.0, 1000.0),
            element("div", "", 100.0, 100.0, 200.0, 100.0),
            element("h3", "Pro", 110.0, 110.0, 100.0, 20.0),
            element("button", "Start free trial", 400.0, 100.0, 200.0, 48.0),
            element("div", "", 700.0, 100.0, 48.0, 48.0),
        ]
    }

    #[test]
    fn each_kind_of_change_is_named() {
        let base = page();

        let mut moved = base.clone();
        moved[1].y += 4.0;
        moved[2].y += 4.0;
        let found = classify(&area(100, 100, 200, 104), &base, &moved);
        assert_eq!(found.change, Some(ChangeKind::Shift), "{found:?}");
        assert_eq!(found.kind, DifferenceKind::Layout);
        assert!(
            found.description.contains("(0, 4)"),
            "{}",
            found.description
        );

        let mut relabelled = base.clone();
        relabelled[3].text = "Start your trial".to_owned();
        let found = classify(&area(440, 110, 100, 20), &base, &relabelled);
        assert_eq!(found.change, Some(ChangeKind::Text), "{found:?}");
        assert_eq!(found.kind, DifferenceKind::Content);

        let mut recoloured = base.clone();
        recoloured[4].background = "rgb(15, 154, 142)".to_owned();
        let found = classify(&area(700, 100, 48, 48), &base, &recoloured);
        assert_eq!(found.change, Some(ChangeKind::Colour), "{found:?}");
        assert_eq!(found.kind, DifferenceKind::Styling);
        assert!(found.description.contains("rgb(15, 154, 142)"));
        let found = classify(&area(700, 100, 48, 48), &base, &base);
        assert_eq!(found.change, Some(ChangeKind::Pixels), "{found:?}");
        assert_eq!(found.kind, DifferenceKind::Styling);

        let mut removed = base.clone();
        removed.remove(4);
        let found = classify(&area(700, 100, 48, 48), &base, &removed);
        assert_eq!(found.change, Some(ChangeKind::Removed), "{found:?}");
        let found = classify(&area(700, 100, 48, 48), &removed, &base);
        assert_eq!(found.change, Some(ChangeKind::Added), "{found:?}");
    }
}
