//! End-to-end tests of remote browsers: a real local headless Chromium stands for the remote
//! one, reached through real nginx proxies (authentication, TLS) and through stand-ins for a
//! browser farm and a Selenium Grid (crates/test-support) where a test needs what a real farm
//! cannot be made to do on demand: answer busy a set number of times, kill a session at a
//! chosen moment or after a sub-second idle limit, count the sessions alive at once. Replays
//! through a real Selenium Grid 4 and a real browserless are `crates/cli/tests/cli/real_farms.rs`.
//! Nothing leaves 127.0.0.1.

#![allow(clippy::unwrap_used, clippy::expect_used)]

/// Shared setup: the local browser, nginx configurations, a test CA, a page to drive.
mod support;

/// One browser context per run, disposed at its end.
mod contexts;
/// A farm answering busy: backoff and observable retries.
mod farm;
/// Selenium Grid sessions: keep-alive, deletion, lost sessions, `max_sessions`.
mod grid;
/// Header and token authentication, `wss://` through TLS.
mod proxies;
