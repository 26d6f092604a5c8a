#!/usr/bin/env bash
# Sets up a fresh Debian machine and runs every check CI runs: formatting, clippy with
# warnings denied, and the whole test suite: the fast tier (unit, property, CLI and
# scripted-model tests) and the end-to-end tier (`--features e2e`: real headless Chromium,
# Xvfb, nginx, moto, npm and Python venvs).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
# Everything this script installed is there: a test whose prerequisite (Chromium, Xvfb,
# nginx, a Python venv) is missing fails instead of skipping, as on CI.
export CI="${CI:-true}"

# mdBook renders the docs book; crates/test-support/tests/docs.rs builds it and checks its links.
if ! command -v mdbook >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/mdbook" ]; then
  echo "== cargo install mdbook"
  env -u CARGO_TARGET_DIR cargo install mdbook --version 0.5.4 --locked \
    --no-default-features --features search --quiet
fi

echo "== cargo fmt --check"
cargo fmt --all -- --check
# Two tiers (CONTRIBUTING.md): plain `cargo test` is the fast one; the `e2e` feature of each
# crate that has end-to-end tests adds the tests that need Chromium, Xvfb, nginx, moto, npm
# or a Python venv. Clippy reads both, so code built in one tier only is linted too.
echo "== cargo clippy (fast tier)"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== cargo clippy (end-to-end tier)"
cargo clippy --workspace --all-targets --locked --features e2e -- -D warnings
echo "== cargo test (both tiers: every test)"
cargo test --workspace --locked --no-fail-fast --features e2e
echo "== fuzz targets find a planted panic within their budget"
cargo test -p retrace-fuzz --test fuzz --locked --features planted-panic
