//! Unit tests of `accessibility_diff`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use retrace_protocol::BoundingBox;

use super::*;

fn node(role: &str, name: &str, x: f64, y: f64, w: f64, h: f64) -> AxNode {
    AxNode {
        role: role.to_owned(),
        level: None,
        name: name.to_owned(),
        value: None,
        states: Vec::new(),
        x,
        y,
        width: w,
        height: h,
    }
}

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

fn tree(nodes: Vec<AxNode>) -> AxTree {
    AxTree {
        nodes,
        truncated: false,
    }
}

/// A small page: a heading, a button, a checkbox, a field and an image.
fn page() -> Vec<AxNode> {
    let mut heading = node("heading", "Plans for teams", 100.0, 40.0, 400.0, 40.0);
    heading.level = Some(1);
    let mut checkbox = node("checkbox", "Remember me", 100.0, 200.0, 13.0, 13.0);
    checkbox.states = vec!["checked".to_owned()];
    let mut field = node("textbox", "Email", 100.0, 240.0, 200.0, 30.0);
    field.value = Some("a@example.com".to_owned());
    vec![
        heading,
        node("button", "Start free trial", 100.0, 120.0, 200.0, 48.0),
        checkbox,
        field,
        node("img", "Revenue, first quarter", 400.0, 200.0, 64.0, 64.0),
    ]
}

/// The text each side shows: the heading's and the button's.
fn texts() -> Vec<PageElement> {
    vec![
        element("h1", "Plans for teams", 100.0, 40.0, 400.0, 40.0),
        element("a", "Start free trial", 100.0, 120.0, 200.0, 48.0),
        element("label", "Email", 20.0, 240.0, 60.0, 30.0),
    ]
}

fn changes_between(before: Vec<AxNode>, after: Vec<AxNode>) -> Vec<AxChange> {
    changes_with_texts(before, after, &texts(), &texts())
}

fn changes_with_texts(
    before: Vec<AxNode>,
    after: Vec<AxNode>,
    before_texts: &[PageElement],
    after_texts: &[PageElement],
) -> Vec<AxChange> {
    let (before, after) = (tree(before), tree(after));
    diff(
        Side {
            tree: &before,
            elements: before_texts,
        },
        Side {
            tree: &after,
            elements: after_texts,
        },
    )
}

/// `(kind, significant, description)` of each change.
fn summary(changes: &[AxChange]) -> Vec<(AxChangeKind, bool, String)> {
    changes
        .iter()
        .map(|c| (c.kind, c.significant, c.description.clone()))
        .collect()
}

#[test]
fn the_same_tree_has_no_changes_and_neither_has_it_reordered() {
    assert_eq!(changes_between(page(), page()), []);
    let mut reordered = page();
    reordered.reverse();
    assert_eq!(changes_between(page(), reordered), []);
    // Identical links in another document order pair by place.
    let links = |order: [f64; 3]| {
        order
            .iter()
            .map(|y| node("link", "Learn more", 10.0, *y, 80.0, 20.0))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        changes_between(links([0.0, 30.0, 60.0]), links([60.0, 0.0, 30.0])),
        []
    );
}

#[test]
fn each_kind_of_change_is_named_and_counts() {
    let base = page();

    let mut renamed = base.clone();
    renamed[1].name = "Start your trial".to_owned();
    assert_eq!(
        summary(&changes_between(base.clone(), renamed)),
        [(
            AxChangeKind::Renamed,
            true,
            "button \"Start free trial\" is now named \"Start your trial\"".to_owned()
        )]
    );

    let mut unchecked = base.clone();
    unchecked[2].states = vec!["disabled".to_owned()];
    assert_eq!(
        summary(&changes_between(base.clone(), unchecked)),
        [(
            AxChangeKind::StateChanged,
            true,
            "checkbox \"Remember me\" is now disabled, no longer checked".to_owned()
        )]
    );

    let mut typed = base.clone();
    typed[3].value = Some("b@example.com".to_owned());
    assert_eq!(
        summary(&changes_between(base.clone(), typed)),
        [(
            AxChangeKind::ValueChanged,
            true,
            "textbox \"Email\" holds \"b@example.com\" instead of \"a@example.com\"".to_owned()
        )]
    );

    let mut moved = base.clone();
    moved[1].y += 8.0;
    assert_eq!(
        summary(&changes_between(base.clone(), moved)),
        [(
            AxChangeKind::Moved,
            false,
            "button \"Start free trial\" moved by (0, 8) px".to_owned()
        )]
    );

    let mut removed = base.clone();
    removed.remove(4);
    assert_eq!(
        summary(&changes_between(base.clone(), removed.clone())),
        [(
            AxChangeKind::Removed,
            true,
            "img \"Revenue, first quarter\" is missing from the candidate".to_owned()
        )]
    );
    assert_eq!(
        summary(&changes_between(removed, base.clone())),
        [(
            AxChangeKind::Added,
            true,
            "img \"Revenue, first quarter\" is new in the candidate".to_owned()
        )]
    );

    // A sub-pixel difference of layout is no move.
    let mut nudged = base.clone();
    nudged[0].x += 0.4;
    assert_eq!(changes_between(base, nudged), []);
}

#[test]
fn a_role_changing_alone_does_not_count() {
    let base = page();
    // The button becomes a link of the same name at the same place.
    let mut relinked = base.clone();
    relinked[1].role = "link".to_owned();
    let found = changes_between(base.clone(), relinked);
    assert_eq!(
        summary(&found),
        [(
            AxChangeKind::RoleChanged,
            false,
            "button \"Start free trial\" is now link".to_owned()
        )]
    );
    // The heading becomes a styled div: gone from the tree, its text still in its box.
    let mut unheaded = base.clone();
    unheaded.remove(0);
    let found = changes_between(base.clone(), unheaded.clone());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].kind, found[0].significant),
        (AxChangeKind::RoleChanged, false)
    );
    // ... also when `text-transform` shows the heading's name in capitals.
    let mut shouted = base.clone();
    shouted[0].name = "PLANS FOR TEAMS".to_owned();
    let found = changes_between(shouted, unheaded);
    assert_eq!(
        (found[0].kind, found[0].significant),
        (AxChangeKind::RoleChanged, false)
    );
    // ... but when its text went too, it was removed.
    let mut unheaded = base.clone();
    unheaded.remove(0);
    let without_title: Vec<PageElement> = texts().into_iter().skip(1).collect();
    let found = changes_with_texts(base.clone(), unheaded, &texts(), &without_title);
    assert_eq!(
        (found[0].kind, found[0].significant),
        (AxChangeKind::Removed, true)
    );
    // An unnamed landmark going (a `nav` refactored into a `div`) is not reported.
    let mut landmarked = base.clone();
    landmarked.push(node("navigation", "", 0.0, 0.0, 1000.0, 30.0));
    assert_eq!(changes_between(landmarked, base.clone()), []);
    // A heading's level alone changing is no change either.
    let mut leveled = base.clone();
    leveled[0].level = Some(2);
    assert_eq!(changes_between(base, leveled), []);
}

#[test]
fn a_name_lost_with_its_text_still_on_the_page_is_a_label_untied_not_content() {
    let base = page();
    let mut unlabelled = base.clone();
    unlabelled[3].name = String::new();
    let found = changes_between(base.clone(), unlabelled.clone());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].kind, found[0].significant),
        (AxChangeKind::Renamed, false)
    );
    assert!(
        found[0].description.contains("label no longer tied"),
        "{found:?}"
    );
    // The text gone with it: the name is lost for real.
    let without_label: Vec<PageElement> = texts().into_iter().take(2).collect();
    let found = changes_with_texts(base, unlabelled, &texts(), &without_label);
    assert_eq!(
        (found[0].kind, found[0].significant),
        (AxChangeKind::Renamed, true)
    );
    assert_eq!(
        found[0].description,
        "textbox \"Email\" lost its accessible name"
    );
}

fn area(x: u32, y: u32, width: u32, height: u32) -> PixelBox {
    PixelBox {
        x,
        y,
        width,
        height,
    }
}

#[test]
fn a_box_is_explained_by_the_counting_changes_inside_it() {
    let base = page();
    let mut after = base.clone();
    after[4].name = "Revenue, second quarter".to_owned();
    after[1].y += 8.0;
    let changes = changes_between(base, after);
    let explained = explain(&area(410, 210, 20, 20), &changes).unwrap();
    assert_eq!(
        (explained.kind, explained.change),
        (DifferenceKind::Content, Some(ChangeKind::Text))
    );
    assert_eq!(
        explained.description,
        "img \"Revenue, first quarter\" is now named \"Revenue, second quarter\""
    );
    assert_eq!(
        explained.region,
        Some(BoundingBox {
            x: 410.0,
            y: 210.0,
            width: 20.0,
            height: 20.0
        })
    );
    // A move does not count; a box away from every change is not explained.
    assert_eq!(explain(&area(100, 120, 10, 10), &changes), None);
    assert_eq!(explain(&area(900, 900, 10, 10), &changes), None);
}

#[test]
fn counting_changes_no_box_covers_are_differences_of_their_own() {
    let base = page();
    let mut after = base.clone();
    after[1].name = "Start your trial".to_owned();
    after[2].states.clear();
    let changes = changes_between(base, after);
    let alone = unreported(&changes, &[]);
    let kinds: Vec<_> = alone.iter().map(|d| (d.kind, d.change)).collect();
    assert_eq!(
        kinds,
        [
            (DifferenceKind::Interaction, Some(ChangeKind::State)),
            (DifferenceKind::Content, Some(ChangeKind::Text)),
        ]
    );
    assert_eq!(
        alone[1].region,
        Some(BoundingBox {
            x: 100.0,
            y: 120.0,
            width: 200.0,
            height: 48.0
        })
    );
    // A pixel box over the button already reports it; the checkbox is still alone.
    let boxed = Difference {
        kind: DifferenceKind::Styling,
        severity: Severity::Minor,
        description: "pixels".to_owned(),
        region: Some(BoundingBox {
            x: 150.0,
            y: 130.0,
            width: 10.0,
            height: 10.0,
        }),
        change: Some(ChangeKind::Colour),
    };
    let alone = unreported(&changes, &[boxed]);
    assert_eq!(alone.len(), 1, "{alone:?}");
    assert_eq!(alone[0].change, Some(ChangeKind::State));
}

#[test]
fn only_changes_inside_the_screenshots_are_kept() {
    let base = page();
    let mut after = base.clone();
    after[1].name = "Start your trial".to_owned();
    let mut below = node("link", "Terms", 100.0, 900.0, 80.0, 20.0);
    let before_below = below.clone();
    below.name = "Terms of use".to_owned();
    let mut with_below = base;
    with_below.push(before_below);
    after.push(below);
    let changes = changes_between(with_below, after);
    assert_eq!(changes.len(), 2, "{changes:?}");
    let kept = within(changes.clone(), 1280, 720);
    assert_eq!(summary(&kept), summary(&changes[..1]));
    assert_eq!(within(changes, 1280, 1000).len(), 2, "a full-page capture");
}
