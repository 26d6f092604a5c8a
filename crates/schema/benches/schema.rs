//! Criterion benchmarks: schema generation (uncached and cached), validation of the shared
//! vectors (valid, and invalid with the full error report), an agent response with its
//! semantic checks, and a large element-detection answer.

#![allow(
    clippy::unwrap_used,
    reason = "benchmark setup; a failure should stop it"
)]

use std::hint::black_box;
use std::sync::Arc;

use criterion::Criterion;
use criterion::criterion_group;
use criterion::criterion_main;
use retrace_schema::AnalysisOptions;
use retrace_schema::AnalysisType;
use retrace_schema::ComparisonOptions;
use retrace_schema::CompiledSchema;
use retrace_schema::DEFAULT_VERSION;
use retrace_schema::ResponseOptions;
use retrace_schema::SchemaKind;
use retrace_schema::SchemaManager;
use retrace_schema::ValidationContext;
use retrace_schema::parse_model_answer;
use retrace_test_support::read_json;
use retrace_test_support::vectors_dir;
use serde_json::Value;
use serde_json::json;

fn kinds() -> Vec<(String, SchemaKind)> {
    let mut kinds = vec![
        (
            "response".to_owned(),
            SchemaKind::Response(ResponseOptions::default()),
        ),
        (
            "comparison".to_owned(),
            SchemaKind::Comparison(ComparisonOptions::default()),
        ),
    ];
    for t in AnalysisType::ALL {
        kinds.push((
            format!("analysis-{}", t.as_str().to_ascii_lowercase()),
            SchemaKind::Analysis(t, AnalysisOptions::default()),
        ));
    }
    kinds
}

fn generation(c: &mut Criterion) {
    let mut group = c.benchmark_group("generate");
    let manager = SchemaManager::new();
    for (name, kind) in kinds() {
        group.bench_function(format!("uncached/{name}"), |b| {
            b.iter(|| black_box(kind).generate(DEFAULT_VERSION))
        });
        manager.schema(kind);
        group.bench_function(format!("cached/{name}"), |b| {
            b.iter(|| manager.schema(black_box(kind)))
        });
    }
    group.finish();
}

fn vectors(name: &str) -> Vec<Value> {
    let Value::Array(items) = read_json(&vectors_dir().join("schema").join(name)) else {
        panic!("{name} is not an array");
    };
    items
}

fn validation(c: &mut Criterion) {
    let schema = CompiledSchema::compile(Arc::new(read_json(
        &vectors_dir().join("schema/schema.json"),
    )))
    .unwrap();
    let valid = vectors("valid.json");
    let invalid = vectors("invalid.json");
    let mut group = c.benchmark_group("validate");
    let mut i = 0;
    group.bench_function("vectors/valid", |b| {
        b.iter(|| {
            i = (i + 1) % valid.len();
            schema.validate(&valid[i])
        });
    });
    let mut i = 0;
    group.bench_function("vectors/invalid_full_report", |b| {
        b.iter(|| {
            i = (i + 1) % invalid.len();
            schema.validate(&invalid[i])
        });
    });
    let manager = SchemaManager::new();
    let context = ValidationContext::default();
    let kind = SchemaKind::Response(ResponseOptions::default());
    let answer: Value =
        serde_json::from_str(include_str!("../tests/fixtures/seed_response_retry.json")).unwrap();
    group.bench_function("response/seed_retry_with_checks", |b| {
        b.iter(|| {
            manager
                .validate(kind, black_box(&answer), &context)
                .unwrap()
        });
    });
    let mut broken = answer.clone();
    broken["command"]["parameters"]["selector"] = json!("");
    broken["decision"]["action"] = json!("CONTINUE");
    group.bench_function("response/two_errors_with_checks", |b| {
        b.iter(|| {
            manager
                .validate(kind, black_box(&broken), &context)
                .unwrap()
        });
    });
    let elements: Vec<Value> = (0..5_000)
        .map(|i| {
            json!({
                "type": "link", "confidence": 0.5, "interactable": true, "selector": format!("#item-{i}"),
                "boundingBox": { "x": (i % 100) * 19, "y": (i / 100) * 10, "width": 18, "height": 9 }
            })
        })
        .collect();
    let large = json!({
        "analysisType": "ELEMENT_DETECTION", "summary": "grid", "confidence": 0.6,
        "visualElements": elements, "metadata": { "imageSize": { "width": 1920, "height": 1080 } }
    });
    let kind = SchemaKind::Analysis(AnalysisType::ElementDetection, AnalysisOptions::default());
    group.bench_function("analysis/5000_elements_with_checks", |b| {
        b.iter(|| manager.validate(kind, black_box(&large), &context).unwrap());
    });
    group.finish();
}

/// What the structured speaker does with each model answer
/// (`retrace_agent::structured::read_answer`): the one JSON object out of the model's text,
/// then the response schema and its semantic checks on the `serde_json::Value` (which the
/// decision and the transcript use).
fn task_loop_answer(c: &mut Criterion) {
    let manager = SchemaManager::new();
    let options = ResponseOptions::default();
    let context = ValidationContext::default();
    let json = include_str!("../tests/fixtures/seed_response_retry.json");
    let text = format!("I will reveal the login form.\n```json\n{json}\n```\n");
    let mut group = c.benchmark_group("task_loop_answer");
    group.bench_function("parse_model_answer_then_validate_ai_response", |b| {
        b.iter(|| {
            let answer = parse_model_answer(black_box(&text)).unwrap();
            let result = manager
                .validate_ai_response(&answer, options, &context)
                .unwrap();
            (answer, result.valid)
        })
    });
    group.finish();
}

criterion_group!(benches, generation, validation, task_loop_answer);
criterion_main!(benches);
