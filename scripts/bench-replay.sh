#!/usr/bin/env bash
# Replay benchmark: the bundled demo flow against the demo app with random latency
# 100..1500 ms, N runs (default 20) each of `--wait visual` (retrace's default: wait until the
# screen shows what was recorded) and `--wait fixed:1.0` (askui's behaviour: sleep one second
# before each step). Prints passes, total wall time of each, and the ratio, all from this one
# run on this machine. Both modes replay into one running Chromium (`--connect`, each run in a
# browser context of its own), so browser start-up, the same for both, is not what is timed;
# set BENCH_LAUNCH=1 to launch a browser per run instead.
# Usage: scripts/bench-replay.sh [RUNS] [RECORDING]   (default 20 runs of the bundled
# crates/runner/assets/demo_flow.json; any recording of the demo app that takes the demo's
# username and password parameters can be timed the same way)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
runs="${1:-20}"
recording="$(realpath "${2:-crates/runner/assets/demo_flow.json}")"
cargo build --release --locked -p retrace-cli >/dev/null
retrace="$CARGO_TARGET_DIR/release/retrace"
work="$(mktemp -d)"
# Stop the app and the browser and wait for them, so the browser's profile is not being
# written while it is removed.
trap 'kill "${demo_pid:-}" "${browser_pid:-}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# At info level the app logs each latency it applies: the bench sets them against the time.
RETRACE_LOG=retrace_demo=info "$retrace" serve-demo --port "$port" --latency-ms 100..1500 >"$work/demo.log" 2>&1 &
demo_pid=$!
for _ in $(seq 50); do grep -q "Demo app at" "$work/demo.log" 2>/dev/null && break; sleep 0.1; done

connect=()
if [ "${BENCH_LAUNCH:-0}" != 1 ]; then
  cdp_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  "${RETRACE_CHROMIUM:-$(default_chromium)}" --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/profile" --remote-debugging-port="$cdp_port" about:blank \
    >"$work/browser.log" 2>&1 &
  browser_pid=$!
  for _ in $(seq 100); do python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$cdp_port/json/version', timeout=1)" 2>/dev/null && break; sleep 0.1; done
  connect=(--connect "http://127.0.0.1:$cdp_port")
fi

# Milliseconds of latency the app has applied so far.
app_wait_ms() {
  sed -n 's/.*applied app latency latency_ms=\([0-9]*\).*/\1/p' "$work/demo.log" | awk '{s += $1} END {print s + 0}'
}

bench_mode() {
  local mode="$1" passed=0 start end waited_before
  cp "$recording" "$work/$mode.json"
  waited_before=$(app_wait_ms)
  start=$(date +%s.%N)
  for _ in $(seq "$runs"); do
    if "$retrace" replay "$work/$mode.json" --url "http://127.0.0.1:$port/" --wait "$mode" \
        --param username=demo --param password=retrace-demo-pw --step-timeout 5 "${connect[@]}" --json >"$work/last.json" 2>&1; then
      passed=$((passed + 1))
    fi
  done
  end=$(date +%s.%N)
  echo "$mode $passed $(python3 -c "print(f'{$end-$start:.1f}')") $(( $(app_wait_ms) - waited_before ))"
}

read -r _ visual_passed visual_time visual_app_ms < <(bench_mode visual)
read -r _ fixed_passed fixed_time _ < <(bench_mode fixed:1.0)
python3 - "$runs" "$visual_passed" "$visual_time" "$fixed_passed" "$fixed_time" "$visual_app_ms" "$(basename "$recording")" <<'PY'
import sys
runs, vp, vt, fp, ft = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
app = int(sys.argv[6]) / 1000
print(f"{sys.argv[7]}, app latency 100..1500 ms, {runs} runs each ({'a browser per run' if __import__('os').environ.get('BENCH_LAUNCH') == '1' else 'one shared browser'})")
print(f"  --wait visual    : {vp}/{runs} passed, {vt:7.1f} s in all, {vt/runs:5.2f} s per run")
print(f"  --wait fixed:1.0 : {fp}/{runs} passed ({runs-fp} failed), {ft:7.1f} s in all, {ft/runs:5.2f} s per run")
print(f"  visual is {ft/vt:.2f}x faster in total wall time")
print(f"  the app itself made the visual runs wait {app:.1f} s ({app/runs:.2f} s per run); retrace's own time")
print(f"  above that was {(vt-app)/runs:.2f} s per run; even at zero overhead visual could be at most {ft/app:.2f}x faster")
PY
