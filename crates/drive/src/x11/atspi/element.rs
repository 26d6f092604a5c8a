//! Which shown node is "the element" at a point or with the focus, and how it reads as the
//! [`ElementInfo`] a browser gives, so replay's checks compare both the same way.
//!
//! At a point: nodes in an open popup (a menu) come first, as they are drawn over their
//! window; else the nodes of the active window, else of the last window listed. Among them,
//! the smallest that holds the point (a button rather than the panel around it), the deepest
//! on a tie. States map as ARIA's do where a later check can rely on them: `checked` for
//! check boxes, radio buttons and switches, `pressed` for toggle buttons, `selected` for tabs
//! and list items. A menu item's `selected` (the highlight under the pointer) is left out: it
//! is gone once the menu closes.

use atspi::State;
use retrace_protocol::element::BoundingBox;
use retrace_protocol::element::ElementInfo;
use retrace_protocol::element::FieldValue;
use retrace_protocol::element::Tristate;

use super::tree::Node;

/// Roles whose content is text typed into them, read as the element's value.
const TEXT_ROLES: [&str; 5] = ["text", "entry", "password text", "terminal", "paragraph"];

/// The node at screen point (`x`, `y`), as described in the module docs.
pub fn node_at(nodes: &[Node], x: i32, y: i32) -> Option<&Node> {
    let holding: Vec<&Node> = nodes.iter().filter(|node| node.contains(x, y)).collect();
    let popup: Vec<&Node> = holding
        .iter()
        .copied()
        .filter(|node| node.in_popup)
        .collect();
    let pool = if popup.is_empty() {
        let active = holding
            .iter()
            .find(|node| node.depth == 0 && node.states.contains(State::Active))
            .or_else(|| holding.iter().rfind(|node| node.depth == 0))
            .map(|window| window.window);
        holding
            .into_iter()
            .filter(|node| Some(node.window) == active)
            .collect()
    } else {
        popup
    };
    pool.into_iter()
        .min_by_key(|node| (node.area(), std::cmp::Reverse(node.depth)))
}

/// The node with the keyboard focus: the deepest focused one.
pub fn focused_node(nodes: &[Node]) -> Option<&Node> {
    nodes
        .iter()
        .filter(|node| node.states.contains(State::Focused))
        .max_by_key(|node| node.depth)
}

/// Whether a node's text is its value (a field typed into).
pub fn holds_value(node: &Node) -> bool {
    node.has_text
        && (TEXT_ROLES.contains(&node.role.as_str()) || node.states.contains(State::Editable))
}

/// `node` as an element, its extents moved by `offset` (screen to the caller's pixels), with
/// `value` (a field's text) when read.
pub fn element_of(node: &Node, offset: (i32, i32), value: Option<String>) -> ElementInfo {
    let states = node.states;
    let has = |state: State| states.contains(state);
    let role = node.role.as_str();
    let checked = matches!(role, "check box" | "radio button" | "switch").then(|| {
        match (has(State::Indeterminate), has(State::Checked)) {
            (true, _) => Tristate::Mixed,
            (false, true) => Tristate::True,
            (false, false) => Tristate::False,
        }
    });
    let pressed =
        (role == "toggle button").then(|| match has(State::Pressed) || has(State::Checked) {
            true => Tristate::True,
            false => Tristate::False,
        });
    let selected = matches!(role, "page tab" | "list item").then(|| has(State::Selected));
    let enabled = has(State::Enabled) || has(State::Sensitive);
    let (x, y, width, height) = node.extents;
    ElementInfo {
        role: node.role.clone(),
        name: node.name.clone(),
        text: String::new(),
        tag: String::new(),
        selector: node.trail.clone(),
        bounds: BoundingBox {
            x: f64::from(x - offset.0),
            y: f64::from(y - offset.1),
            width: f64::from(width),
            height: f64::from(height),
        },
        checked,
        expanded: None,
        selected,
        pressed,
        disabled: !enabled,
        focused: has(State::Focused),
        editable: has(State::Editable),
        input_type: (role == "password text").then(|| "password".to_owned()),
        value: value.map(FieldValue::new),
        receives_events: enabled,
        blocked_reason: (!enabled).then(|| "disabled".to_owned()),
        listeners: None,
        text_style: None,
    }
}

#[cfg(test)]
mod tests {
    use atspi::StateSet;

    use super::*;

    fn node(role: &str, name: &str, extents: (i32, i32, i32, i32), depth: usize) -> Node {
        Node {
            bus: ":1.0".into(),
            path: "/x".into(),
            role: role.into(),
            name: name.into(),
            states: StateSet::new(State::Showing | State::Enabled),
            extents,
            has_text: false,
            window: 0,
            in_popup: false,
            trail: format!("{role} '{name}'"),
            depth,
        }
    }

    #[test]
    fn the_smallest_node_at_a_point_wins_and_an_open_menu_covers_its_window() {
        let frame = node("frame", "Probe", (0, 0, 200, 100), 0);
        let button = node("push button", "Save", (10, 10, 50, 20), 2);
        let text = node("text", "", (0, 40, 200, 60), 2);
        let mut item = node("menu item", "Save As…", (0, 45, 120, 20), 3);
        item.in_popup = true;
        let nodes = vec![frame, button, text, item];
        assert_eq!(
            node_at(&nodes, 20, 15).map(|n| n.name.as_str()),
            Some("Save")
        );
        assert_eq!(
            node_at(&nodes, 5, 50).map(|n| n.role.as_str()),
            Some("menu item")
        );
        assert_eq!(
            node_at(&nodes, 150, 90).map(|n| n.role.as_str()),
            Some("text")
        );
        assert_eq!(node_at(&nodes, 500, 500), None);
    }

    #[test]
    fn the_active_window_is_above_the_others() {
        let main = node("frame", "Editor", (0, 0, 400, 400), 0);
        let mut dialog = node("dialog", "Save As", (50, 50, 200, 200), 0);
        dialog.window = 1;
        dialog.states.insert(State::Active);
        let mut filler = node("filler", "", (50, 50, 200, 200), 1);
        filler.window = 1;
        let under = node("push button", "Hidden", (60, 60, 10, 10), 1);
        let nodes = vec![main, dialog, filler, under];
        assert_eq!(
            node_at(&nodes, 65, 65).map(|n| n.role.as_str()),
            Some("filler")
        );
    }

    #[test]
    fn states_read_as_a_browser_reports_them() {
        let mut check = node("check box", "Remember me", (10, 20, 30, 40), 1);
        check.states.insert(State::Checked);
        let element = element_of(&check, (10, 10), None);
        assert_eq!(element.checked, Some(Tristate::True));
        assert_eq!((element.bounds.x, element.bounds.y), (0.0, 10.0));
        assert!(!element.disabled && element.receives_events);
        let mut field = node("text", "", (0, 0, 5, 5), 1);
        field.has_text = true;
        field.states = StateSet::new(State::Showing | State::Focused | State::Editable);
        assert!(holds_value(&field));
        let element = element_of(&field, (0, 0), Some("hello".into()));
        assert!(element.disabled && element.editable && element.focused);
        assert_eq!(
            element.value.as_ref().map(FieldValue::expose),
            Some("hello")
        );
        assert_eq!(element.checked, None);
        let mut menu = node("menu item", "Open", (0, 0, 5, 5), 1);
        menu.states.insert(State::Selected);
        assert_eq!(element_of(&menu, (0, 0), None).selected, None);
        assert_eq!(focused_node(&[check, field.clone()]), Some(&field));
    }
}
