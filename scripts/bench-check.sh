#!/usr/bin/env bash
# `retrace check` throughput: the demo's 50 catalogue pages (/site/catalog/1..50), baseline
# server against an identical-markup server, checked with --jobs 4 (the issue's target: under
# 3 minutes) and, as the baseline measured in the same run, with --jobs 1. Prints the wall
# time, the verdict counts of each and the speed-up. The per-pair compare cost is the
# criterion bench `cargo bench -p retrace-check --bench compare`.
# Usage: scripts/bench-check.sh [JOBS]   (default 4; BENCH_DEBUG=1 uses the debug binary,
# skipping the release build: only the ratio is then meaningful)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
jobs="${1:-4}"
build_retrace_for_bench
work="$(mktemp -d)"
trap 'kill "${baseline_pid:-}" "${candidate_pid:-}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
serve() { # PORT VARIANT LOG
  "$retrace" serve-demo --port "$1" --variant "$2" >"$3" 2>&1 &
  for _ in $(seq 100); do grep -q "Demo app at" "$3" 2>/dev/null && break; sleep 0.1; done
}
baseline_port=$(free_port); serve "$baseline_port" baseline "$work/baseline.log"; baseline_pid=$!
candidate_port=$(free_port); serve "$candidate_port" identical-markup "$work/candidate.log"; candidate_pid=$!

pages=()
for n in $(seq 50); do pages+=(--page "/site/catalog/$n"); done

run() { # JOBS
  local start end
  start=$(date +%s.%N)
  "$retrace" check --baseline "http://127.0.0.1:$baseline_port/" --candidate "http://127.0.0.1:$candidate_port/" \
    "${pages[@]}" --jobs "$1" --retries 0 --out "$work/out-$1" --json >"$work/result-$1.json" || true
  end=$(date +%s.%N)
  python3 - "$work/result-$1.json" "$1" "$start" "$end" <<'PY'
import json, sys
doc = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
verdicts = [p["verdict"] for p in doc["pages"]]
counts = {v: verdicts.count(v) for v in ("PASS", "FAIL", "ERROR")}
print(f"jobs={sys.argv[2]} pages={len(verdicts)} wall_s={float(sys.argv[4]) - float(sys.argv[3]):.1f} {counts}")
PY
}
fast=$(run "$jobs"); echo "$fast"
slow=$(run 1); echo "$slow"
python3 - "$fast" "$slow" <<'PY'
import sys
wall = lambda line: float(line.split("wall_s=")[1].split()[0])
print(f"speed-up of --jobs over --jobs 1: {wall(sys.argv[2]) / wall(sys.argv[1]):.2f}x")
PY
