#!/usr/bin/env bash
# Saves the demo app's screens for crates/cli/tests/cli/askui_export.rs (issue 16): the bundled
# recording's actions (crates/runner/assets/demo_flow.json, sign-in values filled in) run by
# `retrace do` in headless Chromium at 1280x800, with the screenshot after each. NNN.png is
# the page after NNN page-changing actions (clicks and typing), 000.png the page before any;
# the stand-in computer of tests/askui/askui_replay.py shows them in that order.
# Usage: scripts/askui-demo-screens.sh [RETRACE_BINARY]   (default: target/debug/retrace)
set -euo pipefail
cd "$(dirname "$0")/.."
retrace="${1:-${CARGO_TARGET_DIR:-target}/debug/retrace}"
out=crates/cli/tests/askui/screens
port=$((20000 + RANDOM % 20000))
"$retrace" serve-demo --port "$port" >/dev/null &
server=$!
trap 'kill "$server"' EXIT
until curl -sf "http://127.0.0.1:$port/" >/dev/null; do sleep 0.2; done
mapfile -t actions < <(python3 - <<'PY'
import json
flow = json.load(open("crates/runner/assets/demo_flow.json"))
values = {"{{username}}": "demo", "{{password}}": "retrace-demo-pw"}
for step in flow["trajectory"]:
    text = json.dumps(step["input"])
    for name, value in values.items():
        text = text.replace(name, value)
    print(text)
PY
)
shots=$(mktemp -d)
"$retrace" do "http://127.0.0.1:$port/" "${actions[@]}" --screenshots "$shots" --size 1280x800
rm -f "$out"/*.png
mkdir -p "$out"
n=0
for shot in "$shots"/*.png; do
  case "$shot" in *-mouse_move.png) continue ;; esac
  cp "$shot" "$out/$(printf %03d "$n").png"
  n=$((n + 1))
done
rm -r "$shots"
echo "wrote $n screens to $out"
