//! The blocking side of the X11 backend: one connection, XTEST input, screen grabs.
//!
//! Every method here blocks on the X server and must run off the async runtime (the backend
//! calls them through `spawn_blocking`). Each operation ends with a round trip, so when it
//! returns the server has processed every event it sent.

use std::sync::Mutex;
use std::sync::MutexGuard;

use x11rb::connection::Connection;
use x11rb::connection::RequestConnection;
use x11rb::errors::ConnectionError;
use x11rb::errors::ReplyError;
use x11rb::protocol::xproto;
use x11rb::protocol::xproto::ConnectionExt as _;
use x11rb::protocol::xtest;
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::rust_connection::RustConnection;

use super::capture;
use super::capture::PixelLayout;
use super::keymap::Keymap;
use super::keymap::Stroke;
use super::keysym;
use super::keysym::Keysym;
use crate::backend::Point;
use crate::backend::Screenshot;

/// Why a blocking operation failed; the backend adds what it was doing.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The connection to the X server is gone.
    Gone(String),
    /// The server refused a request, or its answer could not be used.
    Failed(String),
    /// The caller's input cannot be carried out (unknown key, point off screen).
    Invalid(String),
}

impl From<ConnectionError> for Failure {
    fn from(e: ConnectionError) -> Self {
        Self::Gone(e.to_string())
    }
}

impl From<ReplyError> for Failure {
    fn from(e: ReplyError) -> Self {
        match e {
            ReplyError::ConnectionError(e) => e.into(),
            ReplyError::X11Error(e) => Self::Failed(format!("the X server answered {e:?}")),
        }
    }
}

/// An open display with XTEST, and the keyboard map input is typed through.
pub(crate) struct Display {
    pub(super) conn: RustConnection,
    pub(super) root: xproto::Window,
    width: u16,
    height: u16,
    /// Guards the keymap and serialises operations, so two callers' events never interleave.
    keymap: Mutex<Keymap>,
}

impl Display {
    /// Connects to `name` (or `$DISPLAY`), checks for XTEST and reads the keyboard map.
    pub(crate) fn open(name: Option<&str>) -> Result<Self, String> {
        let (conn, screen_num) = x11rb::connect(name).map_err(|e| e.to_string())?;
        let screen = conn
            .setup()
            .roots
            .get(screen_num)
            .ok_or_else(|| format!("the server has no screen {screen_num}"))?;
        let (root, width, height) = (screen.root, screen.width_in_pixels, screen.height_in_pixels);
        if conn
            .extension_information(xtest::X11_EXTENSION_NAME)
            .map_err(|e| e.to_string())?
            .is_none()
        {
            return Err("the X server has no XTEST extension (needed for input)".to_owned());
        }
        conn.xtest_get_version(2, 2)
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| format!("XTEST did not answer: {e}"))?;
        let keymap = read_keymap(&conn).map_err(|e| format!("cannot read the keymap: {e:?}"))?;
        Ok(Self {
            conn,
            root,
            width,
            height,
            keymap: Mutex::new(keymap),
        })
    }

    /// The screen size in pixels.
    pub(crate) fn size(&self) -> (u32, u32) {
        (u32::from(self.width), u32::from(self.height))
    }

    fn lock(&self) -> Result<MutexGuard<'_, Keymap>, Failure> {
        self.keymap
            .lock()
            .map_err(|_| Failure::Failed("an earlier X11 operation panicked".to_owned()))
    }

    /// A round trip: when it returns, the server has handled everything sent before it.
    fn sync(&self) -> Result<(), Failure> {
        self.conn.get_input_focus()?.reply()?;
        Ok(())
    }

    fn fake(&self, kind: u8, detail: u8, x: i16, y: i16) -> Result<(), Failure> {
        self.conn
            .xtest_fake_input(kind, detail, x11rb::CURRENT_TIME, self.root, x, y, 0)?;
        Ok(())
    }

    fn checked(&self, p: Point) -> Result<(i16, i16), Failure> {
        let inside = |v: i32, max: u16| (0..i32::from(max)).contains(&v);
        match (i16::try_from(p.x), i16::try_from(p.y)) {
            (Ok(x), Ok(y)) if inside(p.x, self.width) && inside(p.y, self.height) => Ok((x, y)),
            _ => Err(Failure::Invalid(format!(
                "point ({}, {}) is outside the {}x{} display",
                p.x, p.y, self.width, self.height
            ))),
        }
    }

    fn motion(&self, p: Point) -> Result<(), Failure> {
        let (x, y) = self.checked(p)?;
        self.fake(xproto::MOTION_NOTIFY_EVENT, 0, x, y)
    }

    fn button(&self, button: u8, press: bool) -> Result<(), Failure> {
        let kind = if press {
            xproto::BUTTON_PRESS_EVENT
        } else {
            xproto::BUTTON_RELEASE_EVENT
        };
        self.fake(kind, button, 0, 0)
    }

    fn keycode(&self, keycode: u8, press: bool) -> Result<(), Failure> {
        let kind = if press {
            xproto::KEY_PRESS_EVENT
        } else {
            xproto::KEY_RELEASE_EVENT
        };
        self.fake(kind, keycode, 0, 0)
    }

    /// Moves the pointer to `to`.
    pub(crate) fn move_to(&self, to: Point) -> Result<(), Failure> {
        let _guard = self.lock()?;
        self.motion(to)?;
        self.sync()
    }

    /// Presses or releases X button `button` (1 left, 2 middle, 3 right, 4..7 wheel).
    pub(crate) fn press_button(&self, button: u8, press: bool) -> Result<(), Failure> {
        let _guard = self.lock()?;
        self.button(button, press)?;
        self.sync()
    }

    /// Moves to `at`, then presses and releases `button` `count` times.
    pub(crate) fn click(&self, at: Point, button: u8, count: u32) -> Result<(), Failure> {
        let _guard = self.lock()?;
        self.motion(at)?;
        for _ in 0..count {
            self.button(button, true)?;
            self.button(button, false)?;
        }
        self.sync()
    }

    /// Left-drags from `from` to `to`, passing through intermediate points so toolkits that
    /// track motion see a real drag.
    pub(crate) fn drag(&self, from: Point, to: Point) -> Result<(), Failure> {
        const STEPS: i32 = 10;
        let _guard = self.lock()?;
        self.checked(to)?;
        self.motion(from)?;
        self.button(1, true)?;
        self.sync()?;
        for step in 1..=STEPS {
            let x = from.x + (to.x - from.x) * step / STEPS;
            let y = from.y + (to.y - from.y) * step / STEPS;
            self.motion(Point { x, y })?;
        }
        self.button(1, false)?;
        self.sync()
    }

    /// Clicks wheel button `button` `amount` times with the pointer at `at`.
    pub(crate) fn scroll(&self, at: Point, button: u8, amount: u32) -> Result<(), Failure> {
        self.click(at, button, amount)
    }

    /// Where the pointer is now.
    pub(crate) fn pointer(&self) -> Result<Point, Failure> {
        let reply = self.conn.query_pointer(self.root)?.reply()?;
        Ok(Point {
            x: i32::from(reply.root_x),
            y: i32::from(reply.root_y),
        })
    }

    /// The key that types `sym`, binding a spare keycode when no key carries it.
    fn stroke(&self, keymap: &mut Keymap, sym: Keysym) -> Result<Stroke, Failure> {
        if let Some(stroke) = keymap.lookup(sym) {
            return Ok(stroke);
        }
        let rebind = keymap.bind_spare(sym).ok_or_else(|| {
            Failure::Invalid(format!(
                "keysym {sym:#x} is on no key and the keyboard has no spare keycode to bind it to"
            ))
        })?;
        let row = keymap.row_for(rebind);
        self.conn
            .change_keyboard_mapping(1, rebind.keycode, keymap.keysyms_per_keycode(), &row)?;
        self.sync()?;
        keymap
            .lookup(sym)
            .ok_or_else(|| Failure::Failed(format!("binding keysym {sym:#x} did not take")))
    }

    /// The keycodes to hold for one combo, in press order: Shift is added before a key whose
    /// keysym is on its shifted level, unless the combo already holds Shift.
    fn combo_keycodes(&self, keymap: &mut Keymap, combo: &[Keysym]) -> Result<Vec<u8>, Failure> {
        let has_shift = combo.iter().any(|&s| s == keysym::SHIFT_L || s == 0xffe2);
        let mut keycodes = Vec::with_capacity(combo.len() + 1);
        for &sym in combo {
            let stroke = self.stroke(keymap, sym)?;
            if stroke.shift && !has_shift {
                let shift = self.stroke(keymap, keysym::SHIFT_L)?.keycode;
                if !keycodes.contains(&shift) {
                    keycodes.push(shift);
                }
            }
            keycodes.push(stroke.keycode);
        }
        Ok(keycodes)
    }

    /// Presses and releases each combo in turn (`[[ctrl, a], [Delete]]`). Every key is
    /// resolved before the first is pressed, so a bad key leaves nothing held down.
    pub(crate) fn key_combos(&self, combos: &[Vec<Keysym>]) -> Result<(), Failure> {
        let mut keymap = self.lock()?;
        let resolved = combos
            .iter()
            .map(|combo| self.combo_keycodes(&mut keymap, combo))
            .collect::<Result<Vec<_>, _>>()?;
        for keycodes in resolved {
            for &kc in &keycodes {
                self.keycode(kc, true)?;
            }
            for &kc in keycodes.iter().rev() {
                self.keycode(kc, false)?;
            }
        }
        self.sync()
    }

    /// Presses every key of `combos` and leaves them down; returns the keycodes to release.
    pub(crate) fn hold_keys(&self, combos: &[Vec<Keysym>]) -> Result<Vec<u8>, Failure> {
        let mut keymap = self.lock()?;
        let mut held: Vec<u8> = Vec::new();
        for combo in combos {
            for kc in self.combo_keycodes(&mut keymap, combo)? {
                if !held.contains(&kc) {
                    held.push(kc);
                }
            }
        }
        for &kc in &held {
            self.keycode(kc, true)?;
        }
        self.sync()?;
        Ok(held)
    }

    /// Releases the keys of `combos` (resolved as `hold_keys` resolves them), last first: for
    /// a release with no matching `hold_keys` record. The server ignores releases of keys
    /// that are not down.
    pub(crate) fn release_combos(&self, combos: &[Vec<Keysym>]) -> Result<(), Failure> {
        let mut keymap = self.lock()?;
        let mut keycodes: Vec<u8> = Vec::new();
        for combo in combos {
            for kc in self.combo_keycodes(&mut keymap, combo)? {
                if !keycodes.contains(&kc) {
                    keycodes.push(kc);
                }
            }
        }
        for &kc in keycodes.iter().rev() {
            self.keycode(kc, false)?;
        }
        self.sync()
    }

    /// Releases keycodes held by `hold_keys`, last pressed first.
    pub(crate) fn release_keys(&self, held: &[u8]) -> Result<(), Failure> {
        let _guard = self.lock()?;
        for &kc in held.iter().rev() {
            self.keycode(kc, false)?;
        }
        self.sync()
    }

    /// Types `text` key by key, holding Shift for shifted characters. A newline presses
    /// Return (`\r\n` counts once), a tab presses Tab.
    ///
    /// Every character is resolved (and any spare keycode bound) before the first key goes
    /// down: a client reloads its keymap when told it changed, and binding in the middle of a
    /// burst of key events can race that reload.
    pub(crate) fn type_text(&self, text: &str) -> Result<(), Failure> {
        let mut keymap = self.lock()?;
        let shift = self.stroke(&mut keymap, keysym::SHIFT_L)?.keycode;
        let mut strokes = Vec::with_capacity(text.len());
        let mut bound = 0;
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\r' && chars.peek() == Some(&'\n') {
                continue;
            }
            let sym = keysym::char_keysym(c).ok_or_else(|| {
                Failure::Invalid(format!(
                    "character U+{:04X} has no key to type it with",
                    u32::from(c)
                ))
            })?;
            if keymap.lookup(sym).is_none() {
                // Rebinding a spare keycode that earlier characters still need: type them
                // first.
                if bound == keymap.spare_count() {
                    self.press_strokes(shift, &std::mem::take(&mut strokes))?;
                    self.sync()?;
                    bound = 0;
                }
                bound += 1;
            }
            strokes.push(self.stroke(&mut keymap, sym)?);
        }
        self.press_strokes(shift, &strokes)?;
        self.sync()
    }

    /// Presses and releases each stroke, holding `shift` for shifted ones.
    fn press_strokes(&self, shift: u8, strokes: &[Stroke]) -> Result<(), Failure> {
        for stroke in strokes {
            if stroke.shift {
                self.keycode(shift, true)?;
            }
            self.keycode(stroke.keycode, true)?;
            self.keycode(stroke.keycode, false)?;
            if stroke.shift {
                self.keycode(shift, false)?;
            }
        }
        Ok(())
    }

    /// Grabs the whole root window as PNG.
    pub(crate) fn capture(&self) -> Result<Screenshot, Failure> {
        let (rgb, width, height) = self.capture_rgb()?;
        let png = capture::encode_png(&rgb, width, height).map_err(Failure::Failed)?;
        Ok(Screenshot { png, width, height })
    }

    /// Grabs the whole root window as packed RGB rows, with its width and height.
    pub(crate) fn capture_rgb(&self) -> Result<(Vec<u8>, u32, u32), Failure> {
        let geometry = self.conn.get_geometry(self.root)?.reply()?;
        let (width, height) = (geometry.width, geometry.height);
        let image = self
            .conn
            .get_image(
                xproto::ImageFormat::Z_PIXMAP,
                self.root,
                0,
                0,
                width,
                height,
                u32::MAX,
            )?
            .reply()?;
        let layout = self.layout(image.depth, image.visual)?;
        let (width, height) = (u32::from(width), u32::from(height));
        let rgb = capture::to_rgb(layout, &image.data, width, height).map_err(Failure::Failed)?;
        Ok((rgb, width, height))
    }

    /// The pixel layout of images of `depth` on `visual`, from the connection setup.
    fn layout(&self, depth: u8, visual: xproto::Visualid) -> Result<PixelLayout, Failure> {
        let setup = self.conn.setup();
        let format = setup
            .pixmap_formats
            .iter()
            .find(|f| f.depth == depth)
            .ok_or_else(|| {
                Failure::Failed(format!(
                    "the server lists no pixmap format for depth {depth}"
                ))
            })?;
        let visual = setup
            .roots
            .iter()
            .flat_map(|s| &s.allowed_depths)
            .flat_map(|d| &d.visuals)
            .find(|v| v.visual_id == visual)
            .ok_or_else(|| Failure::Failed(format!("the server lists no visual {visual:#x}")))?;
        Ok(PixelLayout {
            bits_per_pixel: format.bits_per_pixel,
            scanline_pad: format.scanline_pad,
            red_mask: visual.red_mask,
            green_mask: visual.green_mask,
            blue_mask: visual.blue_mask,
            msb_first: setup.image_byte_order == xproto::ImageOrder::MSB_FIRST,
        })
    }
}

/// Reads the whole keyboard map.
fn read_keymap(conn: &RustConnection) -> Result<Keymap, Failure> {
    let setup = conn.setup();
    let (min, max) = (setup.min_keycode, setup.max_keycode);
    let count = max.saturating_sub(min).saturating_add(1);
    let reply = conn.get_keyboard_mapping(min, count)?.reply()?;
    Ok(Keymap::new(min, reply.keysyms_per_keycode, reply.keysyms))
}
