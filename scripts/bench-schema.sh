#!/usr/bin/env bash
# Benchmarks retrace-schema against ajv, side by side, on the same schema and instances
# (shared/vectors/schema: schema.json, valid.json, invalid.json) in one run, and prints
# the ratios next to the issue's targets. Both sides validate instances parsed beforehand
# (parsing excluded on both); the sides alternate for BENCH_ROUNDS rounds (default 2) and
# each keeps its best round, with the load average printed alongside.
#
# Installs ajv@8.20.0 and ajv-formats@3.0.1 with npm into $HOME/.cache/retrace-bench/ on
# first use. Needs node and npm. Usage: scripts/bench-schema.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache="${HOME}/.cache/retrace-bench"
vectors="${RETRACE_SHARED_DIR:-$root/../shared}/vectors/schema"

installed() {
  node -e "process.exit(require('$cache/node_modules/$1/package.json').version === '$2' ? 0 : 1)" 2>/dev/null
}
if ! installed ajv 8.20.0 || ! installed ajv-formats 3.0.1; then
  echo "installing ajv@8.20.0 ajv-formats@3.0.1 into $cache" >&2
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-audit --no-fund --silent ajv@8.20.0 ajv-formats@3.0.1 >&2
fi

# Build first, so that compiling does not load the machine while ajv runs.
(cd "$root" && cargo bench -q -p retrace-schema --bench vs_ajv --no-run 2>/dev/null)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# Alternate the two sides (ajv, retrace, ajv, retrace) and keep each side's best round per
# figure, so a burst of load from other processes penalises neither side alone.
ajv_runs=()
rust_runs=()
for round in $(seq 1 "${BENCH_ROUNDS:-2}"); do
  echo "round $round: running ajv…" >&2
  ajv_runs+=("$(NODE_PATH="$cache/node_modules" node "$root/scripts/bench-schema-ajv.cjs" "$vectors")")
  echo "round $round: running retrace-schema (cargo bench, release build)…" >&2
  rust_runs+=("$(cd "$root" && cargo bench -q -p retrace-schema --bench vs_ajv 2>/dev/null | tail -n 1)")
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
best() {
  node -e '
    const runs = process.argv.slice(1).map((s) => JSON.parse(s));
    // Throughputs (per_sec): higher is better; times (_ns): lower is better.
    const merge = (a, b, lower) => {
      if (typeof a === "number") return lower ? Math.min(a, b) : Math.max(a, b);
      if (a && typeof a === "object") {
        const out = {};
        for (const k of Object.keys(a)) out[k] = merge(a[k], b[k], lower || /_ns$/.test(k));
        return out;
      }
      return a;
    };
    console.log(JSON.stringify(runs.reduce((a, b) => merge(a, b, false))));' "$@"
}
ajv=$(best "${ajv_runs[@]}")
rust=$(best "${rust_runs[@]}")

node - "$ajv" "$rust" "$load_before" "$load_after" "${BENCH_ROUNDS:-2}" <<'JS'
const [ajv, rust] = process.argv.slice(2, 4).map((s) => JSON.parse(s));
const [loadBefore, loadAfter, rounds] = process.argv.slice(4);
const f = (n) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
const x = (n) => n.toFixed(2) + 'x';
const rows = [
  ['valid, is_valid vs ajv', rust.valid_per_sec.is_valid, ajv.valid_per_sec.default],
  ['valid, full result vs ajv', rust.valid_per_sec.validate, ajv.valid_per_sec.default],
  ['invalid, is_valid vs ajv (first error)', rust.invalid_per_sec.is_valid, ajv.invalid_per_sec.default],
  ['invalid, full report vs ajv (first error)', rust.invalid_per_sec.full_report, ajv.invalid_per_sec.default],
  ['invalid, full report vs ajv allErrors', rust.invalid_per_sec.full_report, ajv.invalid_per_sec.all_errors],
  ['parse + validate: valid vs JSON.parse + ajv', rust.parse_and_validate_per_sec.valid, ajv.parse_and_validate_per_sec.valid, false],
  ['parse + validate: invalid vs JSON.parse + ajv', rust.parse_and_validate_per_sec.invalid, ajv.parse_and_validate_per_sec.invalid, false],
  ['jsonschema crate: valid vs ajv', rust.reference_per_sec.valid, ajv.valid_per_sec.default],
  ['jsonschema crate: invalid vs ajv', rust.reference_per_sec.invalid, ajv.invalid_per_sec.default],
];
console.log('rows: serde_json::Value instances, as the structured speaker validates each answer (default);');
console.log('text parsed into a Value then validated vs JSON.parse then ajv (parse + validate); and the');
console.log('jsonschema crate on Value instances (the engine the specialised validator replaced)');
console.log(`ajv ${ajv.ajv} + ajv-formats ${ajv.ajv_formats} on node ${ajv.node}; ` +
  `${rust.instances.valid} valid and ${rust.instances.invalid} invalid instances`);
console.log('like for like: both sides validate instances parsed once beforehand (ajv: JavaScript');
console.log('objects from JSON.parse; retrace: serde_json::Value);');
console.log('parsing is excluded on both sides, except in the parse + validate rows, where both parse');
console.log('each instance from its JSON text. Time is each thread\'s CPU time (/proc/self/schedstat).');
console.log(`best of ${rounds} alternating rounds per side; load average before ${loadBefore}, after ${loadAfter}`);
console.log('');
console.log('instances per CPU second                        retrace        ajv    ratio  (target >= 2x)');
// Rows marked `false` are shown for honesty (parsing included) and carry no target.
for (const [name, ours, theirs, target = true] of rows) {
  const ok = !target ? '(no target)' : ours / theirs >= 2 ? 'ok' : 'BELOW';
  console.log(`${name.padEnd(45)} ${f(ours).padStart(10)} ${f(theirs).padStart(10)} ${x(ours / theirs).padStart(8)}  ${ok}`);
}
console.log('');
const report = rust.full_report_mean_ns;
console.log(`full error report, mean CPU time per invalid instance: ${(report / 1000).toFixed(2)} µs (target < 10 µs) ${report < 10000 ? 'ok' : 'ABOVE'}`);
const g = rust.generation_worst_ns;
console.log(`schema generation, slowest kind: uncached ${(g.uncached / 1000).toFixed(2)} µs (target < 100 µs) ${g.uncached < 100000 ? 'ok' : 'ABOVE'}, ` +
  `cached ${g.cached.toFixed(0)} ns (target < 1 µs) ${g.cached < 1000 ? 'ok' : 'ABOVE'}`);
for (const [name, t] of Object.entries(rust.generation)) {
  console.log(`  ${name.padEnd(30)} uncached ${(t.uncached_ns / 1000).toFixed(2).padStart(7)} µs   cached ${t.cached_ns.toFixed(0).padStart(5)} ns`);
}
JS
