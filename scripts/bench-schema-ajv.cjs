// ajv side of scripts/bench-schema.sh: the shared vectors' schema.json with ajv 8.20.0 and
// ajv-formats 3.0.1 (the setup the vectors were made with), throughput on valid.json and
// invalid.json, default options (first error) and allErrors (full report). Prints JSON.
'use strict';
const fs = require('fs');
const path = require('path');
const Ajv = require('ajv');
const addFormats = require('ajv-formats');

const dir = process.argv[2];
const load = (name) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
const schema = load('schema.json');
const valid = load('valid.json');
const invalid = load('invalid.json');

function compile(options) {
  const ajv = new Ajv(options);
  addFormats(ajv);
  return ajv.compile(schema);
}

// CPU time of the main thread in seconds, from the counter the Rust side reads too, so a
// busy machine slows neither side unevenly.
const cpu = () => Number(fs.readFileSync('/proc/self/schedstat', 'utf8').split(' ')[0]) / 1e9;
const ROUND_S = 1;
function throughput(items, f) {
  let sink = 0;
  for (const item of items) sink += f(item);
  const start = cpu();
  const wall = Date.now();
  let done = 0;
  for (;;) {
    for (const item of items) sink += f(item);
    done += items.length;
    const elapsed = cpu() - start;
    if (elapsed >= ROUND_S || Date.now() - wall > ROUND_S * 20000) {
      if (sink === -1) console.error(sink);
      return done / elapsed;
    }
  }
}

const first = compile({});
const all = compile({ allErrors: true });
if (!valid.every((v) => first(v))) throw new Error('ajv rejected a valid vector');
if (invalid.some((v) => first(v))) throw new Error('ajv accepted an invalid vector');

// The same instances as JSON text, for the parse-and-validate rows (JSON.parse then
// validate, as the Rust side parses text into a serde_json::Value then validates).
const validText = valid.map((v) => JSON.stringify(v));
const invalidText = invalid.map((v) => JSON.stringify(v));

const report = {
  ajv: require('ajv/package.json').version,
  ajv_formats: require('ajv-formats/package.json').version,
  node: process.version,
  valid_per_sec: {
    default: throughput(valid, (v) => (first(v) ? 1 : 0)),
    all_errors: throughput(valid, (v) => (all(v) ? 1 : 0)),
  },
  invalid_per_sec: {
    default: throughput(invalid, (v) => (first(v) ? 0 : first.errors.length)),
    all_errors: throughput(invalid, (v) => (all(v) ? 0 : all.errors.length)),
  },
  parse_and_validate_per_sec: {
    valid: throughput(validText, (t) => (first(JSON.parse(t)) ? 1 : 0)),
    invalid: throughput(invalidText, (t) => (first(JSON.parse(t)) ? 0 : first.errors.length)),
  },
};
console.log(JSON.stringify(report));
