//! Stand-ins for the remote browser services retrace connects to, in front of a real local
//! Chromium (the tests start it): a browser farm ([`farm::FarmStandIn`]: DevTools discovery
//! and websocket behind one address, busy answers) and a Selenium Grid 4 hub
//! ([`grid::GridStandIn`]: WebDriver sessions, `se:cdp`, idle timeouts). They speak only the
//! parts of those protocols retrace uses, and record what happened for the test to check.
//! Authenticating and TLS proxies are real nginx instead (see [`crate::nginx`]).

pub mod farm;
pub mod grid;
mod ws_proxy;
