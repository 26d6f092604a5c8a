//! The X11 desktop backend: XTEST for mouse and keyboard, `GetImage` on the root window for
//! screenshots, over a pure-Rust x11rb connection (no libxcb needed).
//!
//! It drives whatever X server `$DISPLAY` (or a given display name) points at: a real desktop
//! or Xvfb. Key combos use xdotool's names (`ctrl+a`, `Return`, `shift+Tab`); typed text holds
//! Shift for shifted characters and binds a spare keycode for characters the keyboard lacks
//! (`é` on a US layout), as xdotool does. It does not manage windows, focus or a window
//! manager: input goes wherever the server sends it (under Xvfb with no window manager, the
//! keyboard follows the pointer).
//!
//! On top of it, the desktop target: [`DesktopWindow`] is one application's window as a
//! backend (points relative to it, screenshots of its windows only, see [`frame`]), and
//! [`AppProcess`] the application started for a run and ended with its whole process tree.
//! [`InputRecorder`] watches a person's own input on the display (the RECORD extension), for
//! `retrace record --display`.
//! [`atspi`] is the accessibility layer: a private accessibility bus for that application,
//! and what it publishes of its widgets, read as the elements a browser reports.
//!
//! ```no_run
//! # async fn demo() -> Result<(), retrace_drive::DriveError> {
//! use retrace_drive::Backend;
//! use retrace_drive::backend::{MouseButton, Point};
//! let desktop = retrace_drive::x11::X11Backend::connect(Some(":99")).await?;
//! desktop.click(Point { x: 120, y: 140 }, MouseButton::Left, 1).await?;
//! desktop.key("ctrl+a").await?;
//! let shot = desktop.screenshot().await?;
//! # let _ = shot;
//! # Ok(())
//! # }
//! ```

pub mod app;
pub mod atspi;
mod backend;
mod capture;
mod display;
pub mod frame;
pub mod input_keys;
pub mod input_record;
mod keymap;
mod keysym;
pub mod window;
pub mod windows;

pub use app::AppProcess;
pub use backend::X11Backend;
pub use input_record::DesktopInput;
pub use input_record::InputRecorder;
pub use window::DesktopWindow;
pub use window::WindowQuery;
