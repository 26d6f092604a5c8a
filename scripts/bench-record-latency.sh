#!/usr/bin/env bash
# What `retrace record` adds to the person's experience in the browser (issue 42): the delay
# from an input (an xdotool click, then a key, under a private Xvfb on a headed Chromium) to
# the page's next paint after it, with the recorder and without (the same Chromium with the
# flags retrace launches it with), in alternating rounds of SAMPLES inputs of each kind.
# Prints each round's medians, then the medians over all rounds, the added delay and the ratio
# (goal: under 16 ms added at the median). The work is in scripts/bench_record_latency.py.
# Usage: scripts/bench-record-latency.sh [SAMPLES] [ROUNDS]   (BENCH_DEBUG=1: the debug build)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
build_retrace_for_bench
python3 scripts/bench_record_latency.py "$retrace" "${1:-20}" "${2:-2}"
