//! What changed between two sides' accessibility trees (module `accessibility`), and what
//! those changes mean for the verdict.
//!
//! **Matching** ([`diff`]): nodes with the same role and name pair up, nearest first; a pair
//! at another place moved, and its value or states may have changed. What is left pairs by
//! role and place (each box holds the other's centre): a pair with other names was renamed.
//! What is still left with the same name at the same place changed role only. The rest was
//! removed or added, unless its name is still on the other side's page, as text inside its
//! box (in any case: `text-transform` shows in names, not in the DOM's text): then only the
//! role went (a heading refactored into a styled `div`). Names compare without whitespace,
//! so markup that spaces inline children differently matches.
//!
//! **What counts** ([`AxChange::significant`]): a changed name (both non-empty), value or
//! state, and an added or removed named node are text or structure changes. A move, a role
//! change, an unnamed node appearing or going, and a name that appears or goes while its
//! text stays on the page (a label no longer tied to its field) do not count: the pixels
//! show a move, and markup refactors that look the same must pass.
//!
//! **Use**: [`explain`] types a pixel box the DOM cannot explain by a change inside it, and
//! [`unreported`] turns each counting change that no pixel box covers into a difference of its
//! own, so a renamed button is a FAIL even when its pixels are under the tolerance. Only
//! changes inside the screenshots are used ([`within`]), and masked elements are not in the
//! trees (module `stabilise` hides them), as they are not in the pixels.

use std::collections::HashMap;

use retrace_protocol::events::ChangeKind;
use retrace_protocol::events::Difference;
use retrace_protocol::events::DifferenceKind;
use retrace_protocol::events::Severity;
use serde::Serialize;

use crate::accessibility::AxNode;
use crate::accessibility::AxTree;
use crate::cluster::PixelBox;
use crate::elements::PageElement;

/// A pair further apart than this many pixels (either way) moved.
const MOVED: f64 = 1.0;

/// Groups of same-role, same-name nodes larger than this pair in document order instead of
/// nearest first (which costs the product of the group sizes).
const NEAREST_PAIRING_LIMIT: usize = 64;

/// What kind of accessibility change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AxChangeKind {
    /// Same role and place, another name.
    Renamed,
    /// Same node, another value.
    ValueChanged,
    /// Same node, other states (checked, disabled, expanded...).
    StateChanged,
    /// Same node, another place.
    Moved,
    /// Only in the candidate.
    Added,
    /// Only in the baseline.
    Removed,
    /// Same name and place, another role (or none: its text is still there).
    RoleChanged,
}

/// One change between the two trees.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AxChange {
    /// What kind.
    pub kind: AxChangeKind,
    /// Whether it is a text or structure change (see the module docs).
    pub significant: bool,
    /// What changed, for people: `button "Start free trial" is now named "Start your trial"`.
    pub description: String,
    /// The node in the baseline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<AxNode>,
    /// The node in the candidate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<AxNode>,
}

impl AxChange {
    fn new(
        kind: AxChangeKind,
        significant: bool,
        description: String,
        before: Option<&AxNode>,
        after: Option<&AxNode>,
    ) -> Self {
        Self {
            kind,
            significant,
            description,
            before: before.cloned(),
            after: after.cloned(),
        }
    }

    /// Whether either side's node touches `area`.
    fn touches(&self, area: &PixelBox) -> bool {
        [&self.before, &self.after]
            .into_iter()
            .flatten()
            .any(|node| node.intersects(area))
    }

    /// Where it is: the candidate's node, or the baseline's when it is gone.
    fn place(&self) -> Option<PixelBox> {
        let node = self.after.as_ref().or(self.before.as_ref())?;
        let x = node.x.max(0.0).floor();
        let y = node.y.max(0.0).floor();
        Some(PixelBox {
            x: x as u32,
            y: y as u32,
            width: ((node.x + node.width).ceil() - x).max(1.0) as u32,
            height: ((node.y + node.height).ceil() - y).max(1.0) as u32,
        })
    }

    /// The difference it is: its type, change, severity and description, at `region`.
    fn difference(&self, region: &PixelBox) -> Difference {
        let (kind, change) = match self.kind {
            AxChangeKind::Renamed | AxChangeKind::ValueChanged => {
                (DifferenceKind::Content, ChangeKind::Text)
            }
            AxChangeKind::StateChanged => (DifferenceKind::Interaction, ChangeKind::State),
            AxChangeKind::Added => (DifferenceKind::Content, ChangeKind::Added),
            AxChangeKind::Removed => (DifferenceKind::Content, ChangeKind::Removed),
            AxChangeKind::Moved => (DifferenceKind::Layout, ChangeKind::Shift),
            AxChangeKind::RoleChanged => (DifferenceKind::Content, ChangeKind::Other),
        };
        Difference {
            kind,
            severity: Severity::Major,
            description: self.description.clone(),
            region: Some(region.to_bounding_box()),
            change: Some(change),
        }
    }
}

/// A name without its whitespace, for comparing.
fn squash(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

fn centre_distance(a: &AxNode, b: &AxNode) -> f64 {
    let dx = (a.x + a.width / 2.0) - (b.x + b.width / 2.0);
    let dy = (a.y + a.height / 2.0) - (b.y + b.height / 2.0);
    dx.hypot(dy)
}

fn holds_centre(outer: &AxNode, inner: &AxNode) -> bool {
    let (cx, cy) = (inner.x + inner.width / 2.0, inner.y + inner.height / 2.0);
    outer.x <= cx && cx <= outer.x + outer.width && outer.y <= cy && cy <= outer.y + outer.height
}

/// The same place: each box holds the other's centre.
fn same_place(a: &AxNode, b: &AxNode) -> bool {
    holds_centre(a, b) && holds_centre(b, a)
}

/// Whether `name` is on a side's page as text inside `node`'s box (`None`: anywhere), in
/// any case (an accessible name has the case `text-transform` shows; the DOM, the source's).
fn text_on_page(elements: &[PageElement], name: &str, node: Option<&AxNode>) -> bool {
    let wanted = squash(&name.to_lowercase());
    if wanted.is_empty() {
        return false;
    }
    let text: String = elements
        .iter()
        .filter(|e| !e.text.is_empty())
        .filter(|e| {
            node.is_none_or(|n| {
                e.x < n.x + n.width
                    && e.x + e.width > n.x
                    && e.y < n.y + n.height
                    && e.y + e.height > n.y
            })
        })
        .map(|e| squash(&e.text.to_lowercase()))
        .collect();
    text.contains(&wanted)
}

/// One side: its tree and its elements (whose text says whether a name is still there).
#[derive(Clone, Copy)]
pub struct Side<'a> {
    /// The accessibility tree.
    pub tree: &'a AxTree,
    /// The visible elements.
    pub elements: &'a [PageElement],
}

/// Pairs of `(baseline, candidate)` indices with the same role and name, nearest first.
fn pair_same_nodes(before: &[AxNode], after: &[AxNode]) -> Vec<(usize, usize)> {
    let key = |n: &AxNode| (n.role.clone(), squash(&n.name));
    let mut groups: HashMap<(String, String), (Vec<usize>, Vec<usize>)> = HashMap::new();
    for (i, node) in before.iter().enumerate() {
        groups.entry(key(node)).or_default().0.push(i);
    }
    for (j, node) in after.iter().enumerate() {
        groups.entry(key(node)).or_default().1.push(j);
    }
    let mut pairs = Vec::new();
    for (left, right) in groups.into_values() {
        if left.len() > NEAREST_PAIRING_LIMIT || right.len() > NEAREST_PAIRING_LIMIT {
            pairs.extend(left.into_iter().zip(right));
            continue;
        }
        let mut candidates: Vec<(f64, usize, usize)> = left
            .iter()
            .flat_map(|&i| {
                right
                    .iter()
                    .map(move |&j| (centre_distance(&before[i], &after[j]), i, j))
            })
            .collect();
        candidates.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (mut used_left, mut used_right) = (Vec::new(), Vec::new());
        for (_, i, j) in candidates {
            if !used_left.contains(&i) && !used_right.contains(&j) {
                used_left.push(i);
                used_right.push(j);
                pairs.push((i, j));
            }
        }
    }
    pairs.sort_unstable();
    pairs
}

/// What changed within one pair of the same node: place, value, states.
fn compare_pair(from: &AxNode, to: &AxNode, changes: &mut Vec<AxChange>) {
    let (dx, dy) = (to.x - from.x, to.y - from.y);
    if dx.abs() > MOVED || dy.abs() > MOVED {
        let description = format!(
            "{} moved by ({}, {}) px",
            from.describe(),
            dx.round(),
            dy.round()
        );
        changes.push(AxChange::new(
            AxChangeKind::Moved,
            false,
            description,
            Some(from),
            Some(to),
        ));
    }
    if squash(from.value.as_deref().unwrap_or_default())
        != squash(to.value.as_deref().unwrap_or_default())
    {
        let description = format!(
            "{} holds {:?} instead of {:?}",
            from.describe(),
            to.value.as_deref().unwrap_or_default(),
            from.value.as_deref().unwrap_or_default()
        );
        changes.push(AxChange::new(
            AxChangeKind::ValueChanged,
            true,
            description,
            Some(from),
            Some(to),
        ));
    }
    if from.states != to.states {
        let gained = to.states.iter().filter(|s| !from.states.contains(s));
        let lost = from.states.iter().filter(|s| !to.states.contains(s));
        let mut parts: Vec<String> = gained.map(|s| format!("now {s}")).collect();
        parts.extend(lost.map(|s| format!("no longer {s}")));
        let description = format!("{} is {}", from.describe(), parts.join(", "));
        changes.push(AxChange::new(
            AxChangeKind::StateChanged,
            true,
            description,
            Some(from),
            Some(to),
        ));
    }
}

/// The changes from `baseline` to `candidate` (see the module docs).
pub fn diff(baseline: Side<'_>, candidate: Side<'_>) -> Vec<AxChange> {
    let (before, after) = (&baseline.tree.nodes, &candidate.tree.nodes);
    let mut changes = Vec::new();
    let mut left: Vec<bool> = vec![false; before.len()];
    let mut right: Vec<bool> = vec![false; after.len()];
    for (i, j) in pair_same_nodes(before, after) {
        left[i] = true;
        right[j] = true;
        compare_pair(&before[i], &after[j], &mut changes);
    }
    // Same role and place, another name; then same name and place, another role.
    for renamed in [true, false] {
        for (i, from) in before.iter().enumerate() {
            if left[i] {
                continue;
            }
            let found = after.iter().enumerate().find(|(j, to)| {
                !right[*j]
                    && same_place(from, to)
                    && if renamed {
                        to.role == from.role
                    } else {
                        !from.name.is_empty() && squash(&to.name) == squash(&from.name)
                    }
            });
            let Some((j, to)) = found else {
                continue;
            };
            left[i] = true;
            right[j] = true;
            if renamed {
                changes.push(renaming(from, to, baseline, candidate));
                compare_pair(from, to, &mut changes);
            } else {
                let description = format!("{} is now {}", from.describe(), to.role_words());
                changes.push(AxChange::new(
                    AxChangeKind::RoleChanged,
                    false,
                    description,
                    Some(from),
                    Some(to),
                ));
            }
        }
    }
    // The rest went or came; unnamed nodes and names whose text is still there do not count.
    for (i, from) in before.iter().enumerate() {
        if !left[i] && !from.name.is_empty() {
            changes.push(gone_or_new(from, candidate.elements, true));
        }
    }
    for (j, to) in after.iter().enumerate() {
        if !right[j] && !to.name.is_empty() {
            changes.push(gone_or_new(to, baseline.elements, false));
        }
    }
    changes
}

/// A node of one side with no counterpart on the other, whose `elements` are given.
fn gone_or_new(node: &AxNode, other: &[PageElement], gone: bool) -> AxChange {
    let (before, after) = if gone {
        (Some(node), None)
    } else {
        (None, Some(node))
    };
    if text_on_page(other, &node.name, Some(node)) {
        let description = if gone {
            format!(
                "{} is no longer a {} (its text is still there)",
                node.describe(),
                node.role
            )
        } else {
            format!("{} was not a {} before", node.describe(), node.role)
        };
        return AxChange::new(AxChangeKind::RoleChanged, false, description, before, after);
    }
    let (kind, description) = if gone {
        (
            AxChangeKind::Removed,
            format!("{} is missing from the candidate", node.describe()),
        )
    } else {
        (
            AxChangeKind::Added,
            format!("{} is new in the candidate", node.describe()),
        )
    };
    AxChange::new(kind, true, description, before, after)
}

/// The change of a node's name at the same place.
fn renaming(from: &AxNode, to: &AxNode, baseline: Side<'_>, candidate: Side<'_>) -> AxChange {
    let (description, significant) = match (from.name.is_empty(), to.name.is_empty()) {
        (false, false) => (
            format!("{} is now named {:?}", from.describe(), to.name),
            true,
        ),
        (false, true) => {
            let kept = text_on_page(candidate.elements, &from.name, None);
            let why = if kept {
                " (its text is still on the page: a label no longer tied to it)"
            } else {
                ""
            };
            (
                format!("{} lost its accessible name{why}", from.describe()),
                !kept,
            )
        }
        _ => {
            let was = text_on_page(baseline.elements, &to.name, None);
            let why = if was {
                " (its text was on the page already: a label now tied to it)"
            } else {
                ""
            };
            (
                format!("{} is now named {:?}{why}", from.describe(), to.name),
                !was,
            )
        }
    };
    AxChange::new(
        AxChangeKind::Renamed,
        significant,
        description,
        Some(from),
        Some(to),
    )
}

/// The difference a box the DOM cannot explain is, when counting accessibility changes
/// touch it: the first of them says its type, all of them (up to three) its description.
pub fn explain(area: &PixelBox, changes: &[AxChange]) -> Option<Difference> {
    let inside: Vec<&AxChange> = changes
        .iter()
        .filter(|c| c.significant && c.touches(area))
        .collect();
    let first = inside.first()?;
    let mut difference = first.difference(area);
    difference.description = inside
        .iter()
        .take(3)
        .map(|c| c.description.as_str())
        .collect::<Vec<_>>()
        .join("; ");
    if inside.len() > 3 {
        difference.description += &format!(" (and {} more)", inside.len() - 3);
    }
    Some(difference)
}

/// The changes whose node, on either side, shows in a screenshot of `width` x `height` from
/// the page's top left: one off the screenshot (below the fold of a viewport-only capture,
/// or placed off the page) is not part of what was compared.
pub fn within(changes: Vec<AxChange>, width: u32, height: u32) -> Vec<AxChange> {
    let frame = PixelBox {
        x: 0,
        y: 0,
        width,
        height,
    };
    changes.into_iter().filter(|c| c.touches(&frame)).collect()
}

/// The counting changes no difference in `found` already covers (by box), each a
/// difference of its own at its node's box.
pub fn unreported(changes: &[AxChange], found: &[Difference]) -> Vec<Difference> {
    changes
        .iter()
        .filter(|c| c.significant)
        .filter_map(|c| {
            let place = c.place()?;
            let covered = found.iter().filter_map(|d| d.region.as_ref()).any(|r| {
                [&c.before, &c.after].into_iter().flatten().any(|n| {
                    n.x < r.x + r.width
                        && n.x + n.width > r.x
                        && n.y < r.y + r.height
                        && n.y + n.height > r.y
                })
            });
            (!covered).then(|| c.difference(&place))
        })
        .collect()
}

#[cfg(test)]
#[path = "accessibility_diff_tests.rs"]
mod tests;
