//! [`X11Backend`]: an X11 display driven through XTEST, captured from the root window.

use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;

use super::display::Display;
use super::display::Failure;
use super::keysym;
use super::keysym::Keysym;
use crate::backend::Backend;
use crate::backend::MouseButton;
use crate::backend::Point;
use crate::backend::Screenshot;
use crate::backend::ScrollDirection;
use crate::error::DriveError;

/// The backend name used in errors and logs.
pub(crate) const NAME: &str = "x11";

/// An X11 display driven through XTEST. Cheap to share: clones of the inner connection are
/// reference-counted, and operations on it are serialised so two callers' events never
/// interleave.
pub struct X11Backend {
    display: Arc<Display>,
    display_name: String,
    /// Combos pressed with `key_down` and not yet released, with the keycodes pressed for
    /// each: `key_up` releases exactly those, even if a spare keycode was rebound since.
    held: Mutex<Vec<HeldCombo>>,
}

/// Key combos (as parsed) pressed by one `key_down`, and the keycodes that press sent.
type HeldCombo = (Vec<Vec<Keysym>>, Vec<u8>);

impl std::fmt::Debug for X11Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("X11Backend")
            .field("display", &self.display_name)
            .finish_non_exhaustive()
    }
}

impl X11Backend {
    /// Connects to the X server `display` (such as `":99"`), or to `$DISPLAY` when `None`.
    /// Fails with [`DriveError::Launch`] when the server cannot be reached or lacks XTEST.
    pub async fn connect(display: Option<&str>) -> Result<Self, DriveError> {
        let display_name = match display {
            Some(name) => name.to_owned(),
            None => std::env::var("DISPLAY").unwrap_or_default(),
        };
        let name = display.map(str::to_owned);
        let opened = tokio::task::spawn_blocking(move || Display::open(name.as_deref()))
            .await
            .map_err(|e| {
                launch_error(&display_name, &format!("the connecting thread failed: {e}"))
            })?
            .map_err(|detail| launch_error(&display_name, &detail))?;
        Ok(Self {
            display: Arc::new(opened),
            display_name,
            held: Mutex::new(Vec::new()),
        })
    }

    /// The display name this backend is connected to (`":99"`), empty if `$DISPLAY` was unset.
    pub fn display_name(&self) -> &str {
        &self.display_name
    }

    /// Runs a blocking operation on the worker pool and names `doing` in its error.
    pub(super) async fn run<T, F>(&self, doing: String, op: F) -> Result<T, DriveError>
    where
        T: Send + 'static,
        F: FnOnce(&Display) -> Result<T, Failure> + Send + 'static,
    {
        let display = Arc::clone(&self.display);
        let outcome = tokio::task::spawn_blocking(move || op(&display)).await;
        match outcome {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(Failure::Gone(detail))) => Err(DriveError::BackendGone {
                backend: NAME.to_owned(),
                doing,
                detail: format!("{detail} (display {:?})", self.display_name),
            }),
            Ok(Err(Failure::Failed(detail))) => Err(DriveError::Operation {
                backend: NAME.to_owned(),
                doing,
                detail,
            }),
            Ok(Err(Failure::Invalid(detail))) => {
                Err(DriveError::InvalidInput(format!("{doing}: {detail}")))
            }
            Err(join) => Err(DriveError::Operation {
                backend: NAME.to_owned(),
                doing,
                detail: format!("the worker thread failed: {join}"),
            }),
        }
    }
}

fn launch_error(display: &str, detail: &str) -> DriveError {
    let shown = if display.is_empty() {
        "$DISPLAY (unset)"
    } else {
        display
    };
    DriveError::Launch {
        backend: NAME.to_owned(),
        detail: format!("display {shown}: {detail}"),
    }
}

/// The X button number of a mouse button.
fn button_number(button: MouseButton) -> u8 {
    match button {
        MouseButton::Left => 1,
        MouseButton::Middle => 2,
        MouseButton::Right => 3,
    }
}

/// The wheel button X uses for a scroll direction.
fn wheel_button(direction: ScrollDirection) -> u8 {
    match direction {
        ScrollDirection::Up => 4,
        ScrollDirection::Down => 5,
        ScrollDirection::Left => 6,
        ScrollDirection::Right => 7,
    }
}

#[async_trait]
impl Backend for X11Backend {
    fn name(&self) -> &str {
        NAME
    }

    async fn display_size(&self) -> Result<(u32, u32), DriveError> {
        Ok(self.display.size())
    }

    async fn screenshot(&self) -> Result<Screenshot, DriveError> {
        self.run("taking a screenshot".to_owned(), Display::capture)
            .await
    }

    async fn mouse_move(&self, to: Point) -> Result<(), DriveError> {
        let doing = format!("moving the pointer to ({}, {})", to.x, to.y);
        self.run(doing, move |d| d.move_to(to)).await
    }

    async fn mouse_down(&self, button: MouseButton) -> Result<(), DriveError> {
        let doing = format!("pressing the {button:?} button");
        self.run(doing, move |d| d.press_button(button_number(button), true))
            .await
    }

    async fn mouse_up(&self, button: MouseButton) -> Result<(), DriveError> {
        let doing = format!("releasing the {button:?} button");
        self.run(doing, move |d| d.press_button(button_number(button), false))
            .await
    }

    async fn click(&self, at: Point, button: MouseButton, count: u32) -> Result<(), DriveError> {
        let doing = format!("clicking {button:?} x{count} at ({}, {})", at.x, at.y);
        self.run(doing, move |d| d.click(at, button_number(button), count))
            .await
    }

    async fn drag(&self, from: Point, to: Point) -> Result<(), DriveError> {
        let doing = format!(
            "dragging from ({}, {}) to ({}, {})",
            from.x, from.y, to.x, to.y
        );
        self.run(doing, move |d| d.drag(from, to)).await
    }

    async fn scroll(
        &self,
        at: Point,
        direction: ScrollDirection,
        amount: u32,
    ) -> Result<(), DriveError> {
        let doing = format!(
            "scrolling {direction:?} by {amount} at ({}, {})",
            at.x, at.y
        );
        self.run(doing, move |d| {
            d.scroll(at, wheel_button(direction), amount)
        })
        .await
    }

    async fn type_text(&self, text: &str, delay_ms: Option<u64>) -> Result<(), DriveError> {
        // The text may be a secret: errors give its length, never its content.
        let doing = format!("typing {} characters", text.chars().count());
        match delay_ms {
            None | Some(0) => {
                let text = text.to_owned();
                self.run(doing, move |d| d.type_text(&text)).await
            }
            Some(ms) => {
                let mut buf = [0u8; 4];
                for (i, c) in text.chars().enumerate() {
                    if i > 0 {
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                    }
                    let one = c.encode_utf8(&mut buf).to_owned();
                    self.run(doing.clone(), move |d| d.type_text(&one)).await?;
                }
                Ok(())
            }
        }
    }

    async fn key(&self, combo: &str) -> Result<(), DriveError> {
        let combos = keysym::parse_combos(combo)?;
        let doing = format!("pressing keys {combo:?}");
        self.run(doing, move |d| d.key_combos(&combos)).await
    }

    async fn hold_key(&self, combo: &str, duration_ms: u64) -> Result<(), DriveError> {
        let combos = keysym::parse_combos(combo)?;
        let doing = format!("holding keys {combo:?} for {duration_ms} ms");
        let held = self
            .run(doing.clone(), move |d| d.hold_keys(&combos))
            .await?;
        tokio::time::sleep(Duration::from_millis(duration_ms)).await;
        self.run(doing, move |d| d.release_keys(&held)).await
    }

    async fn key_down(&self, combo: &str) -> Result<(), DriveError> {
        let combos = keysym::parse_combos(combo)?;
        let doing = format!("pressing down keys {combo:?}");
        let key = combos.clone();
        let pressed = self.run(doing, move |d| d.hold_keys(&key)).await?;
        if let Ok(mut held) = self.held.lock() {
            held.push((combos, pressed));
        }
        Ok(())
    }

    async fn key_up(&self, combo: &str) -> Result<(), DriveError> {
        let combos = keysym::parse_combos(combo)?;
        let doing = format!("releasing keys {combo:?}");
        // The latest matching `key_down`, if any: release the very keycodes it pressed.
        let pressed = self.held.lock().ok().and_then(|mut held| {
            let index = held.iter().rposition(|(c, _)| *c == combos)?;
            Some(held.remove(index).1)
        });
        match pressed {
            Some(keycodes) => self.run(doing, move |d| d.release_keys(&keycodes)).await,
            None => self.run(doing, move |d| d.release_combos(&combos)).await,
        }
    }

    async fn cursor_position(&self) -> Result<Point, DriveError> {
        self.run("reading the pointer position".to_owned(), Display::pointer)
            .await
    }
}
