// Per-kind ajv timings for the invalid vectors (invalid_kinds.json names each instance's
// kind): nanoseconds per instance, first error, default options as in bench-schema-ajv.cjs.
// Prints JSON { kind: ns }. Usage: NODE_PATH=... node scripts/bench-schema-kinds.cjs DIR
'use strict';
const fs = require('fs');
const path = require('path');
const Ajv = require('ajv');
const addFormats = require('ajv-formats');

const dir = process.argv[2];
const load = (name) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
const schema = load('schema.json');
const invalid = load('invalid.json');
const kinds = load('invalid_kinds.json');
const ajv = new Ajv({});
addFormats(ajv);
const first = ajv.compile(schema);
const cpu = () => Number(fs.readFileSync('/proc/self/schedstat', 'utf8').split(' ')[0]) / 1e9;
function ns(items) {
  let sink = 0;
  for (const item of items) sink += first(item) ? 0 : first.errors.length;
  const start = cpu();
  let done = 0;
  while (cpu() - start < 0.25) {
    for (const item of items) sink += first(item) ? 0 : first.errors.length;
    done += items.length;
  }
  if (sink === -1) console.error(sink);
  return ((cpu() - start) * 1e9) / done;
}
const groups = {};
invalid.forEach((v, i) => (groups[kinds[i]] ??= []).push(v));
const out = {};
for (const [kind, items] of Object.entries(groups)) out[kind] = Math.round(ns(items));
out.all = Math.round(ns(invalid));
console.log(JSON.stringify(out));
