#!/usr/bin/env bash
# Steady timing: the bundled demo flow replayed N times (default 20) against the demo app with
# a fixed latency (default 300 ms, so the app's own wait is the same every run), each run a
# fresh `retrace replay` (its own browser). Prints the replay's own time (`duration_ms` of its
# JSON summary) and the process's wall time: fastest, slowest, median, and the spread
# (slowest - fastest) / fastest. A screenshot left hanging across a navigation (retried after
# a blind wait) shows here as a run seconds slower than the rest.
# Usage: scripts/bench-replay-steady.sh [RUNS] [LATENCY_MS]
#   BENCH_PROFILE=debug uses the debug build (default: release).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
runs="${1:-20}"
latency="${2:-300}"
profile="${BENCH_PROFILE:-release}"
if [ "$profile" = release ]; then
  cargo build --release --locked -p retrace-cli >/dev/null
else
  cargo build --locked -p retrace-cli >/dev/null
fi
retrace="$CARGO_TARGET_DIR/$profile/retrace"
work="$(mktemp -d)"
trap 'kill "${demo_pid:-}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$retrace" serve-demo --port "$port" --latency-ms "$latency" >"$work/demo.log" 2>&1 &
demo_pid=$!
for _ in $(seq 50); do grep -q "Demo app at" "$work/demo.log" 2>/dev/null && break; sleep 0.1; done

cp crates/runner/assets/demo_flow.json "$work/flow.json"
failed=0
for run in $(seq "$runs"); do
  if ! "$retrace" replay "$work/flow.json" --url "http://127.0.0.1:$port/" \
      --param username=demo --param password=retrace-demo-pw --json >"$work/run-$run.json" 2>"$work/run-$run.log"; then
    failed=$((failed + 1))
  fi
done

python3 - "$work" "$runs" "$failed" "$latency" "$profile" <<'PY'
import json, statistics, sys
work, runs, failed, latency, profile = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
own, wall = [], []
for run in range(1, runs + 1):
    with open(f"{work}/run-{run}.json") as f:
        summary = json.loads(f.read().strip().splitlines()[-1])
    own.append(summary["replay"]["duration_ms"] / 1000)
    wall.append(summary["wall_ms"] / 1000)
print(f"demo_flow.json, app latency {latency} ms, {runs} runs ({profile} build), {runs - failed}/{runs} passed")
for name, times in (("replay's own time", own), ("wall time", wall)):
    fastest, slowest = min(times), max(times)
    print(f"  {name:17}: fastest {fastest:.2f} s, slowest {slowest:.2f} s, median "
          f"{statistics.median(times):.2f} s, spread (slowest-fastest)/fastest {(slowest - fastest) / fastest:.1%}")
    print(f"  {'':17}  each, sorted: {' '.join(f'{t:.2f}' for t in sorted(times))}")
PY
