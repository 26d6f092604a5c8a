//! The `retrace` binary's tests: one test binary, one module per subject (one link of the
//! whole crate graph instead of one per file).
//!
//! The fast tier (plain `cargo test`) runs the modules that need nothing but the binary and
//! files: no browser, no X server, no Python, no servers beyond the demo app and the scripted
//! model. Modules that need Chromium, Xvfb, nginx, moto, npm or a Python venv are the
//! end-to-end tier, built only with the `e2e` feature (`scripts/test.sh` turns it on); see
//! CONTRIBUTING.md. A module of mostly such tests is end to end as a whole; a mostly fast one
//! marks its few end-to-end tests instead.
//!
//! One test is a binary of its own, `tests/python_wheel.rs`: maturin rebuilds the `retrace`
//! binary the other tests run, so it must not run beside them (cargo runs test binaries one
//! after another).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

// The fast tier. A module here may hold a few end-to-end tests, each under
// `#[cfg(feature = "e2e")]`.
mod broken_files;
mod cache_cli;
mod check_cli;
mod closed_pipe;
mod help;
mod report_merge;
mod schema_cli;
mod serve_demo;
mod vision_commands;

// The end-to-end tier: real Chromium (most), Xvfb (desktop, demonstrations), nginx and moto
// (remote replay, shards, stores), Python venvs and npm (askui, imagehash, the wheel, MCP).
#[cfg(feature = "e2e")]
mod act_e2e;
#[cfg(feature = "e2e")]
mod act_structured_e2e;
#[cfg(feature = "e2e")]
mod agent_skill;
#[cfg(feature = "e2e")]
mod approve_e2e;
#[cfg(feature = "e2e")]
mod askui_export;
#[cfg(feature = "e2e")]
mod browser_commands;
#[cfg(feature = "e2e")]
mod check_login;
#[cfg(feature = "e2e")]
mod check_reports;
#[cfg(feature = "e2e")]
mod check_scale;
#[cfg(feature = "e2e")]
mod check_window;
#[cfg(feature = "e2e")]
mod demo_replay;
#[cfg(feature = "e2e")]
mod desktop_a11y;
#[cfg(feature = "e2e")]
mod desktop_e2e;
#[cfg(feature = "e2e")]
mod desktop_record;
#[cfg(feature = "e2e")]
mod faults;
#[cfg(feature = "e2e")]
mod golden_output;
#[cfg(feature = "e2e")]
mod imagehash_crosscheck;
#[cfg(feature = "e2e")]
mod listen;
#[cfg(feature = "e2e")]
mod mcp_server;
#[cfg(feature = "e2e")]
mod real_farms;
#[cfg(feature = "e2e")]
mod record_demonstration;
#[cfg(feature = "e2e")]
mod remote_replay;
#[cfg(feature = "e2e")]
mod replay_fast_failures;
#[cfg(feature = "e2e")]
mod replay_navigation;
#[cfg(feature = "e2e")]
mod replay_trust;
#[cfg(feature = "e2e")]
mod run_shards;
#[cfg(feature = "e2e")]
mod run_suite;
#[cfg(feature = "e2e")]
mod stored_replay;
