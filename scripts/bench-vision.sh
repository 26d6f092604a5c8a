#!/usr/bin/env bash
# Benchmarks retrace-vision against its peers on the same shared images, in one run, and
# prints the ratios the vision issue asks for:
#   region hash (100 px, crop included)    vs Python imagehash   (want >= 10x faster)
#   decode + pHash of a 1280x800 PNG       vs Python imagehash   (want <= 1/5 of the time)
#   diff of a pre-decoded 1920x1080 pair   vs npm pixelmatch     (want <= 1/3 of the time)
#   `retrace diff` end to end (+ diff PNG) vs the odiff CLI      (want faster)
#   search_near, radius 150, 1280x800                             (want < 30 ms)
#
# Peers are installed on first use under $HOME/.cache/retrace-bench/ (a Python venv with
# imagehash 4.3.2; npm pixelmatch 7.2.0, pngjs 7.0.0 and odiff-bin 4.5.0). Ours are measured
# with the criterion benches in crates/vision/benches/vision.rs (median) and a release build
# of `retrace`. Usage: scripts/bench-vision.sh   (RETRACE_SHARED_DIR overrides ../shared)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${RETRACE_SHARED_DIR:-$ROOT/../shared}
VECTORS=$SHARED/vectors
SCREENS=$VECTORS/images/screens
CACHE=$HOME/.cache/retrace-bench
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
SMALL=$SCREENS/rust_std_index_1280x800.png
LARGE_A=$SCREENS/rust_book_data_types_1920x1080.png
LARGE_B=$SCREENS/rust_book_data_types_1920x1080__text.png
export RETRACE_SHARED_DIR=$SHARED

mkdir -p "$CACHE"
echo "== peers (in $CACHE)" >&2
if ! "$CACHE/venv/bin/python" -c 'import imagehash' 2>/dev/null; then
    python3 -m venv "$CACHE/venv"
    "$CACHE/venv/bin/pip" install --quiet imagehash==4.3.2
fi
if [ "$(node -p "require('$CACHE/node_modules/pixelmatch/package.json').version" 2>/dev/null)" != 7.2.0 ] \
    || [ ! -e "$CACHE/node_modules/.bin/odiff" ]; then
    (cd "$CACHE" && { [ -f package.json ] || npm init -y >/dev/null; } \
        && npm install --no-audit --no-fund pixelmatch@7.2.0 pngjs@7.0.0 odiff-bin@4.5.0 >&2)
fi

echo "== ours: release build and criterion benches" >&2
(cd "$ROOT" && cargo build --release -p retrace-cli >&2)
(cd "$ROOT" && cargo bench -p retrace-vision --bench vision -- \
    --warm-up-time 1 --measurement-time 4 >&2)
RETRACE=$TARGET/release/retrace

echo "== peers: imagehash, pixelmatch, odiff" >&2
PY_OUT=$("$CACHE/venv/bin/python" - "$SMALL" <<'PY'
import statistics, sys, time
import imagehash
from PIL import Image

path = sys.argv[1]
img = Image.open(path)
img.load()

def median_ns(fn, n, batches=5):
    fn()
    times = []
    for _ in range(batches):
        t = time.perf_counter()
        for i in range(n):
            fn(i)
        times.append((time.perf_counter() - t) / n * 1e9)
    return statistics.median(times)

def region(i=0):
    x = 640 + i % 7
    return imagehash.phash(img.crop((x - 50, 350, x + 50, 450)), 8)

def decode_phash(i=0):
    return imagehash.phash(Image.open(path), 8)

print("imagehash_region_ns", median_ns(region, 500))
print("imagehash_decode_phash_ns", median_ns(decode_phash, 10))
PY
)
NODE_OUT=$(cd "$CACHE" && node --input-type=module - "$LARGE_A" "$LARGE_B" <<'JS'
import fs from 'fs';
import { PNG } from 'pngjs';
import pixelmatch from 'pixelmatch';
const [a, b] = process.argv.slice(2).map((p) => PNG.sync.read(fs.readFileSync(p)));
const out = new Uint8Array(a.data.length);
const run = () => pixelmatch(a.data, b.data, out, a.width, a.height, { threshold: 0.1 });
for (let i = 0; i < 3; i++) run();
const times = [];
for (let batch = 0; batch < 5; batch++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < 5; i++) run();
    times.push(Number(process.hrtime.bigint() - t) / 5);
}
times.sort((x, y) => x - y);
console.log('pixelmatch_diff_ns', times[2]);
JS
)

echo "== end to end: retrace diff vs odiff (decode both, diff, write the diff PNG)" >&2
E2E_OUT=$("$CACHE/venv/bin/python" - "$RETRACE" "$CACHE/node_modules/.bin/odiff" "$LARGE_A" "$LARGE_B" <<'PY'
import statistics, subprocess, sys, tempfile, time, os
retrace, odiff, a, b = sys.argv[1:5]
out = tempfile.mkdtemp()
cmds = {
    "retrace_cli_diff_ns": [retrace, "diff", a, b, "--out", os.path.join(out, "r.png")],
    "odiff_cli_diff_ns": [odiff, a, b, os.path.join(out, "o.png")],
}
times = {k: [] for k in cmds}
for _ in range(2):
    for cmd in cmds.values():
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for _ in range(9):
    for key, cmd in cmds.items():  # interleaved, so both see the same machine load
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times[key].append((time.perf_counter() - t) * 1e9)
for key, values in times.items():
    print(key, statistics.median(values))
PY
)

python3 - "$TARGET/criterion" <<PY
import json, os, sys
crit = sys.argv[1]
def ours(name):
    with open(os.path.join(crit, name, "new", "estimates.json")) as f:
        return json.load(f)["median"]["point_estimate"]
peers = {}
for line in """$PY_OUT
$NODE_OUT
$E2E_OUT""".splitlines():
    if line.strip():
        key, value = line.split()
        peers[key] = float(value)
rows = [
    ("region pHash 100px (crop incl.)", ours("region_hash_100px_phash"), peers["imagehash_region_ns"], "imagehash", "speedup >= 10"),
    ("decode + pHash 1280x800", ours("decode_phash_1280x800"), peers["imagehash_decode_phash_ns"], "imagehash", "ours/peer <= 0.20"),
    ("diff 1920x1080 pre-decoded (with diff image)", ours("diff_1920x1080_with_image"), peers["pixelmatch_diff_ns"], "pixelmatch", "ours/peer <= 0.33"),
    ("diff CLI end to end, writes diff PNG", peers["retrace_cli_diff_ns"], peers["odiff_cli_diff_ns"], "odiff", "ours/peer < 1"),
]
print(f"{'operation':48} {'ours ms':>9} {'peer ms':>9} {'peer':>11} {'ours/peer':>10} {'speedup':>8}  goal")
for name, mine, theirs, peer, goal in rows:
    print(f"{name:48} {mine/1e6:9.3f} {theirs/1e6:9.3f} {peer:>11} {mine/theirs:10.3f} {theirs/mine:7.1f}x  {goal}")
search = ours("search_near_radius_150_1280x800")
print(f"{'search_near radius 150 on 1280x800':48} {search/1e6:9.3f} {'':>9} {'':>11} {'':>10} {'':>8}  goal < 30 ms")
PY
