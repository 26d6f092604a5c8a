#!/usr/bin/env bash
# Takes the README's picture of a suite's HTML report (docs/report.png): a small suite of the
# bundled demo recording, most against the demo app's v1 layout (they pass) and two against
# v2 (they fail at step 7, the relabelled button), run with `retrace run --report html`, then
# the report opened from disk in headless Chromium and screenshotted.
# Usage: scripts/report-screenshot.sh [OUT_PNG]   (default docs/report.png)
set -euo pipefail
cd "$(dirname "$0")/.."
out_png="$(realpath -m "${1:-docs/report.png}")"

source scripts/setup.sh
cargo build --locked -q -p retrace-cli
retrace="$CARGO_TARGET_DIR/debug/retrace"

work="$(mktemp -d)"
demo_pid=""
cleanup() {
  [ -n "$demo_pid" ] && kill "$demo_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The demo app on a free port; its first line says where.
"$retrace" serve-demo --port 0 --json > "$work/demo.json" &
demo_pid=$!
for _ in $(seq 1 600); do
  [ -s "$work/demo.json" ] && break
  kill -0 "$demo_pid" 2>/dev/null || { echo "serve-demo exited" >&2; exit 2; }
  sleep 0.1
done
url="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' "$work/demo.json")"

mkdir -p "$work/suite/checkout" "$work/suite/v2"
for name in sign-in new-invoice draft-invoice invoice-totals; do
  cp crates/runner/assets/demo_flow.json "$work/suite/checkout/$name.json"
done
for name in new-invoice sign-in; do
  cp crates/runner/assets/demo_flow.json "$work/suite/v2/$name.json"
done
cat > "$work/suite/retrace.toml" <<EOF
[defaults]
url = "$url"
jobs = 2

[parameters]
username = "demo"
password = { env = "DEMO_PASSWORD" }

[[files]]
match = "v2/*.json"
url = "$url?layout=v2"
tags = ["v2"]
EOF

set +e
(cd "$work/suite" && DEMO_PASSWORD=retrace-demo-pw "$retrace" run . --report html --out report)
status=$?
set -e
if [ "$status" -ne 1 ]; then
  echo "expected the suite to fail (exit 1, the v2 files), got exit $status" >&2
  exit 2
fi

mkdir -p "$(dirname "$out_png")"
"$retrace" screenshot "file://$work/suite/report/report.html" -o "$out_png" --size 1280x1000
echo "wrote $out_png"
