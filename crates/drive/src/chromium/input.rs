//! Mouse and keyboard for one page over CDP (`Input.dispatchMouseEvent`,
//! `Input.dispatchKeyEvent`, `Input.insertText`), with the state a real input device has: the
//! pointer position, the buttons held and the modifier keys held (which every later event
//! carries, so ctrl+click is a real ctrl+click).

use std::sync::Mutex;
use std::sync::atomic::AtomicI64;
use std::sync::atomic::Ordering;
use std::time::Duration;

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::input::DispatchKeyEventParams;
use chromiumoxide::cdp::browser_protocol::input::DispatchKeyEventType;
use chromiumoxide::cdp::browser_protocol::input::DispatchMouseEventParams;
use chromiumoxide::cdp::browser_protocol::input::DispatchMouseEventType;
use chromiumoxide::cdp::browser_protocol::input::InsertTextParams;
use chromiumoxide::cdp::browser_protocol::input::MouseButton as CdpButton;
use chromiumoxide::error::CdpError;

use super::keys;
use super::keys::KeyDef;
use super::pipeline::Answer;
use super::pipeline::answer;
use super::pipeline::send_in_order;
use crate::backend::MouseButton;
use crate::backend::Point;
use crate::backend::ScrollDirection;
use crate::error::DriveError;

/// Pixels one wheel notch scrolls (Chromium's own step on Linux).
const WHEEL_NOTCH_PX: f64 = 100.0;

/// The input device state of one page.
#[derive(Debug, Default)]
pub struct InputState {
    cursor: Mutex<Point>,
    /// CDP modifier bits of the keys held down now.
    modifiers: AtomicI64,
    /// CDP `buttons` bits of the mouse buttons held down now.
    buttons: AtomicI64,
}

fn cdp_button(button: MouseButton) -> (CdpButton, i64) {
    match button {
        MouseButton::Left => (CdpButton::Left, 1),
        MouseButton::Right => (CdpButton::Right, 2),
        MouseButton::Middle => (CdpButton::Middle, 4),
    }
}

impl InputState {
    /// The pointer position as last placed.
    pub fn cursor(&self) -> Point {
        self.cursor
            .lock()
            .map(|p| *p)
            .unwrap_or(Point { x: 0, y: 0 })
    }

    /// The parameters of one mouse event at `at`, carrying the modifiers and buttons held now.
    fn mouse_params(
        &self,
        kind: DispatchMouseEventType,
        at: Point,
        button: Option<(MouseButton, i64)>,
    ) -> DispatchMouseEventParams {
        let mut params = DispatchMouseEventParams::new(kind, f64::from(at.x), f64::from(at.y));
        params.modifiers = Some(self.modifiers.load(Ordering::SeqCst));
        params.buttons = Some(self.buttons.load(Ordering::SeqCst));
        if let Some((button, count)) = button {
            params.button = Some(cdp_button(button).0);
            params.click_count = Some(count);
        }
        params
    }

    fn set_cursor(&self, at: Point) {
        if let Ok(mut cursor) = self.cursor.lock() {
            *cursor = at;
        }
    }

    async fn mouse(
        &self,
        page: &Page,
        kind: DispatchMouseEventType,
        at: Point,
        button: Option<(MouseButton, i64)>,
    ) -> Result<(), CdpError> {
        page.execute(self.mouse_params(kind, at, button)).await?;
        self.set_cursor(at);
        Ok(())
    }

    /// Moves the pointer (carrying the buttons held, so moves during a press are drags).
    pub async fn move_to(&self, page: &Page, to: Point) -> Result<(), CdpError> {
        self.mouse(page, DispatchMouseEventType::MouseMoved, to, None)
            .await
    }

    /// Presses `button` at the pointer; `count` is the click count of a multi-click.
    pub async fn down(&self, page: &Page, button: MouseButton, count: i64) -> Result<(), CdpError> {
        self.buttons
            .fetch_or(cdp_button(button).1, Ordering::SeqCst);
        let at = self.cursor();
        self.mouse(
            page,
            DispatchMouseEventType::MousePressed,
            at,
            Some((button, count)),
        )
        .await
    }

    /// Releases `button` at the pointer.
    pub async fn up(&self, page: &Page, button: MouseButton, count: i64) -> Result<(), CdpError> {
        self.buttons
            .fetch_and(!cdp_button(button).1, Ordering::SeqCst);
        let at = self.cursor();
        self.mouse(
            page,
            DispatchMouseEventType::MouseReleased,
            at,
            Some((button, count)),
        )
        .await
    }

    /// Moves to `at` and clicks `count` times, each press carrying its click count so the
    /// page sees `dblclick` and triple-click selection.
    ///
    /// The events go out back to back and only then are their answers awaited: Chromium
    /// handles one page's input commands in order, and a pointer move is only answered once
    /// the renderer dispatched it (at its next frame), so waiting for each answer in turn would
    /// make every click cost a frame or more.
    pub async fn click(
        &self,
        page: &Page,
        at: Point,
        button: MouseButton,
        count: u32,
    ) -> Result<(), CdpError> {
        let bit = cdp_button(button).1;
        let mut events = Vec::with_capacity(1 + 2 * count.max(1) as usize);
        events.push(self.mouse_params(DispatchMouseEventType::MouseMoved, at, None));
        for n in 1..=i64::from(count.max(1)) {
            self.buttons.fetch_or(bit, Ordering::SeqCst);
            events.push(self.mouse_params(
                DispatchMouseEventType::MousePressed,
                at,
                Some((button, n)),
            ));
            self.buttons.fetch_and(!bit, Ordering::SeqCst);
            events.push(self.mouse_params(
                DispatchMouseEventType::MouseReleased,
                at,
                Some((button, n)),
            ));
        }
        self.set_cursor(at);
        let answers = events.into_iter().map(|event| answer(page, event));
        send_in_order(answers.collect::<Result<_, _>>()?).await
    }

    /// Presses at `from`, moves to `to` in a few steps (so drag handlers see movement),
    /// releases.
    pub async fn drag(&self, page: &Page, from: Point, to: Point) -> Result<(), CdpError> {
        const STEPS: i32 = 5;
        self.move_to(page, from).await?;
        self.down(page, MouseButton::Left, 1).await?;
        for step in 1..=STEPS {
            let at = Point {
                x: from.x + (to.x - from.x) * step / STEPS,
                y: from.y + (to.y - from.y) * step / STEPS,
            };
            self.move_to(page, at).await?;
        }
        self.up(page, MouseButton::Left, 1).await
    }

    /// Turns the wheel `amount` notches at `at`.
    pub async fn scroll(
        &self,
        page: &Page,
        at: Point,
        direction: ScrollDirection,
        amount: u32,
    ) -> Result<(), CdpError> {
        self.move_to(page, at).await?;
        let distance = WHEEL_NOTCH_PX * f64::from(amount);
        let (dx, dy) = match direction {
            ScrollDirection::Up => (0.0, -distance),
            ScrollDirection::Down => (0.0, distance),
            ScrollDirection::Left => (-distance, 0.0),
            ScrollDirection::Right => (distance, 0.0),
        };
        let mut params = DispatchMouseEventParams::new(
            DispatchMouseEventType::MouseWheel,
            f64::from(at.x),
            f64::from(at.y),
        );
        params.delta_x = Some(dx);
        params.delta_y = Some(dy);
        params.modifiers = Some(self.modifiers.load(Ordering::SeqCst));
        page.execute(params).await?;
        Ok(())
    }

    /// Presses one key (updating the held modifiers first, as a keyboard does).
    async fn key_event(&self, page: &Page, key: &KeyDef, down: bool) -> Result<(), CdpError> {
        page.execute(self.key_params(key, down)).await?;
        Ok(())
    }

    /// The event of pressing (`down`) or releasing one key, carrying the modifiers held once
    /// it is: the held modifiers are updated first, as a keyboard does.
    fn key_params(&self, key: &KeyDef, down: bool) -> DispatchKeyEventParams {
        if let Some(bit) = key.modifier_bit {
            if down {
                self.modifiers.fetch_or(bit, Ordering::SeqCst);
            } else {
                self.modifiers.fetch_and(!bit, Ordering::SeqCst);
            }
        }
        let modifiers = self.modifiers.load(Ordering::SeqCst);
        let command_held =
            modifiers & (keys::modifier::CTRL | keys::modifier::ALT | keys::modifier::META) != 0;
        let shift_held = modifiers & keys::modifier::SHIFT != 0;
        // Text goes with the key press unless a command modifier turns it into a shortcut.
        let text = match (&key.text, down && !command_held) {
            (Some(text), true) if shift_held => Some(text.to_uppercase()),
            (Some(text), true) => Some(text.clone()),
            _ => None,
        };
        let kind = match (down, text.is_some()) {
            (false, _) => DispatchKeyEventType::KeyUp,
            (true, true) => DispatchKeyEventType::KeyDown,
            (true, false) => DispatchKeyEventType::RawKeyDown,
        };
        let mut params = DispatchKeyEventParams::new(kind);
        params.modifiers = Some(modifiers);
        params.key = Some(key.key.clone());
        params.code = Some(key.code.to_owned());
        params.windows_virtual_key_code = Some(key.key_code);
        params.native_virtual_key_code = Some(key.key_code);
        params.unmodified_text.clone_from(&text);
        params.text = text;
        if key.code.ends_with("Right") && key.modifier_bit.is_some() {
            params.location = Some(2);
        } else if key.modifier_bit.is_some() {
            params.location = Some(1);
        }
        params
    }

    /// Presses the keys of `combo` in order and leaves them held.
    pub async fn keys_down(&self, page: &Page, combo: &[KeyDef]) -> Result<(), CdpError> {
        for key in combo {
            self.key_event(page, key, true).await?;
        }
        Ok(())
    }

    /// Releases the keys of `combo` in reverse order.
    pub async fn keys_up(&self, page: &Page, combo: &[KeyDef]) -> Result<(), CdpError> {
        for key in combo.iter().rev() {
            self.key_event(page, key, false).await?;
        }
        Ok(())
    }

    /// Types `text` key by key (so key handlers fire); characters with no key on a US layout
    /// go in through `Input.insertText`. With no `delay` the events are sent in order without
    /// waiting for each answer (see [`send_in_order`]): the page still handles every key
    /// press, one after another, as it does a burst from a fast keyboard, and the typing
    /// costs no round trip per key.
    pub async fn type_text(
        &self,
        page: &Page,
        text: &str,
        delay: Option<Duration>,
    ) -> Result<(), CdpError> {
        let Some(delay) = delay else {
            let mut events = Vec::with_capacity(2 * text.len());
            for c in text.chars() {
                match self.char_events(c) {
                    Ok(keys) => {
                        events.extend(keys.into_iter().map(|key| Typed::Key(Box::new(key))))
                    }
                    Err(text) => events.push(Typed::Text(text)),
                }
            }
            let answers = events.into_iter().map(|event| event.answer(page));
            return send_in_order(answers.collect::<Result<_, _>>()?).await;
        };
        for (index, c) in text.chars().enumerate() {
            if index > 0 {
                tokio::time::sleep(delay).await;
            }
            match self.char_events(c) {
                Ok(keys) => {
                    for key in keys {
                        page.execute(key).await?;
                    }
                }
                Err(text) => {
                    page.execute(text).await?;
                }
            }
        }
        Ok(())
    }

    /// The key events that type `c` (shift held around it when it needs shift), or the
    /// `Input.insertText` of a character with no key on a US layout.
    fn char_events(&self, c: char) -> Result<Vec<DispatchKeyEventParams>, InsertTextParams> {
        let Some(key) = keys::char_key(c) else {
            return Err(InsertTextParams::new(c.to_string()));
        };
        let shift = keys::key_by_name("shift").filter(|_| key.needs_shift);
        let combo: Vec<KeyDef> = shift.into_iter().chain([key]).collect();
        // Pressed before released: each event carries the modifiers held by then.
        let downs: Vec<_> = combo.iter().map(|key| self.key_params(key, true)).collect();
        let ups = combo.iter().rev().map(|key| self.key_params(key, false));
        Ok(downs.into_iter().chain(ups).collect())
    }
}

/// One event of typing: a key press or release, or text with no key.
enum Typed {
    Key(Box<DispatchKeyEventParams>),
    Text(InsertTextParams),
}

impl Typed {
    /// Its answer (see [`answer`]).
    fn answer(self, page: &Page) -> Result<Answer, CdpError> {
        match self {
            Typed::Key(event) => answer(page, *event),
            Typed::Text(text) => answer(page, text),
        }
    }
}

/// Parses an xdotool combo for CDP, naming it in the error.
pub fn parse(combo: &str) -> Result<Vec<KeyDef>, DriveError> {
    keys::parse_combo(combo)
}
