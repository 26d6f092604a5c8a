//! Side-by-side numbers for `scripts/bench-schema.sh`: validation throughput on the shared
//! vectors (the same schema and instances ajv is run on), the cost of a full error report,
//! and schema generation uncached and cached. Prints one JSON object on stdout.
//!
//! Validation is measured several ways on the same instances: `serde_json::Value`s on the
//! specialised validator (the default rows); the same instances in the flat
//! [`CompactJson`] form, each file parsed whole as ajv's side gets it from one
//! `JSON.parse` (the compact rows: the instances are the items of the root array, in one
//! contiguous buffer) and one document per instance (the compact-documents rows); and the
//! `jsonschema` crate on `Value`s (the engine the specialised validator replaced).
//! A further pair of rows includes parsing: each instance as JSON text parsed into
//! [`CompactJson`] then validated, as ajv's side runs `JSON.parse` then validates.
//! `--validation-only` skips generation; `--compact-only` prints the compact figures alone.
//! `--by-kind` prints nanoseconds per invalid instance on the compact path for each kind
//! `invalid_kinds.json` names (`--by-kind --quick`: all kinds together only), to compare with
//! ajv's from `scripts/bench-schema-kinds.cjs`.
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
use retrace_schema::CompactJson;
use retrace_schema::CompactValue;
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

/// A vector file parsed whole into one [`CompactJson`], as ajv's side gets it from one
/// `JSON.parse`: the instances are the root array's items, in one contiguous buffer.
fn instance_set(name: &str) -> CompactJson {
    let text = std::fs::read_to_string(vectors_dir().join("schema").join(name)).unwrap();
    CompactJson::parse(text).unwrap()
}

fn array(name: &str) -> Vec<Value> {
    let Value::Array(items) = read_json(&vectors_dir().join("schema").join(name)) else {
        panic!("{name} is not an array");
    };
    items
}

/// `--compact-only`: the compact figures alone, in nanoseconds per instance (a quick loop
/// while working on the compact path): each file parsed whole (`set_*`), one document per
/// instance (`document_*`), parsing alone, and parsing then validating.
fn compact_only(schema: &CompiledSchema, valid: &[Value], invalid: &[Value]) {
    let texts = |items: &[Value]| -> Vec<String> { items.iter().map(Value::to_string).collect() };
    let (valid_text, invalid_text) = (texts(valid), texts(invalid));
    let parse = |t: &String| CompactJson::parse(t.as_str()).unwrap();
    let valid_compact: Vec<CompactJson> = valid_text.iter().map(parse).collect();
    let invalid_compact: Vec<CompactJson> = invalid_text.iter().map(parse).collect();
    let ns = |per_sec: f64| (1e9 / per_sec).round();
    let (valid_set, invalid_set) = (instance_set("valid.json"), instance_set("invalid.json"));
    let valid_items: Vec<CompactValue> = valid_set.root().items().collect();
    let invalid_items: Vec<CompactValue> = invalid_set.root().items().collect();
    let set_valid_ns = ns(throughput(&valid_items, |v| {
        usize::from(schema.is_valid_compact_value(*v))
    }));
    let set_invalid_ns = ns(throughput(&invalid_items, |v| {
        usize::from(schema.is_valid_compact_value(*v))
    }));
    let valid_ns = ns(throughput(&valid_compact, |d| {
        usize::from(schema.is_valid_compact(d))
    }));
    let invalid_ns = ns(throughput(&invalid_compact, |d| {
        usize::from(schema.is_valid_compact(d))
    }));
    let parse_ns = ns(throughput(&valid_text, |t| parse(t).text().len()));
    let parse_valid_ns = ns(throughput(&valid_text, |t| {
        usize::from(schema.is_valid_compact(&parse(t)))
    }));
    println!(
        "{}",
        json!({
            "set_valid_ns": set_valid_ns,
            "set_invalid_ns": set_invalid_ns,
            "document_valid_ns": valid_ns,
            "document_invalid_ns": invalid_ns,
            "parse_ns": parse_ns,
            "parse_and_validate_valid_ns": parse_valid_ns,
        })
    );
}

/// `--by-kind`: nanoseconds per invalid instance on the compact path, grouped by the kind
/// `invalid_kinds.json` names (compare with `scripts/bench-schema-kinds.cjs` for ajv).
fn by_kind(schema: &CompiledSchema) {
    let set = instance_set("invalid.json");
    let items: Vec<CompactValue> = set.root().items().collect();
    let kinds = array("invalid_kinds.json");
    let mut groups: Vec<(String, Vec<CompactValue>)> = Vec::new();
    for (item, kind) in items.iter().zip(&kinds) {
        let kind = kind.as_str().unwrap_or_default();
        match groups.iter_mut().find(|(k, _)| k == kind) {
            Some((_, group)) => group.push(*item),
            None => groups.push((kind.to_owned(), vec![*item])),
        }
    }
    let mut out = serde_json::Map::new();
    let quick = std::env::args().any(|a| a == "--quick");
    for (kind, group) in groups.iter().filter(|_| !quick) {
        let per_sec = throughput(group, |v| usize::from(schema.is_valid_compact_value(*v)));
        out.insert(kind.clone(), json!((1e9 / per_sec).round()));
    }
    let per_sec = throughput(&items, |v| usize::from(schema.is_valid_compact_value(*v)));
    out.insert("all".to_owned(), json!((1e9 / per_sec).round()));
    let valid_set = instance_set("valid.json");
    let valid: Vec<CompactValue> = valid_set.root().items().collect();
    let per_sec = throughput(&valid, |v| usize::from(schema.is_valid_compact_value(*v)));
    out.insert("valid".to_owned(), json!((1e9 / per_sec).round()));
    // A few hundred instances, whose buffer stays in the core's caches.
    let per_sec = throughput(&valid[..300], |v| {
        usize::from(schema.is_valid_compact_value(*v))
    });
    out.insert("valid_cached".to_owned(), json!((1e9 / per_sec).round()));
    let per_sec = throughput(&items[..300], |v| {
        usize::from(schema.is_valid_compact_value(*v))
    });
    out.insert("invalid_cached".to_owned(), json!((1e9 / per_sec).round()));
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
        by_kind(&schema);
        return;
    }
    if std::env::args().any(|a| a == "--compact-only") {
        compact_only(&schema, &valid, &invalid);
        return;
    }
    let valid_is_valid = throughput(&valid, |v| usize::from(schema.is_valid(v)));
    let valid_report = throughput(&valid, |v| schema.validate(v).errors.len());
    let invalid_is_valid = throughput(&invalid, |v| usize::from(schema.is_valid(v)));
    let invalid_report = throughput(&invalid, |v| schema.validate(v).errors.len());
    let report_ns = 1e9 / invalid_report;
    // The same instances parsed once into the flat form, as ajv gets them parsed once into
    // JavaScript objects: each file by one parse (as ajv's side runs one `JSON.parse`), the
    // instances the items of its root array, in one contiguous buffer per file.
    let (valid_set, invalid_set) = (instance_set("valid.json"), instance_set("invalid.json"));
    let valid_items: Vec<CompactValue> = valid_set.root().items().collect();
    let invalid_items: Vec<CompactValue> = invalid_set.root().items().collect();
    assert_eq!(valid_items.len(), valid.len());
    assert_eq!(invalid_items.len(), invalid.len());
    assert!(
        valid_items
            .iter()
            .all(|v| schema.is_valid_compact_value(*v))
    );
    assert!(
        invalid_items
            .iter()
            .all(|v| !schema.is_valid_compact_value(*v))
    );
    let compact_valid = throughput(&valid_items, |v| {
        usize::from(schema.is_valid_compact_value(*v))
    });
    let compact_invalid = throughput(&invalid_items, |v| {
        usize::from(schema.is_valid_compact_value(*v))
    });
    let compact_report = throughput(&invalid_items, |v| {
        schema.validate_compact_value(*v).errors.len()
    });
    // One `CompactJson` per instance (each its own buffer, as the structured speaker
    // parses one answer).
    let documents = |items: &[Value]| -> Vec<CompactJson> {
        items
            .iter()
            .map(|v| CompactJson::parse(v.to_string()).unwrap())
            .collect()
    };
    let (valid_documents, invalid_documents) = (documents(&valid), documents(&invalid));
    assert!(valid_documents.iter().all(|d| schema.is_valid_compact(d)));
    assert!(
        invalid_documents
            .iter()
            .all(|d| !schema.is_valid_compact(d))
    );
    let documents_valid = throughput(&valid_documents, |d| {
        usize::from(schema.is_valid_compact(d))
    });
    let documents_invalid = throughput(&invalid_documents, |d| {
        usize::from(schema.is_valid_compact(d))
    });
    // Parsing included: the instances as JSON text (as ajv's side gets them from
    // `JSON.stringify`), parsed into the compact form then validated, against ajv's
    // `JSON.parse` then validate.
    let (valid_text, invalid_text): (Vec<String>, Vec<String>) = (
        valid.iter().map(Value::to_string).collect(),
        invalid.iter().map(Value::to_string).collect(),
    );
    let parse_valid = throughput(&valid_text, |t| {
        usize::from(schema.is_valid_compact(&CompactJson::parse(t.as_str()).unwrap()))
    });
    let parse_invalid = throughput(&invalid_text, |t| {
        usize::from(schema.is_valid_compact(&CompactJson::parse(t.as_str()).unwrap()))
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
                "compact_per_sec": {
                    "valid": compact_valid,
                    "invalid": compact_invalid,
                    "invalid_full_report": compact_report,
                },
                "compact_documents_per_sec": { "valid": documents_valid, "invalid": documents_invalid },
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
        "compact_per_sec": {
            "valid": compact_valid,
            "invalid": compact_invalid,
            "invalid_full_report": compact_report,
        },
        "compact_documents_per_sec": { "valid": documents_valid, "invalid": documents_invalid },
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
