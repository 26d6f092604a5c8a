//! Side-by-side numbers for `scripts/bench-schema.sh`: validation throughput on the shared
//! vectors (the same schema and instances ajv is run on), the cost of a full error report,
//! and schema generation uncached and cached. Prints one JSON object on stdout.
//!
//! Validation runs on `serde_json::Value`s, as the structured speaker validates each model
//! answer: on the specialised validator (the default rows) and on the `jsonschema` crate
//! (the engine the specialised validator replaced). A further pair of rows includes parsing:
//! each instance as JSON text parsed into a `Value` then validated, as ajv's side runs
//! `JSON.parse` then validates. `--validation-only` skips generation; `--by-kind` prints
//! nanoseconds per invalid instance for each kind `invalid_kinds.json` names (`--by-kind
//! --quick`: all kinds together only), to compare with ajv's from
//! `scripts/bench-schema-kinds.cjs`.
//!
//! Run it through the script, or alone: `cargo bench -p retrace-schema --bench vs_ajv`.
//!
//! Time is the thread's CPU time from `/proc/self/schedstat` (the ajv script reads the same
//! counter), so a machine busy with other work slows neither side's numbers unevenly.

#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    reason = "a benchmark report binary"
)]

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

use retrace_schema::AnalysisOptions;
use retrace_schema::AnalysisType;
use retrace_schema::ComparisonOptions;
use retrace_schema::CompiledSchema;
use retrace_schema::DEFAULT_VERSION;
use retrace_schema::ResponseOptions;
use retrace_schema::SchemaKind;
use retrace_schema::SchemaManager;
use retrace_test_support::read_json;
use retrace_test_support::vectors_dir;
use serde_json::Value;
use serde_json::json;

const ROUND: Duration = Duration::from_secs(1);

/// CPU time this thread has used, from `/proc/self/schedstat` (nanoseconds on the CPU).
fn cpu_time() -> Duration {
    let text = std::fs::read_to_string("/proc/self/schedstat").unwrap();
    let nanos: u64 = text.split_whitespace().next().unwrap().parse().unwrap();
    Duration::from_nanos(nanos)
}

/// Runs `f` over `items` repeatedly for about [`ROUND`] of CPU time; returns items per
/// CPU second.
fn throughput<T>(items: &[T], mut f: impl FnMut(&T) -> usize) -> f64 {
    // Warm up once.
    let mut sink = 0usize;
    for item in items {
        sink = sink.wrapping_add(f(item));
    }
    let start = cpu_time();
    let wall = Instant::now();
    let mut done = 0usize;
    while cpu_time() - start < ROUND && wall.elapsed() < ROUND * 20 {
        for item in items {
            sink = sink.wrapping_add(f(item));
        }
        done += items.len();
    }
    black_box(sink);
    done as f64 / (cpu_time() - start).as_secs_f64()
}

/// Mean CPU nanoseconds of `f` over at least [`ROUND`] / 4.
fn nanos(mut f: impl FnMut() -> usize) -> f64 {
    let mut sink = 0usize;
    for _ in 0..1_000 {
        sink = sink.wrapping_add(f());
    }
    let start = cpu_time();
    let wall = Instant::now();
    let mut runs = 0u64;
    while cpu_time() - start < ROUND / 4 && wall.elapsed() < ROUND * 5 {
        for _ in 0..1_000 {
            sink = sink.wrapping_add(f());
        }
        runs += 1_000;
    }
    black_box(sink);
    (cpu_time() - start).as_nanos() as f64 / runs as f64
}

fn array(name: &str) -> Vec<Value> {
    let Value::Array(items) = read_json(&vectors_dir().join("schema").join(name)) else {
        panic!("{name} is not an array");
    };
    items
}

/// `--by-kind`: nanoseconds per invalid instance, grouped by the kind `invalid_kinds.json`
/// names (compare with `scripts/bench-schema-kinds.cjs` for ajv).
fn by_kind(schema: &CompiledSchema, valid: &[Value], invalid: &[Value]) {
    let kinds = array("invalid_kinds.json");
    let mut groups: Vec<(String, Vec<&Value>)> = Vec::new();
    for (item, kind) in invalid.iter().zip(&kinds) {
        let kind = kind.as_str().unwrap_or_default();
        match groups.iter_mut().find(|(k, _)| k == kind) {
            Some((_, group)) => group.push(item),
            None => groups.push((kind.to_owned(), vec![item])),
        }
    }
    let mut out = serde_json::Map::new();
    let quick = std::env::args().any(|a| a == "--quick");
    for (kind, group) in groups.iter().filter(|_| !quick) {
        let per_sec = throughput(group, |v| usize::from(schema.is_valid(v)));
        out.insert(kind.clone(), json!((1e9 / per_sec).round()));
    }
    let per_sec = throughput(invalid, |v| usize::from(schema.is_valid(v)));
    out.insert("all".to_owned(), json!((1e9 / per_sec).round()));
    let per_sec = throughput(valid, |v| usize::from(schema.is_valid(v)));
    out.insert("valid".to_owned(), json!((1e9 / per_sec).round()));
    println!("{}", Value::Object(out));
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let schema = CompiledSchema::compile(Arc::new(read_json(
        &vectors_dir().join("schema/schema.json"),
    )))
    .unwrap();
    let valid = array("valid.json");
    let invalid = array("invalid.json");
    assert!(valid.iter().all(|v| schema.is_valid(v)));
    assert!(invalid.iter().all(|v| !schema.is_valid(v)));

    if std::env::args().any(|a| a == "--by-kind") {
        by_kind(&schema, &valid, &invalid);
        return;
    }
    let valid_is_valid = throughput(&valid, |v| usize::from(schema.is_valid(v)));
    let valid_report = throughput(&valid, |v| schema.validate(v).errors.len());
    let invalid_is_valid = throughput(&invalid, |v| usize::from(schema.is_valid(v)));
    let invalid_report = throughput(&invalid, |v| schema.validate(v).errors.len());
    let report_ns = 1e9 / invalid_report;
    // Parsing included: the instances as JSON text (as ajv's side gets them from
    // `JSON.stringify`), parsed into a `Value` then validated, against ajv's `JSON.parse`
    // then validate.
    let (valid_text, invalid_text): (Vec<String>, Vec<String>) = (
        valid.iter().map(Value::to_string).collect(),
        invalid.iter().map(Value::to_string).collect(),
    );
    let parse_valid = throughput(&valid_text, |t| {
        usize::from(schema.is_valid(&serde_json::from_str::<Value>(t).unwrap()))
    });
    let parse_invalid = throughput(&invalid_text, |t| {
        usize::from(schema.is_valid(&serde_json::from_str::<Value>(t).unwrap()))
    });
    // The `jsonschema` crate on the same instances: the engine the specialised one replaced.
    let reference = CompiledSchema::compile_reference(Arc::clone(schema.schema())).unwrap();
    let reference_valid = throughput(&valid, |v| usize::from(reference.is_valid(v)));
    let reference_invalid = throughput(&invalid, |v| usize::from(reference.is_valid(v)));
    let reference_report = throughput(&invalid, |v| reference.validate(v).errors.len());
    if std::env::args().any(|a| a == "--validation-only") {
        println!(
            "{}",
            json!({
                "valid_per_sec": { "is_valid": valid_is_valid, "validate": valid_report },
                "invalid_per_sec": { "is_valid": invalid_is_valid, "full_report": invalid_report },
                "parse_and_validate_per_sec": { "valid": parse_valid, "invalid": parse_invalid },
                "reference_per_sec": {
                    "valid": reference_valid,
                    "invalid": reference_invalid,
                    "invalid_full_report": reference_report,
                },
            })
        );
        return;
    }

    let manager = SchemaManager::new();
    let mut kinds = vec![
        SchemaKind::Response(ResponseOptions::default()),
        SchemaKind::Comparison(ComparisonOptions::default()),
    ];
    kinds.extend(AnalysisType::ALL.map(|t| SchemaKind::Analysis(t, AnalysisOptions::default())));
    let mut generation = serde_json::Map::new();
    let mut worst_uncached: f64 = 0.0;
    let mut worst_cached: f64 = 0.0;
    for kind in kinds {
        let name = match kind {
            SchemaKind::Response(_) => "response".to_owned(),
            SchemaKind::Comparison(_) => "comparison".to_owned(),
            SchemaKind::Analysis(t, _) => format!("analysis:{t}"),
        };
        let uncached = nanos(|| match black_box(kind).generate(DEFAULT_VERSION) {
            Value::Object(map) => map.len(),
            _ => 0,
        });
        manager.schema(kind);
        let cached = nanos(|| usize::from(manager.schema(black_box(kind)).is_object()));
        worst_uncached = worst_uncached.max(uncached);
        worst_cached = worst_cached.max(cached);
        generation.insert(
            name,
            json!({ "uncached_ns": uncached, "cached_ns": cached }),
        );
    }

    let report = json!({
        "instances": { "valid": valid.len(), "invalid": invalid.len() },
        "valid_per_sec": { "is_valid": valid_is_valid, "validate": valid_report },
        "invalid_per_sec": { "is_valid": invalid_is_valid, "full_report": invalid_report },
        "full_report_mean_ns": report_ns,
        "parse_and_validate_per_sec": { "valid": parse_valid, "invalid": parse_invalid },
        "reference_per_sec": {
            "valid": reference_valid,
            "invalid": reference_invalid,
            "invalid_full_report": reference_report,
        },
        "generation": generation,
        "generation_worst_ns": { "uncached": worst_uncached, "cached": worst_cached },
    });
    println!("{report}");
}
