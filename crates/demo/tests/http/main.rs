//! The demo app over real HTTP (reqwest against a server on 127.0.0.1). One binary, one
//! module per area; what runs in the browser is tested in `tests/chromium`.

// Helpers outside #[test] functions unwrap too: a failed setup should stop the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

/// Shared helpers: serving, a client, signing in.
mod common;

/// The invoicing app: routes, login, layouts, latency, shutdown.
mod app;
/// The opt-in parts: rename layout, faults, the checkbox, late scripts, a slow sign-in.
mod options;
/// The content site: index, variants, assets, the page that never loads.
mod site;
