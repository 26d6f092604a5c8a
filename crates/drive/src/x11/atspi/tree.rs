//! What is shown of the applications on an accessibility bus, read over AT-SPI: every node
//! with the `showing` state, from each application's windows down (what is not shown, and the
//! insides of a widget that manages its own descendants, such as a long list, are skipped).
//!
//! A walk, not a hit test: a GTK menu is a child of its menu item, drawn outside the window
//! that holds it, so `GetAccessibleAtPoint` on a window never reaches it. Each level's nodes
//! are asked at once, and the walk is bounded in nodes and depth.

use atspi::CoordType;
use atspi::Interface;
use atspi::State;
use atspi::StateSet;
use atspi::proxy::accessible::AccessibleProxy;
use atspi::proxy::accessible::ObjectRefExt as _;
use atspi::proxy::component::ComponentProxy;
use atspi::proxy::text::TextProxy;
use atspi::zbus;
use atspi::zbus::zvariant::OwnedObjectPath;
use futures::future::join_all;

/// The most nodes one walk reads.
const MOST_NODES: usize = 3000;
/// The deepest one walk goes.
const MOST_DEPTH: usize = 40;

/// One shown node.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Its bus name and object path (to read its text).
    pub bus: String,
    /// Its object path.
    pub path: String,
    /// Its role's name (`push button`, `check box`, `menu item`, `text`).
    pub role: String,
    /// Its accessible name.
    pub name: String,
    /// Its states.
    pub states: StateSet,
    /// Its extents on the screen: x, y, width, height (zero for a node without a component).
    pub extents: (i32, i32, i32, i32),
    /// Whether it has the Text interface.
    pub has_text: bool,
    /// Which of the applications' windows it is in (an index in walk order).
    pub window: usize,
    /// Whether it lies in a popup (a menu opened from a menu item or a combo box).
    pub in_popup: bool,
    /// Its path from its window: `frame 'Probe' > filler > check box 'Remember me'`.
    pub trail: String,
    /// How deep it is below its window.
    pub depth: usize,
}

impl Node {
    /// Whether the screen point (`x`, `y`) lies in it.
    pub fn contains(&self, x: i32, y: i32) -> bool {
        let (left, top, width, height) = self.extents;
        width > 0 && height > 0 && x >= left && y >= top && x < left + width && y < top + height
    }

    /// Its area in pixels.
    pub fn area(&self) -> i64 {
        i64::from(self.extents.2.max(0)) * i64::from(self.extents.3.max(0))
    }
}

/// A node still to read, with where it sits.
struct Pending {
    bus: String,
    path: OwnedObjectPath,
    window: Option<usize>,
    in_popup: bool,
    trail: String,
    depth: usize,
}

/// The registry's root: its children are the applications on the bus.
async fn registry(connection: &zbus::Connection) -> zbus::Result<AccessibleProxy<'static>> {
    AccessibleProxy::builder(connection)
        .destination("org.a11y.atspi.Registry")?
        .path("/org/a11y/atspi/accessible/root")?
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
}

/// How many applications are registered on the bus.
pub async fn application_count(connection: &zbus::Connection) -> zbus::Result<i32> {
    registry(connection).await?.child_count().await
}

/// Every shown node of every application on `connection`, windows first.
pub async fn shown_nodes(connection: &zbus::Connection) -> zbus::Result<Vec<Node>> {
    let root = registry(connection).await?;
    let mut level = Vec::new();
    for app in root.get_children().await? {
        let Ok(proxy) = app.as_accessible_proxy(connection).await else {
            continue;
        };
        // An application that went away while asked is left out.
        let Ok(windows) = proxy.get_children().await else {
            continue;
        };
        for window in windows {
            if let Some(bus) = window.name_as_str() {
                level.push(Pending {
                    bus: bus.to_owned(),
                    path: window.path().clone().into(),
                    window: None,
                    in_popup: false,
                    trail: String::new(),
                    depth: 0,
                });
            }
        }
    }
    let mut nodes = Vec::new();
    let mut windows = 0;
    while !level.is_empty() && nodes.len() < MOST_NODES {
        let read = join_all(level.iter().map(|pending| read_node(connection, pending))).await;
        let mut next = Vec::new();
        for (pending, read) in level.into_iter().zip(read) {
            let Some((mut node, children)) = read else {
                continue;
            };
            if !node.states.contains(State::Showing) {
                continue;
            }
            node.window = pending.window.unwrap_or_else(|| {
                windows += 1;
                windows - 1
            });
            let descend =
                !node.states.contains(State::ManagesDescendants) && pending.depth < MOST_DEPTH;
            let popup = pending.in_popup
                || (node.role == "menu" || node.role == "window") && pending.depth > 0;
            node.in_popup = popup;
            if descend {
                for child in children {
                    if let Some(bus) = child.name_as_str() {
                        next.push(Pending {
                            bus: bus.to_owned(),
                            path: child.path().clone().into(),
                            window: Some(node.window),
                            in_popup: popup,
                            trail: node.trail.clone(),
                            depth: pending.depth + 1,
                        });
                    }
                }
            }
            nodes.push(node);
        }
        level = next;
    }
    Ok(nodes)
}

/// Reads one node and its children's references; `None` when it cannot be read (it went
/// away while asked).
async fn read_node(
    connection: &zbus::Connection,
    pending: &Pending,
) -> Option<(Node, Vec<atspi::ObjectRefOwned>)> {
    let accessible = AccessibleProxy::builder(connection)
        .destination(pending.bus.clone())
        .ok()?
        .path(pending.path.clone())
        .ok()?
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
        .ok()?;
    let (role, name, states, interfaces) = futures::join!(
        accessible.get_role_name(),
        accessible.name(),
        accessible.get_state(),
        accessible.get_interfaces(),
    );
    let (role, states, interfaces) = (role.ok()?, states.ok()?, interfaces.ok()?);
    let name = name
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let extents = match interfaces.contains(Interface::Component) {
        true => extents(connection, pending).await.unwrap_or_default(),
        false => (0, 0, 0, 0),
    };
    let children = match states.contains(State::Showing) {
        true => accessible.get_children().await.unwrap_or_default(),
        false => Vec::new(),
    };
    let step = match name.is_empty() {
        true => role.clone(),
        false => format!("{role} '{name}'"),
    };
    let trail = match pending.trail.is_empty() {
        true => step,
        false => format!("{} > {step}", pending.trail),
    };
    let node = Node {
        bus: pending.bus.clone(),
        path: pending.path.as_str().to_owned(),
        role,
        name,
        states,
        extents,
        has_text: interfaces.contains(Interface::Text),
        window: 0,
        in_popup: false,
        trail,
        depth: pending.depth,
    };
    Some((node, children))
}

/// A node's extents on the screen.
async fn extents(
    connection: &zbus::Connection,
    pending: &Pending,
) -> zbus::Result<(i32, i32, i32, i32)> {
    let component = ComponentProxy::builder(connection)
        .destination(pending.bus.clone())?
        .path(pending.path.clone())?
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await?;
    component.get_extents(CoordType::Screen).await
}

/// The whole text of a node with the Text interface.
pub async fn text_of(connection: &zbus::Connection, node: &Node) -> zbus::Result<String> {
    let text = TextProxy::builder(connection)
        .destination(node.bus.clone())?
        .path(node.path.clone())?
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await?;
    let count = text.character_count().await?;
    text.get_text(0, count).await
}

/// The default text attributes of a node with the Text interface (`fg-color`, `family-name`...):
/// what its theme and font settings give all its text, whatever the text and the caret.
pub async fn default_attributes(
    connection: &zbus::Connection,
    node: &Node,
) -> zbus::Result<std::collections::HashMap<String, String>> {
    let text = TextProxy::builder(connection)
        .destination(node.bus.clone())?
        .path(node.path.clone())?
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await?;
    text.get_default_attributes().await
}
