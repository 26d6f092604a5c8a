//! What each side's page says to assistive technology, read right after its screenshot: the
//! nodes of its accessibility tree that people act on or find their way by (controls, links,
//! headings, images, landmarks), each with its role, accessible name, value, visible states
//! and page box. Module `accessibility_diff` matches them across sides.
//!
//! **Two CDP commands per side, sent together** (one round trip): `Accessibility.getFullAXTree`
//! gives every node with its backend DOM node id, and `DOMSnapshot.captureSnapshot` gives the
//! layout box of every rendered DOM node keyed by the same ids. Asking `DOM.getBoxModel` per
//! node would cost one round trip per node; a script cannot see backend node ids. Both answers
//! are read leniently (only the fields used, unknown roles and properties ignored), so a newer
//! Chromium that adds a property name the typed protocol does not know still works.

use std::collections::HashMap;

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::accessibility::GetFullAxTreeParams;
use chromiumoxide::cdp::browser_protocol::dom_snapshot::CaptureSnapshotParams;
use serde::Deserialize;
use serde::Serialize;

use crate::cluster::PixelBox;

/// At most this many nodes are kept per side (a huge page is still checked; its later nodes
/// just do not count). A side that reached it is marked `truncated`.
pub const MAX_AX_NODES: usize = 5_000;

/// Accessible names and values are cut to this many characters.
const MAX_TEXT: usize = 200;

/// The roles kept: what people act on, read as structure, or navigate by. Table structure
/// (table, row, cell) and text containers (paragraph, list, generic) are left out: their
/// names are their text, which the DOM layer already reads, and refactoring a table into a
/// grid of divs must not look like removed content.
const KEPT_ROLES: &[&str] = &[
    "button",
    "link",
    "heading",
    "img",
    "textbox",
    "searchbox",
    "combobox",
    "listbox",
    "option",
    "checkbox",
    "radio",
    "switch",
    "slider",
    "spinbutton",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "dialog",
    "alertdialog",
    "navigation",
    "main",
    "banner",
    "contentinfo",
    "complementary",
    "form",
    "search",
    "region",
];

/// One node of a side's accessibility tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AxNode {
    /// Its role (`button`, `heading`, `img`; Chromium's `image` is read as `img`).
    pub role: String,
    /// A heading's level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<u32>,
    /// Its accessible name, whitespace collapsed (empty when it has none).
    pub name: String,
    /// Its value (an input's text, a slider's position), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The states a person can see, sorted: `checked`, `mixed`, `pressed`, `selected`,
    /// `expanded`, `collapsed`, `disabled`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub states: Vec<String>,
    /// Page box: left.
    pub x: f64,
    /// Page box: top.
    pub y: f64,
    /// Page box: width.
    pub width: f64,
    /// Page box: height.
    pub height: f64,
}

impl AxNode {
    /// Whether its box shares a pixel with `area`.
    pub fn intersects(&self, area: &PixelBox) -> bool {
        self.x < f64::from(area.right())
            && self.x + self.width > f64::from(area.x)
            && self.y < f64::from(area.bottom())
            && self.y + self.height > f64::from(area.y)
    }

    /// Its role as people say it: `heading level 2`, `button`.
    pub fn role_words(&self) -> String {
        match self.level {
            Some(level) => format!("{} level {level}", self.role),
            None => self.role.clone(),
        }
    }

    /// A short name for people: `button "Start free trial"`, or `checkbox (20x20 at 8, 40)`
    /// when it has no name.
    pub fn describe(&self) -> String {
        if self.name.is_empty() {
            format!(
                "{} ({}x{} at {}, {})",
                self.role_words(),
                self.width.round(),
                self.height.round(),
                self.x.round(),
                self.y.round()
            )
        } else {
            let name: String = self.name.chars().take(60).collect();
            format!("{} {name:?}", self.role_words())
        }
    }
}

/// One side's accessibility tree: the nodes kept, in document order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AxTree {
    /// The nodes kept.
    pub nodes: Vec<AxNode>,
    /// Whether there were more than [`MAX_AX_NODES`].
    #[serde(default)]
    pub truncated: bool,
}

/// `Accessibility.getFullAXTree` of the main frame, answered as [`RawTree`].
#[derive(Debug, Clone, Serialize)]
struct FullTree {}

impl chromiumoxide::Method for FullTree {
    fn identifier(&self) -> chromiumoxide::types::MethodId {
        GetFullAxTreeParams::IDENTIFIER.into()
    }
}

impl chromiumoxide::Command for FullTree {
    type Response = RawTree;
}

/// `DOMSnapshot.captureSnapshot` without computed styles, answered as [`RawSnapshot`].
#[derive(Debug, Clone, Serialize)]
struct LayoutSnapshot {
    #[serde(rename = "computedStyles")]
    computed_styles: Vec<String>,
}

impl chromiumoxide::Method for LayoutSnapshot {
    fn identifier(&self) -> chromiumoxide::types::MethodId {
        CaptureSnapshotParams::IDENTIFIER.into()
    }
}

impl chromiumoxide::Command for LayoutSnapshot {
    type Response = RawSnapshot;
}

/// The parts of an `AXValue` used.
#[derive(Debug, Default, Deserialize)]
struct RawValue {
    #[serde(default)]
    value: serde_json::Value,
}

#[derive(Debug, Deserialize)]
struct RawProperty {
    name: String,
    value: RawValue,
}

#[derive(Debug, Deserialize)]
struct RawNode {
    #[serde(default)]
    ignored: bool,
    role: Option<RawValue>,
    name: Option<RawValue>,
    value: Option<RawValue>,
    #[serde(default)]
    properties: Vec<RawProperty>,
    #[serde(rename = "backendDOMNodeId")]
    backend_dom_node_id: Option<i64>,
}

/// The parts of `getFullAXTree`'s answer used.
#[derive(Debug, Deserialize)]
pub struct RawTree {
    #[serde(default)]
    nodes: Vec<RawNode>,
}

#[derive(Debug, Default, Deserialize)]
struct RawDomNodes {
    #[serde(default, rename = "backendNodeId")]
    backend_node_id: Vec<i64>,
}

#[derive(Debug, Default, Deserialize)]
struct RawLayout {
    #[serde(default, rename = "nodeIndex")]
    node_index: Vec<usize>,
    #[serde(default)]
    bounds: Vec<Vec<f64>>,
}

#[derive(Debug, Deserialize)]
struct RawDocument {
    #[serde(default)]
    nodes: RawDomNodes,
    #[serde(default)]
    layout: RawLayout,
}

/// The parts of `captureSnapshot`'s answer used.
#[derive(Debug, Deserialize)]
pub struct RawSnapshot {
    #[serde(default)]
    documents: Vec<RawDocument>,
}

/// Reads the accessibility tree of `page` (two commands, sent together), or says why not.
pub async fn read_tree(page: &Page) -> Result<AxTree, String> {
    let (tree, snapshot) = tokio::join!(
        page.execute(FullTree {}),
        page.execute(LayoutSnapshot {
            computed_styles: Vec::new(),
        })
    );
    let tree = tree.map_err(|e| format!("Accessibility.getFullAXTree: {e}"))?;
    let snapshot = snapshot.map_err(|e| format!("DOMSnapshot.captureSnapshot: {e}"))?;
    Ok(build_tree(&tree.result, &snapshot.result))
}

/// The page box of every laid-out node of the main document, by backend node id.
fn boxes(snapshot: &RawSnapshot) -> HashMap<i64, [f64; 4]> {
    let Some(document) = snapshot.documents.first() else {
        return HashMap::new();
    };
    let mut boxes = HashMap::new();
    for (index, bounds) in document
        .layout
        .node_index
        .iter()
        .zip(&document.layout.bounds)
    {
        let (Some(id), [x, y, width, height]) = (
            document.nodes.backend_node_id.get(*index),
            bounds.as_slice(),
        ) else {
            continue;
        };
        boxes.entry(*id).or_insert([*x, *y, *width, *height]);
    }
    boxes
}

/// Text of a value: strings as they are, numbers and booleans written out; whitespace
/// collapsed, cut to [`MAX_TEXT`] characters.
fn text_of(value: &serde_json::Value) -> String {
    let text = match value {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Number(n) => n.to_string(),
        serde_json::Value::Bool(b) => b.to_string(),
        _ => String::new(),
    };
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(MAX_TEXT)
        .collect()
}

/// The visible states among `properties`, sorted.
fn states(properties: &[RawProperty]) -> Vec<String> {
    let mut found = Vec::new();
    for property in properties {
        let value = text_of(&property.value.value);
        let state = match (property.name.as_str(), value.as_str()) {
            ("checked", "true") => "checked",
            ("checked" | "pressed", "mixed") => "mixed",
            ("pressed", "true") => "pressed",
            ("selected", "true") => "selected",
            ("expanded", "true") => "expanded",
            ("expanded", "false") => "collapsed",
            ("disabled", "true") => "disabled",
            _ => continue,
        };
        found.push(state.to_owned());
    }
    found.sort();
    found.dedup();
    found
}

/// The kept nodes of `tree`, with their boxes from `snapshot` (nodes with no box are not
/// rendered, and not kept).
pub fn build_tree(tree: &RawTree, snapshot: &RawSnapshot) -> AxTree {
    let boxes = boxes(snapshot);
    let mut kept = AxTree::default();
    for node in &tree.nodes {
        if node.ignored {
            continue;
        }
        let role = node
            .role
            .as_ref()
            .map(|r| text_of(&r.value))
            .unwrap_or_default();
        let role = if role == "image" {
            "img".to_owned()
        } else {
            role
        };
        if !KEPT_ROLES.contains(&role.as_str()) {
            continue;
        }
        let Some([x, y, width, height]) = node.backend_dom_node_id.and_then(|id| boxes.get(&id))
        else {
            continue;
        };
        if kept.nodes.len() >= MAX_AX_NODES {
            kept.truncated = true;
            break;
        }
        let level = node
            .properties
            .iter()
            .find(|p| p.name == "level")
            .and_then(|p| p.value.value.as_u64())
            .and_then(|level| u32::try_from(level).ok());
        let value = node
            .value
            .as_ref()
            .map(|v| text_of(&v.value))
            .filter(|v| !v.is_empty());
        kept.nodes.push(AxNode {
            role,
            level,
            name: node
                .name
                .as_ref()
                .map(|n| text_of(&n.value))
                .unwrap_or_default(),
            value,
            states: states(&node.properties),
            x: *x,
            y: *y,
            width: *width,
            height: *height,
        });
    }
    kept
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn kept_nodes_get_their_boxes_states_and_levels_and_the_rest_is_left_out() {
        let tree: RawTree = serde_json::from_value(serde_json::json!({"nodes": [
            {"nodeId": "1", "ignored": false, "role": {"type": "role", "value": "RootWebArea"},
             "backendDOMNodeId": 1},
            {"nodeId": "2", "ignored": false, "role": {"type": "role", "value": "heading"},
             "name": {"type": "computedString", "value": "  Plans \n for teams "},
             "properties": [{"name": "level", "value": {"type": "integer", "value": 2}}],
             "backendDOMNodeId": 2},
            {"nodeId": "3", "ignored": false, "role": {"type": "role", "value": "checkbox"},
             "name": {"type": "computedString", "value": "Remember me"},
             "properties": [
                {"name": "checked", "value": {"type": "tristate", "value": "true"}},
                {"name": "disabled", "value": {"type": "boolean", "value": true}},
                {"name": "somethingNew", "value": {"type": "brandNewType", "value": 1}}],
             "backendDOMNodeId": 3},
            {"nodeId": "4", "ignored": true, "role": {"type": "role", "value": "button"},
             "backendDOMNodeId": 4},
            {"nodeId": "5", "ignored": false, "role": {"type": "role", "value": "image"},
             "name": {"type": "computedString", "value": "Logo"}, "backendDOMNodeId": 5},
            {"nodeId": "6", "ignored": false, "role": {"type": "role", "value": "button"},
             "name": {"type": "computedString", "value": "Not rendered"}, "backendDOMNodeId": 6},
            {"nodeId": "7", "ignored": false, "role": {"type": "role", "value": "textbox"},
             "value": {"type": "string", "value": "a@b.c"}, "backendDOMNodeId": 7}
        ]}))
        .unwrap();
        let snapshot: RawSnapshot = serde_json::from_value(serde_json::json!({"documents": [{
            "nodes": {"backendNodeId": [1, 2, 3, 4, 5, 6, 7]},
            "layout": {"nodeIndex": [0, 1, 2, 3, 4, 6],
                       "bounds": [[0, 0, 800, 600], [8, 10, 300, 30], [8, 50, 13, 13],
                                  [8, 70, 50, 20], [100, 100, 64, 64], [8, 200, 200, 20]]}
        }]}))
        .unwrap();
        let kept = build_tree(&tree, &snapshot);
        let described: Vec<String> = kept.nodes.iter().map(AxNode::describe).collect();
        assert_eq!(
            described,
            [
                "heading level 2 \"Plans for teams\"",
                "checkbox \"Remember me\"",
                "img \"Logo\"",
                "textbox (200x20 at 8, 200)",
            ]
        );
        assert_eq!(kept.nodes[1].states, ["checked", "disabled"]);
        assert_eq!((kept.nodes[1].x, kept.nodes[1].y), (8.0, 50.0));
        assert_eq!(kept.nodes[3].value.as_deref(), Some("a@b.c"));
        assert!(!kept.truncated);
    }
}
