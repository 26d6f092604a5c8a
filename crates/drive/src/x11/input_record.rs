//! A person's input on an X server, watched through the RECORD extension: every button and
//! key going down or up on the server's devices (a real keyboard and mouse, or `xdotool`'s
//! XTEST events), whichever client receives it. Nothing is grabbed or delayed: the person's
//! programs see their input as before.
//!
//! RECORD needs two connections: one to create and end the recording context, one that
//! blocks receiving its data. The receiving side runs on a thread of its own and hands each
//! input, stamped with when it arrived, to [`InputRecorder::next`]. Keys are named as a
//! browser names them ([`super::input_keys`]) from the keyboard map read at the start.

use std::time::Instant;

use tokio::sync::mpsc;
use x11rb::connection::Connection;
use x11rb::connection::RequestConnection;
use x11rb::protocol::record;
use x11rb::protocol::record::ConnectionExt as _;
use x11rb::protocol::xproto;
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;
use x11rb::x11_utils::TryParse;

use super::input_keys;
use super::input_keys::Modifiers;
use super::keymap::Keymap;
use crate::error::DriveError;

/// RECORD's category of data intercepted from the server (device events among it).
const FROM_SERVER: u8 = 0;

/// One input the person made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DesktopInput {
    /// A pointer button went down or up with the pointer at (`x`, `y`) on the screen: 1 left,
    /// 2 middle, 3 right, 4 and 5 the wheel up and down, 6 and 7 left and right.
    Button {
        /// The X button number.
        button: u8,
        /// Down (pressed) or up (released).
        down: bool,
        /// Screen x.
        x: i32,
        /// Screen y.
        y: i32,
    },
    /// A key went down: its name as `KeyboardEvent.key` spells it, and the modifiers held.
    Key {
        /// `a`, `A`, `Enter`, `Backspace`, `Shift`...
        key: String,
        /// The modifiers down when it went down.
        held: Modifiers,
    },
}

/// An input and when retrace received it.
#[derive(Debug, Clone)]
pub struct RecordedInput {
    /// What the person did.
    pub input: DesktopInput,
    /// When it arrived (the screen captured before this is what the person saw).
    pub at: Instant,
}

/// The recording of one display's input; ended when dropped.
pub struct InputRecorder {
    control: RustConnection,
    context: record::Context,
    inputs: mpsc::UnboundedReceiver<RecordedInput>,
}

impl std::fmt::Debug for InputRecorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InputRecorder")
            .field("context", &self.context)
            .finish_non_exhaustive()
    }
}

fn failed(display: &str, detail: impl std::fmt::Display) -> DriveError {
    DriveError::Launch {
        backend: super::backend::NAME.to_owned(),
        detail: format!("recording the input on display {display}: {detail}"),
    }
}

impl InputRecorder {
    /// Starts recording the input of display `display` (`:99`). Blocks for a few round trips.
    /// Fails when the server cannot be reached or has no RECORD extension.
    pub fn start(display: &str) -> Result<Self, DriveError> {
        let (control, _) = x11rb::connect(Some(display)).map_err(|e| failed(display, e))?;
        let (data, _) = x11rb::connect(Some(display)).map_err(|e| failed(display, e))?;
        if control
            .extension_information(record::X11_EXTENSION_NAME)
            .map_err(|e| failed(display, e))?
            .is_none()
        {
            return Err(failed(
                display,
                "the X server has no RECORD extension (Xorg and Xvfb load it by default)",
            ));
        }
        let keymap = read_keymap(&control).map_err(|e| failed(display, e))?;
        let context = start_context(&control).map_err(|e| failed(display, e))?;
        let (sender, inputs) = mpsc::unbounded_channel();
        let name = display.to_owned();
        std::thread::Builder::new()
            .name("x11-input-record".to_owned())
            .spawn(move || receive(&data, context, &keymap, &sender, &name))
            .map_err(|e| failed(display, e))?;
        Ok(Self {
            control,
            context,
            inputs,
        })
    }

    /// The next input, `None` once the recording ended (stopped, or the server went away).
    pub async fn next(&mut self) -> Option<RecordedInput> {
        self.inputs.recv().await
    }

    /// An input already received, if any.
    pub fn try_next(&mut self) -> Option<RecordedInput> {
        self.inputs.try_recv().ok()
    }

    /// Ends the recording: inputs already received stay readable.
    pub fn stop(&self) {
        let _ = self.control.record_disable_context(self.context);
        let _ = self.control.sync();
    }
}

impl Drop for InputRecorder {
    fn drop(&mut self) {
        self.stop();
        let _ = self.control.record_free_context(self.context);
        let _ = self.control.flush();
    }
}

fn read_keymap(conn: &RustConnection) -> Result<Keymap, Box<dyn std::error::Error>> {
    use xproto::ConnectionExt as _;
    let setup = conn.setup();
    let (min, max) = (setup.min_keycode, setup.max_keycode);
    let count = max.saturating_sub(min).saturating_add(1);
    let reply = conn.get_keyboard_mapping(min, count)?.reply()?;
    Ok(Keymap::new(min, reply.keysyms_per_keycode, reply.keysyms))
}

/// A context recording every client's device events from key press to button release.
fn start_context(conn: &RustConnection) -> Result<record::Context, Box<dyn std::error::Error>> {
    conn.record_query_version(1, 13)?.reply()?;
    let context = conn.generate_id()?;
    let none = record::Range8 { first: 0, last: 0 };
    let no_extension = record::ExtRange {
        major: none,
        minor: record::Range16 { first: 0, last: 0 },
    };
    let range = record::Range {
        core_requests: none,
        core_replies: none,
        ext_requests: no_extension,
        ext_replies: no_extension,
        delivered_events: none,
        device_events: record::Range8 {
            first: xproto::KEY_PRESS_EVENT,
            last: xproto::BUTTON_RELEASE_EVENT,
        },
        errors: none,
        client_started: false,
        client_died: false,
    };
    conn.record_create_context(context, 0, &[record::CS::ALL_CLIENTS.into()], &[range])?
        .check()?;
    Ok(context)
}

/// The receiving thread: blocks on the data connection until the context is disabled or the
/// server goes away, sending each input on.
fn receive(
    data: &RustConnection,
    context: record::Context,
    keymap: &Keymap,
    sender: &mpsc::UnboundedSender<RecordedInput>,
    name: &str,
) {
    let replies = match data.record_enable_context(context) {
        Ok(replies) => replies,
        Err(error) => {
            tracing::warn!(%error, display = name, "could not start receiving the recorded input");
            return;
        }
    };
    let mut decoder = Decoder {
        keymap,
        held: Modifiers::default(),
    };
    for reply in replies {
        let reply = match reply {
            Ok(reply) => reply,
            Err(error) => {
                tracing::warn!(%error, display = name, "the recorded input stopped");
                return;
            }
        };
        if reply.category != FROM_SERVER || reply.client_swapped {
            continue;
        }
        let at = Instant::now();
        for input in decoder.inputs(&reply.data) {
            if sender.send(RecordedInput { input, at }).is_err() {
                return;
            }
        }
    }
}

/// Turns RECORD's data (32-byte core events) into inputs.
struct Decoder<'a> {
    keymap: &'a Keymap,
    held: Modifiers,
}

impl Decoder<'_> {
    fn inputs(&mut self, mut data: &[u8]) -> Vec<DesktopInput> {
        let mut inputs = Vec::new();
        while data.len() >= 32 {
            let (event, rest) = data.split_at(32);
            data = rest;
            if let Some(input) = self.input(event) {
                inputs.push(input);
            }
        }
        inputs
    }

    fn input(&mut self, event: &[u8]) -> Option<DesktopInput> {
        // Key and button events share one layout (the key or button in `detail`).
        let (parsed, _) = xproto::KeyPressEvent::try_parse(event).ok()?;
        let kind = event.first()? & 0x7f;
        match kind {
            xproto::BUTTON_PRESS_EVENT | xproto::BUTTON_RELEASE_EVENT => {
                Some(DesktopInput::Button {
                    button: parsed.detail,
                    down: kind == xproto::BUTTON_PRESS_EVENT,
                    x: i32::from(parsed.root_x),
                    y: i32::from(parsed.root_y),
                })
            }
            xproto::KEY_PRESS_EVENT | xproto::KEY_RELEASE_EVENT => {
                let down = kind == xproto::KEY_PRESS_EVENT;
                let sym = self.keymap.keysym_at(parsed.detail, self.held.shift);
                let key = input_keys::key_name(sym)?;
                if self.held.track(&key, down) || !down {
                    return None;
                }
                Some(DesktopInput::Key {
                    key,
                    held: self.held,
                })
            }
            _ => None,
        }
    }
}
