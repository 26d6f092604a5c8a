//! Remote browser services for the tests of `--connect`.
//!
//! Real farms, started by the tests: a Selenium Grid 4 ([`selenium_grid::SeleniumGrid`]: the
//! Grid's jar from npm, Debian's Java and ChromeDriver) and browserless
//! ([`browserless::Browserless`], from npm), both running Debian's Chromium.
//!
//! Stand-ins, in front of a real local Chromium, only for what the real farms cannot be made
//! to do here on demand: a farm at capacity answering 429 a set number of times
//! ([`farm::FarmStandIn`]), and a Grid killing a session at a moment the test chooses or after
//! a sub-second idle limit ([`grid::GridStandIn`]; a real Grid's `--session-timeout` is
//! checked in whole seconds by a periodic sweep, too coarse to test a keep-alive against).
//! They speak only the parts of those protocols retrace uses, and record what happened for
//! the test to check. Authenticating and TLS proxies are real nginx (see [`crate::nginx`]).

pub mod browserless;
pub mod farm;
pub mod grid;
pub mod selenium_grid;
mod server;
mod ws_proxy;
