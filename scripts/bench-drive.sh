#!/usr/bin/env bash
# Drive benchmark (issue 4): the replay inner loop in real headless Chromium on the demo app at
# 1280x800 (screenshot over CDP + PNG decode + region pHash) and one click dispatch, each as
# p50/p95/max with PASS/MISS against the targets (loop p50 <= 60 ms, click p50 <= 5 ms).
# Then (issue 15) what replay's semantic checks cost per step against a screenshot in the same
# run: element_at, page_activity and find_elements, as p50 ratios to Backend::screenshot.
# Prints the machine load before and after, since both are wall-clock timings.
# Usage: scripts/bench-drive.sh [ITERATIONS]   (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
iterations="${1:-60}"
echo "load before: $(uptime)"
cargo bench --locked -p retrace-drive --bench replay_loop -- --iterations "$iterations"
cargo bench --locked -p retrace-drive --bench element_at -- --iterations "$iterations"
echo "load after:  $(uptime)"
