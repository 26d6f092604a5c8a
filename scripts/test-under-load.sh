#!/usr/bin/env bash
# Runs the whole test suite beside CPU-bound processes, as CI machines run it: a test that
# passes only on an idle machine (a timeout that assumes a speed, a screenshot that may be
# stale) fails here. The busy processes stop when the script ends, however it ends (Ctrl-C
# included).
# Usage: scripts/test-under-load.sh [BUSY] [-- CARGO TEST ARGS...]
#   BUSY  how many busy processes (default 4)
#   the rest replaces the default test command's arguments, e.g.
#   scripts/test-under-load.sh 8 -- -p retrace-drive --test chromium_e2e --features e2e
# CI=true is set for the run: tests that need Chromium or Xvfb fail instead of skipping,
# and tests that prove themselves under load start their own extra load.
set -euo pipefail
cd "$(dirname "$0")/.."

busy="${1:-4}"
[ $# -gt 0 ] && shift
if ! [[ "$busy" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 [BUSY] [-- CARGO TEST ARGS...] (BUSY is a number, not '$busy')" >&2
  exit 2
fi
[ "${1:-}" = "--" ] && shift
if [ $# -gt 0 ]; then
  test_args=("$@")
else
  test_args=(--workspace --locked --no-fail-fast --features e2e)
fi

source scripts/setup.sh

pids=()
stop_load() {
  if [ ${#pids[@]} -gt 0 ]; then
    kill "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
    pids=()
  fi
}
trap stop_load EXIT
trap 'stop_load; exit 130' INT
trap 'stop_load; exit 143' TERM

# Build first, without the load: the point is to load the tests, not the compiler.
cargo test "${test_args[@]}" --no-run

for _ in $(seq "$busy"); do
  ( trap - INT TERM; while :; do :; done ) &
  pids+=($!)
done
echo "test-under-load: $busy busy processes (${pids[*]}); load: $(cut -d' ' -f1-3 /proc/loadavg)"
started=$(date +%s)
status=0
CI=true cargo test "${test_args[@]}" || status=$?
echo "test-under-load: finished in $(( $(date +%s) - started )) s with status $status; load: $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$status"
