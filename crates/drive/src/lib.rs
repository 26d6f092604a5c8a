//! retrace-drive: the things retrace acts on and the tools a model calls on them.
//!
//! - [`backend::Backend`]: screenshot, mouse, keyboard; [`backend::BrowserBackend`] adds
//!   navigation and the DOM.
//! - [`readiness`]: is a page ready to act on, is anything still happening on it; with
//!   [`BrowserBackend::element_at`] and friends, what replay checks besides pixels.
//! - Backends: headless Chromium over CDP, launched or remote (a DevTools endpoint, a farm, a
//!   Selenium Grid), and an X11 desktop (feature `x11`).
//! - [`tool::Tool`]: the one trait every tool of a run implements, here and in the crates
//!   above (switch, cache and askui tools), and [`tool::Toolbox`], a run's tools by name;
//!   [`handover`]: what a control tool hands the conversation over with.
//! - Tools: the `computer` tool (Anthropic computer-use actions) and the web executor.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod backend;
pub mod chromium;
pub mod computer;
pub mod error;
pub mod handover;
pub mod readiness;
pub mod tool;
pub mod web;
#[cfg(feature = "x11")]
pub mod x11;

pub use backend::Backend;
pub use backend::BrowserBackend;
pub use error::DriveError;
