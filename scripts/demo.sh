#!/usr/bin/env bash
# Sets up a fresh Debian machine and runs retrace's main job on the bundled demo app.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
cargo build --release --locked -p retrace-cli
exec "$CARGO_TARGET_DIR/release/retrace" demo "$@"
