//! Headless Chromium over the DevTools protocol (CDP).
//!
//! [`ChromiumBrowser::launch`] starts `/usr/bin/chromium` (or any executable) headless with a
//! fresh temporary profile and a fixed viewport; [`ChromiumBrowser::connect`] attaches to a
//! running browser's `ws://` endpoint. Either way it is a [`crate::backend::PageFactory`], and
//! each [`ChromiumPage`] it opens is a [`crate::Backend`] and [`crate::BrowserBackend`].
//!
//! A launched browser can never outlive the process that launched it; see [`process`].

mod dom;
mod input;
pub mod keys;
mod launch;
mod network;
mod nodelay;
mod page;
pub mod process;

pub use launch::ChromiumBrowser;
pub use launch::ChromiumConfig;
pub use page::ChromiumPage;
