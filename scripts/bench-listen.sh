#!/usr/bin/env bash
# What waiting for the app's listeners costs (issue 39 item 4): the bundled demo flow replayed
# against the demo app (no added latency) N times (default 20) as recorded before retrace read
# listeners, and N times with each step's recorded listener facts (the types on the element
# and its ancestors, as `retrace act` records them on the demo app), alternating run by run so
# both see the same machine. Every run must pass: a fact the page does not have would fail it.
# Prints each variant's mean replay time, the extra time per acting step and the ratio.
# Both replay into one running Chromium (`--connect`), so browser start-up is not timed.
# Usage: scripts/bench-listen.sh [RUNS]   (BENCH_DEBUG=1: the debug build, ratios only)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
runs="${1:-20}"
build_retrace_for_bench
work="$(mktemp -d)"
trap 'kill "${demo_pid:-}" "${browser_pid:-}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port)
"$retrace" serve-demo --port "$port" >"$work/demo.log" 2>&1 &
demo_pid=$!
for _ in $(seq 50); do grep -q "Demo app at" "$work/demo.log" 2>/dev/null && break; sleep 0.1; done
cdp_port=$(free_port)
"${RETRACE_CHROMIUM:-$(default_chromium)}" --headless --no-sandbox --disable-gpu --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$work/profile" --remote-debugging-port="$cdp_port" about:blank \
  >"$work/browser.log" 2>&1 &
browser_pid=$!
for _ in $(seq 100); do python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$cdp_port/json/version', timeout=1)" 2>/dev/null && break; sleep 0.1; done

# The demo's listeners by the recorded element's selector: the sign-in form and the new
# invoice form listen for `submit` (their fields and buttons are inside), "New invoice" for
# `click`; the invoice table (the checkpoint) has none.
cp crates/runner/assets/demo_flow.json "$work/without.json"
python3 - "$work/without.json" "$work/with.json" <<'PY'
import json, sys
facts = {"#username": ["submit"], "#password": ["submit"], "#sign-in": ["submit"],
         "#new-invoice": ["click"], "#modal-customer": ["submit"], "#modal-amount": ["submit"],
         "#modal-save": ["submit"]}
cache = json.load(open(sys.argv[1]))
for step in cache["trajectory"]:
    element = step.get("element")
    if element is not None:
        element["listeners"] = facts.get(element["selector"], [])
json.dump(cache, open(sys.argv[2], "w"))
PY

# One replay of $1; prints its replay duration (ms) or FAILED.
replay_ms() {
  if "$retrace" replay "$work/$1.json" --url "http://127.0.0.1:$port/" \
      --param username=demo --param password=retrace-demo-pw --connect "http://127.0.0.1:$cdp_port" \
      --json >"$work/last.json" 2>&1; then
    python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])["replay"]["duration_ms"])' "$work/last.json"
  else
    echo FAILED
  fi
}

: >"$work/times"
for _ in $(seq "$runs"); do
  echo "without $(replay_ms without)" >>"$work/times"
  echo "with $(replay_ms with)" >>"$work/times"
done
echo "load: $(uptime)"
python3 - "$work/times" "$work/with.json" <<'PY'
import json, sys
times = {"without": [], "with": []}
failed = {"without": 0, "with": 0}
for line in open(sys.argv[1]):
    kind, value = line.split()
    if value == "FAILED":
        failed[kind] += 1
    else:
        times[kind].append(int(value))
acting = sum(1 for step in json.load(open(sys.argv[2]))["trajectory"] if step.get("element"))
checked = sum(1 for step in json.load(open(sys.argv[2]))["trajectory"] if (step.get("element") or {}).get("listeners"))
for kind in ("without", "with"):
    ok = len(times[kind])
    mean = sum(times[kind]) / ok if ok else float("nan")
    print(f"  {kind:<8} listener facts: {ok}/{ok + failed[kind]} passed, mean replay {mean:7.1f} ms")
if times["without"] and times["with"]:
    base = sum(times["without"]) / len(times["without"])
    extra = sum(times["with"]) / len(times["with"]) - base
    print(f"  extra {extra:+.1f} ms per run, {extra / checked:+.1f} ms per step with facts ({checked} of {acting} steps)")
    print(f"  ratio with/without: {(base + extra) / base:.3f}")
PY
