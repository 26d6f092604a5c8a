#!/usr/bin/env bash
# `retrace run` throughput, all measured in one run against one demo app with a fixed latency
# (every sign-in waits LATENCY ms on the server):
#   1. RUNS replays of the bundled demo flow (sign in, New invoice, fill, save: 12 steps, every
#      visual, semantic, state and effect check on) with `retrace run --jobs 1`, 2 and 4;
#   2. the same RUNS files, one fresh `retrace replay` process each, one after another (the loop
#      users write today): the baseline of the speed-up;
#   3. the same flow written by hand as a Playwright test (Python `playwright` from PyPI, the
#      Chromium retrace launches: the headless shell when installed, as Playwright itself runs
#      headless tests; a new context per test, selector auto-waits), RUNS runs at each
#      parallelism; and again with retrace's own Chromium launch flags added to Playwright's
#      (`playwright+`: no spare renderers, no omnibox popup renderers), so the tools are
#      compared on equal browsers too.
# Prints tests per minute, the speed-up over the loop, and per test the time that is retrace's
# (or Playwright's) own: the test's wall time minus the latency the app gave it.
# The machine's speed drifts over minutes (a shared host), so the configurations are run in
# ROUNDS rounds of RUNS/ROUNDS tests each, interleaved, the order reversed every other round:
# every configuration sees the same stretches of time. Each round's retrace suite and
# Playwright script start their browser again (counted in retrace's wall time, not in
# Playwright's).
# Usage: scripts/bench-run.sh [RUNS] [LATENCY_MS] [ROUNDS]   (default 40, 300 and 2; BENCH_DEBUG=1 uses
# the debug binary, skipping the release build: only ratios between retrace runs then mean
# anything). Playwright goes in a venv under $HOME/.cache/retrace-bench/ on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
runs="${1:-40}"
latency="${2:-300}"
rounds="${3:-2}"
per_round=$((runs / rounds))
[ "$per_round" -ge 1 ] || { echo "bench-run: RUNS must be at least ROUNDS" >&2; exit 2; }
build_retrace_for_bench
retrace="$(realpath "$retrace")"
# retrace and Playwright drive the same Chromium: the one retrace launches by default.
chromium="${RETRACE_CHROMIUM:-$(default_chromium)}"
export RETRACE_CHROMIUM="$chromium"
CACHE="$HOME/.cache/retrace-bench"
if ! "$CACHE/venv/bin/python" -c 'import playwright' 2>/dev/null; then
  python3 -m venv "$CACHE/venv"
  "$CACHE/venv/bin/pip" install --quiet playwright==1.63.0
fi

work="$(mktemp -d)"
trap 'kill "${demo_pid:-}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
"$retrace" serve-demo --port 0 --latency-ms "$latency" --json >"$work/demo.json" 2>"$work/demo.log" &
demo_pid=$!
for _ in $(seq 600); do [ -s "$work/demo.json" ] && break; sleep 0.1; done
url="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' "$work/demo.json")"

mkdir -p "$work/suite"
for n in $(seq -w 1 "$per_round"); do cp crates/runner/assets/demo_flow.json "$work/suite/flow-$n.json"; done
params=(--param username=demo --param password=retrace-demo-pw)

# `retrace run --jobs J`: "jobs=J tests=N passed=P wall_s=W own_ms=M" (M: median of each
# test's wall time minus the app's latency).
suite() {
  local start end
  start=$(date +%s.%N)
  # From the work folder, so the suite's state store (.retrace_state/) is written there.
  (cd "$work" && "$retrace" run suite --url "$url" "${params[@]}" --jobs "$1" --report json \
    --out "$work/out-$1" >/dev/null 2>&1) || true
  end=$(date +%s.%N)
  python3 - "$work/out-$1/report.json" "$1" "$start" "$end" "$latency" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
tests = doc["tests"]
own = [t["wall_ms"] - int(sys.argv[5]) for t in tests]
passed = sum(t["status"] == "passed" for t in tests)
print(f"run jobs={sys.argv[2]} tests={len(tests)} passed={passed} "
      f"wall_s={float(sys.argv[4]) - float(sys.argv[3]):.1f} own_ms={','.join(map(str, own))}")
PY
}

# One `retrace replay` process per file, one after another.
loop() {
  local start end passed=0
  start=$(date +%s.%N)
  for file in "$work"/suite/flow-*.json; do
    if "$retrace" replay "$file" --url "$url" "${params[@]}" >/dev/null 2>&1; then passed=$((passed + 1)); fi
  done
  end=$(date +%s.%N)
  python3 -c "import sys; print(f'loop tests=$per_round passed=$passed wall_s={float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$start" "$end"
}

# The Playwright test, RUNS times, J at a time; with FLAGS `retrace` (the `playwright+` rows)
# Chromium also gets the launch flags retrace adds to Playwright's.
playwright() {
  local flags="${2:-playwright}" name=playwright
  [ "$flags" = retrace ] && name=playwright+
  "$CACHE/venv/bin/python" scripts/bench_playwright_flow.py "$url" "$per_round" "$1" "$chromium" "$flags" |
    python3 -c "
import json, sys
doc = json.load(sys.stdin)
own = [round(t - $latency) for t in doc['test_ms']]
print(f'$name jobs=$1 tests={len(own)} wall_s={doc[\"wall_ms\"] / 1000:.1f} own_ms={\",\".join(map(str, own))}')"
}

results=()
configs=("suite 1" "playwright 1" "playwright 1 retrace" "suite 2" "loop" "suite 4" "playwright 4"
  "playwright 4 retrace")
for round in $(seq "$rounds"); do
  order=("${configs[@]}")
  if [ $((round % 2)) -eq 0 ]; then
    order=(); for ((i = ${#configs[@]} - 1; i >= 0; i--)); do order+=("${configs[$i]}"); done
  fi
  for config in "${order[@]}"; do
    line=$($config); echo "round $round: ${line%% own_ms=*}"; results+=("$line")
  done
done

python3 - "${results[@]}" <<'PY'
import statistics, sys
rows = {}
for line in sys.argv[1:]:
    name, *parts = line.split()
    fields = dict(part.split("=", 1) for part in parts)
    row = rows.setdefault((name, fields.get("jobs")), {"tests": 0, "wall_s": 0.0, "own": []})
    row["tests"] += int(fields["tests"])
    row["wall_s"] += float(fields["wall_s"])
    if fields.get("own_ms"):
        row["own"] += [float(ms) for ms in fields["own_ms"].split(",")]
per_minute = lambda row: row["tests"] / row["wall_s"] * 60
own = lambda row: statistics.median(row["own"])
loop = rows[("loop", None)]
print(f"\nretrace run, tests per minute (and speed-up over a retrace replay process per file, "
      f"{per_minute(loop):.1f}/min):")
for jobs in ("1", "2", "4"):
    row = rows[("run", jobs)]
    print(f"  --jobs {jobs}: {per_minute(row):.1f}/min, {per_minute(row) / per_minute(loop):.2f}x")
print("own time per test (median of wall minus the app's latency), retrace / Playwright at the "
      "same parallelism:")
for jobs in ("1", "4"):
    ours, theirs = rows[("run", jobs)], rows[("playwright", jobs)]
    print(f"  jobs {jobs}: {own(ours):.0f} ms / {own(theirs):.0f} ms = {own(ours) / own(theirs):.2f}x")
print("the same against Playwright with retrace's Chromium flags added (playwright+):")
for jobs in ("1", "4"):
    ours, theirs = rows[("run", jobs)], rows[("playwright+", jobs)]
    print(f"  jobs {jobs}: {own(ours):.0f} ms / {own(theirs):.0f} ms = {own(ours) / own(theirs):.2f}x")
PY
