//! Shared helpers for retrace's tests, benchmarks and test-only binaries.
//!
//! One place for what several crates' tests need: where the shared reference vectors and
//! askui example files live, fake model servers, the demo app on a random port, nginx as a
//! proxy, real browser farms (a Selenium Grid, browserless) and stand-ins for what they
//! cannot be made to do ([`remote_browser`]), Python venvs of pinned PyPI packages and
//! npm packages ([`npm`]),
//! request and response bodies checked against the official Anthropic and OpenAI SDKs' types
//! ([`sdk_check`]), what a test needs from the machine ([`requirements`], [`require!`]), the one Chromium launcher
//! of tests (`chromium`, with the `e2e` feature), CPU
//! load beside a test ([`cpu_load`]), a sample suite report with real evidence files
//! ([`suite_report`]) and `retrace run` started clean on folders of recordings ([`suite_run`]).
//! Tests never copy these helpers; they depend on this crate.

use std::path::PathBuf;

#[cfg(feature = "e2e")]
pub mod chromium;
pub mod cli;
pub mod cpu_load;
pub mod demo;
pub mod fake_model;
pub mod html_server;
pub mod moto;
pub mod nginx;
pub mod npm;
pub mod processes;
pub mod python;
pub mod remote_browser;
pub mod requirements;
pub mod router_thread;
pub mod sdk_check;
pub mod suite_report;
pub mod suite_run;
pub mod xvfb;

/// The `shared/` directory that sits beside the repository checkout.
///
/// CI clones the repository with `shared/` beside it, so the default is
/// `<workspace>/../shared`. `RETRACE_SHARED_DIR` overrides it for unusual layouts.
pub fn shared_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("RETRACE_SHARED_DIR") {
        return PathBuf::from(dir);
    }
    workspace_dir().join("..").join("shared")
}

/// The directory of the package whose tests are running: the `CARGO_MANIFEST_DIR` Cargo
/// sets for every process `cargo test` starts, else the one this crate was built with.
///
/// Read when the test runs, not when it was built: a build directory shared by checkouts at
/// different paths (a CI clone beside a working copy) reuses a test built in another
/// checkout, whose build-time path points there, at that checkout's files or at nothing.
pub fn package_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
}

/// The workspace root (the directory holding the top-level `Cargo.toml`): two levels above
/// every package (`crates/NAME`).
pub fn workspace_dir() -> PathBuf {
    package_dir().join("..").join("..")
}

/// `shared/vectors/`: reference images and the outputs of Python imagehash, npm pixelmatch,
/// odiff and ajv on them.
pub fn vectors_dir() -> PathBuf {
    shared_dir().join("vectors")
}

/// `shared/examples/askui/`: real cache files written by askui, with `.expect.json` sidecars.
pub fn askui_examples_dir() -> PathBuf {
    shared_dir().join("examples").join("askui")
}

/// Reads a JSON Lines file into values, panicking with the path and line on bad input
/// (test-only code: a broken vector file should stop the test loudly).
pub fn read_jsonl(path: &std::path::Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(n, line)| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), n + 1))
        })
        .collect()
}

/// Reads a JSON file, panicking with the path on bad input.
pub fn read_json(path: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
