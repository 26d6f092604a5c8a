#!/usr/bin/env bash
# Sets up a fresh Debian machine and runs every check CI runs: formatting, clippy with
# warnings denied, and the whole test suite (unit, property, CLI and end-to-end tests in real
# headless Chromium and under Xvfb).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
# Everything this script installed is there: a test whose prerequisite (Chromium, Xvfb,
# nginx, a Python venv) is missing fails instead of skipping, as on CI.
export CI="${CI:-true}"

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== cargo test"
cargo test --workspace --locked --no-fail-fast
echo "== fuzz targets find a planted panic within their budget"
cargo test -p retrace-fuzz --test fuzz --locked --features planted-panic
