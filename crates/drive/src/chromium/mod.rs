//! Headless Chromium over the DevTools protocol (CDP).
//!
//! [`ChromiumBrowser::launch`] starts `/usr/bin/chromium` (or any executable) headless with a
//! fresh temporary profile and a fixed viewport; [`ChromiumBrowser::connect`] attaches to a
//! running browser's `ws://` endpoint. Either way it is a [`crate::backend::PageFactory`], and
//! each [`ChromiumPage`] it opens is a [`crate::Backend`] and [`crate::BrowserBackend`].
//!
//! Element questions (module `element`: what is at a point, what has the focus, where is the
//! control named X) and readiness (module `activity`) run their page-side scripts in an
//! isolated world (module `world`), out of reach of the page's own scripts.
//!
//! A launched browser can never outlive the process that launched it; see [`process`].

mod activity;
mod dom;
mod element;
mod frames;
mod input;
pub mod keys;
mod launch;
mod network;
mod nodelay;
mod page;
pub mod process;
mod world;

pub use launch::ChromiumBrowser;
pub use launch::ChromiumConfig;
pub use page::ChromiumPage;
