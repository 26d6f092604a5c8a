//! Headless Chromium over the DevTools protocol (CDP).
//!
//! [`ChromiumBrowser::launch`] starts Chromium ([`default_executable`]: the headless shell
//! when installed, else `/usr/bin/chromium`; or any executable) headless with a
//! fresh temporary profile and a fixed viewport; [`ChromiumBrowser::connect`] and
//! [`ChromiumBrowser::connect_with`] reach a browser somebody else runs (a DevTools HTTP or
//! websocket endpoint, a farm, a Selenium Grid; see [`remote`]). Either way it is a
//! [`crate::backend::PageFactory`], and each [`ChromiumPage`] it opens is a [`crate::Backend`]
//! and [`crate::BrowserBackend`].
//!
//! A [`ChromiumBrowser`] handle is one run: its pages share a browser context of their own,
//! disposed when the run ends ([`ChromiumBrowser::close`], or dropping the handle and its
//! pages). A launched browser can never outlive the process that launched it; see [`process`].
//!
//! Element questions (module `element`: what is at a point, what has the focus, where is the
//! control named X) and readiness (module `activity`) run their page-side scripts in an
//! isolated world (module `world`), out of reach of the page's own scripts.
//!
//! Modules point one way: `launch` and `remote` build a `connection` (the CDP connection and
//! what ends with it); `browser` hands out runs (`context`) and pages (`page`) on it.

mod activity;
mod browser;
mod connection;
mod context;
pub mod demonstration;
mod dialogs;
mod dom;
mod element;
mod input;
pub mod keys;
mod launch;
mod listeners;
mod network;
mod nodelay;
mod page;
mod pipeline;
pub mod process;
pub mod remote;
mod select;
pub mod stop_control;
mod typed_navigation;
pub mod window;
mod world;

pub use browser::ChromiumBrowser;
pub use launch::ChromiumConfig;
pub use launch::FULL_CHROMIUM;
pub use launch::HEADLESS_SHELL;
pub use launch::default_executable;
pub use page::ChromiumPage;
pub use remote::ConnectOptions;
pub use remote::Endpoint;
