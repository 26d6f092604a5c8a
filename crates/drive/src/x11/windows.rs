//! The top-level windows of an X display, as the desktop target sees them: in stacking order,
//! with their title, class, owning client and place on the screen.
//!
//! Works with no window manager (Xvfb: every top-level window is a child of the root) and
//! with a reparenting one (the root's child is the manager's frame; the application's window,
//! the one with a `WM_CLASS`, is its child and gives the name, class and owner).

use x11rb::connection::Connection;
use x11rb::protocol::xproto;
use x11rb::protocol::xproto::ConnectionExt as _;

use super::display::Display;
use super::display::Failure;

/// One top-level window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopLevel {
    /// The application's window (the one carrying `WM_CLASS`); the root's child without a
    /// window manager.
    pub id: u32,
    /// The root's child: the window itself, or the window manager's frame around it.
    pub frame: u32,
    /// Where the frame is on the screen, and its size.
    pub x: i32,
    /// See `x`.
    pub y: i32,
    /// Frame width in pixels.
    pub width: u32,
    /// Frame height in pixels.
    pub height: u32,
    /// Mapped with all its ancestors (shown).
    pub viewable: bool,
    /// Placed by the application itself, past any window manager (menus, tooltips).
    pub override_redirect: bool,
    /// `_NET_WM_NAME`, else `WM_NAME` (the title); empty when it has none.
    pub name: String,
    /// `WM_CLASS`: instance and class (`mousepad`, `Mousepad`); empty when it has none.
    pub class: (String, String),
    /// `_NET_WM_PID`, when the application set it.
    pub pid: Option<u32>,
    /// The X client that made the window: every window one connection creates shares it.
    pub client: u32,
}

impl TopLevel {
    /// Whether `point` (screen pixels) is inside the frame.
    pub fn contains(&self, x: i32, y: i32) -> bool {
        let right = i64::from(self.x) + i64::from(self.width);
        let bottom = i64::from(self.y) + i64::from(self.height);
        x >= self.x && y >= self.y && i64::from(x) < right && i64::from(y) < bottom
    }
}

/// The atoms read from each window, interned once per listing.
struct Atoms {
    net_wm_name: u32,
    utf8_string: u32,
    net_wm_pid: u32,
}

impl Display {
    /// The root's children, bottom of the stack first.
    pub(crate) fn top_levels(&self) -> Result<Vec<TopLevel>, Failure> {
        let atoms = Atoms {
            net_wm_name: self.atom(b"_NET_WM_NAME")?,
            utf8_string: self.atom(b"UTF8_STRING")?,
            net_wm_pid: self.atom(b"_NET_WM_PID")?,
        };
        let mask = self.conn.setup().resource_id_mask;
        let children = self.conn.query_tree(self.root)?.reply()?.children;
        let mut windows = Vec::with_capacity(children.len());
        for frame in children {
            // A window may vanish between the listing and these requests: skip it.
            let Ok(Some(window)) = self.top_level(frame, &atoms, mask) else {
                continue;
            };
            windows.push(window);
        }
        Ok(windows)
    }

    /// The top-level window whose frame is `frame`, `None` for an input-only window.
    fn top_level(&self, frame: u32, atoms: &Atoms, mask: u32) -> Result<Option<TopLevel>, Failure> {
        let attributes = self.conn.get_window_attributes(frame)?.reply()?;
        if attributes.class == xproto::WindowClass::INPUT_ONLY {
            return Ok(None);
        }
        let geometry = self.conn.get_geometry(frame)?.reply()?;
        let id = self.client_window(frame)?;
        let class = self.class_of(id)?;
        let name = match self.text_property(id, atoms.net_wm_name, atoms.utf8_string)? {
            Some(name) => name,
            None => self
                .text_property(
                    id,
                    xproto::AtomEnum::WM_NAME.into(),
                    xproto::AtomEnum::ANY.into(),
                )?
                .unwrap_or_default(),
        };
        let pid = self
            .conn
            .get_property(
                false,
                id,
                atoms.net_wm_pid,
                xproto::AtomEnum::CARDINAL,
                0,
                1,
            )?
            .reply()?
            .value32()
            .and_then(|mut values| values.next());
        Ok(Some(TopLevel {
            id,
            frame,
            x: i32::from(geometry.x),
            y: i32::from(geometry.y),
            width: u32::from(geometry.width) + 2 * u32::from(geometry.border_width),
            height: u32::from(geometry.height) + 2 * u32::from(geometry.border_width),
            viewable: attributes.map_state == xproto::MapState::VIEWABLE,
            override_redirect: attributes.override_redirect,
            name,
            class,
            pid,
            client: id & !mask,
        }))
    }

    /// `frame` when it has a `WM_CLASS`, else its first child that has one (a window
    /// manager's frame holds the application's window), else `frame`.
    fn client_window(&self, frame: u32) -> Result<u32, Failure> {
        if self.has_class(frame)? {
            return Ok(frame);
        }
        for child in self.conn.query_tree(frame)?.reply()?.children {
            if self.has_class(child).unwrap_or(false) {
                return Ok(child);
            }
        }
        Ok(frame)
    }

    fn has_class(&self, window: u32) -> Result<bool, Failure> {
        let reply = self
            .conn
            .get_property(
                false,
                window,
                xproto::AtomEnum::WM_CLASS,
                xproto::AtomEnum::STRING,
                0,
                0,
            )?
            .reply()?;
        Ok(reply.type_ != u32::from(xproto::AtomEnum::NONE))
    }

    /// `WM_CLASS` as (instance, class).
    fn class_of(&self, window: u32) -> Result<(String, String), Failure> {
        let Some(text) = self.text_property(
            window,
            xproto::AtomEnum::WM_CLASS.into(),
            xproto::AtomEnum::STRING.into(),
        )?
        else {
            return Ok((String::new(), String::new()));
        };
        let mut parts = text.split('\0');
        let instance = parts.next().unwrap_or_default().to_owned();
        let class = parts.next().unwrap_or_default().to_owned();
        Ok((instance, class))
    }

    /// A text property of `window` (at most 4 KiB), `None` when it is not set.
    fn text_property(
        &self,
        window: u32,
        property: u32,
        kind: u32,
    ) -> Result<Option<String>, Failure> {
        let reply = self
            .conn
            .get_property(false, window, property, kind, 0, 1024)?
            .reply()?;
        if reply.type_ == u32::from(xproto::AtomEnum::NONE) || reply.format != 8 {
            return Ok(None);
        }
        Ok(Some(String::from_utf8_lossy(&reply.value).into_owned()))
    }

    fn atom(&self, name: &[u8]) -> Result<u32, Failure> {
        Ok(self.conn.intern_atom(false, name)?.reply()?.atom)
    }
}
