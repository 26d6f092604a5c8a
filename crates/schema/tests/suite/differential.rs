//! The specialised validator against the `jsonschema` crate (the reference): every shared
//! vector and every randomly broken answer gets the same verdict and the same field-level
//! errors, in the same order, from both; every schema retrace generates runs on the
//! specialised validator; anything outside its subset falls back instead of passing.

use std::sync::Arc;
use std::sync::LazyLock;

use pretty_assertions::assert_eq;
use proptest::prelude::*;
use retrace_schema::AnalysisOptions;
use retrace_schema::AnalysisType;
use retrace_schema::ComparisonOptions;
use retrace_schema::CompiledSchema;
use retrace_schema::DEFAULT_VERSION;
use retrace_schema::ResponseOptions;
use retrace_schema::SchemaKind;
use retrace_schema::ValidationMode;
use retrace_test_support::read_json;
use retrace_test_support::vectors_dir;
use serde_json::Value;
use serde_json::json;

use super::support::fixture;

/// A schema compiled both ways.
struct Pair {
    name: String,
    native: CompiledSchema,
    reference: CompiledSchema,
}

impl Pair {
    fn new(name: String, schema: Value) -> Pair {
        let schema = Arc::new(schema);
        let native = CompiledSchema::compile(Arc::clone(&schema)).unwrap();
        assert_eq!(native.fallback_reason(), None, "{name} fell back");
        let reference = CompiledSchema::compile_reference(schema).unwrap();
        assert!(reference.fallback_reason().is_some());
        Pair {
            name,
            native,
            reference,
        }
    }

    fn assert_agree(&self, instance: &Value) {
        let ours = self.native.validate(instance);
        let theirs = self.reference.validate(instance);
        assert_eq!(ours, theirs, "{}: {instance}", self.name);
        assert_eq!(
            self.native.is_valid(instance),
            self.reference.is_valid(instance),
            "{}: {instance}",
            self.name
        );
    }
}

fn modes() -> [ValidationMode; 2] {
    [ValidationMode::Strict, ValidationMode::Lenient]
}

/// Every schema kind under every combination of its options.
fn generated_kinds() -> Vec<SchemaKind> {
    let flags = |n: u32| (0..1u32 << n).map(move |bits| (0..n).map(move |i| bits >> i & 1 == 1));
    let mut kinds = Vec::new();
    for mode in modes() {
        for f in flags(2) {
            let f: Vec<bool> = f.collect();
            kinds.push(SchemaKind::Response(ResponseOptions {
                include_optional_fields: f[0],
                require_reasoning: f[1],
                validation_mode: mode,
            }));
        }
        for f in flags(4) {
            let f: Vec<bool> = f.collect();
            for kind in AnalysisType::ALL {
                kinds.push(SchemaKind::Analysis(
                    kind,
                    AnalysisOptions {
                        include_coordinates: f[0],
                        include_confidence_scores: f[1],
                        require_detected_elements: f[2],
                        include_accessibility_info: f[3],
                        validation_mode: mode,
                    },
                ));
            }
            kinds.push(SchemaKind::Comparison(ComparisonOptions {
                include_pixel_differences: f[0],
                include_similarity_score: f[1],
                require_change_description: f[2],
                include_coordinates: f[3],
                validation_mode: mode,
            }));
        }
    }
    kinds
}

static VECTOR_SCHEMA: LazyLock<Pair> = LazyLock::new(|| {
    Pair::new(
        "vectors/schema.json".to_owned(),
        read_json(&vectors_dir().join("schema/schema.json")),
    )
});

static GENERATED: LazyLock<Vec<Pair>> = LazyLock::new(|| {
    let mut kinds = Vec::new();
    for validation_mode in modes() {
        kinds.push(SchemaKind::Response(ResponseOptions {
            validation_mode,
            ..ResponseOptions::default()
        }));
        kinds.push(SchemaKind::Comparison(ComparisonOptions {
            validation_mode,
            ..ComparisonOptions::default()
        }));
        let options = AnalysisOptions {
            validation_mode,
            ..AnalysisOptions::default()
        };
        kinds.extend(AnalysisType::ALL.map(|t| SchemaKind::Analysis(t, options)));
    }
    kinds
        .into_iter()
        .map(|kind| Pair::new(format!("{kind:?}"), kind.generate(DEFAULT_VERSION)))
        .collect()
});

/// Answers to break: the seed's fixtures and a few shared vectors.
static BASES: LazyLock<Vec<Value>> = LazyLock::new(|| {
    let mut bases: Vec<Value> = [
        "seed_response_retry",
        "seed_response_proceed",
        "seed_response_abort",
        "seed_analysis_content_summary",
        "seed_analysis_element_detection",
        "seed_comparison",
    ]
    .into_iter()
    .map(fixture)
    .collect();
    for name in ["valid.json", "invalid.json"] {
        let Value::Array(items) = read_json(&vectors_dir().join("schema").join(name)) else {
            panic!("{name} is not an array");
        };
        bases.extend(items.into_iter().step_by(500));
    }
    bases
});

#[test]
fn every_generated_schema_runs_on_the_specialised_validator() {
    for kind in generated_kinds() {
        let compiled = CompiledSchema::compile(Arc::new(kind.generate(DEFAULT_VERSION))).unwrap();
        assert_eq!(compiled.fallback_reason(), None, "{kind:?}");
    }
    assert_eq!(VECTOR_SCHEMA.native.fallback_reason(), None);
}

#[test]
fn every_shared_vector_gets_the_references_verdict_and_errors() {
    for name in ["valid.json", "invalid.json"] {
        let Value::Array(items) = read_json(&vectors_dir().join("schema").join(name)) else {
            panic!("{name} is not an array");
        };
        for instance in &items {
            VECTOR_SCHEMA.assert_agree(instance);
        }
    }
}

/// A schema using every keyword the specialised validator supports, in each of its forms:
/// mixed and string enums, string and non-string
/// constants, numeric bounds, string and array bounds, patterns simple and not, a format,
/// `required` with and without `properties`, `additionalProperties` both ways, plain and
/// discriminated `oneOf`/`anyOf` (string and numeric discriminators), `allOf`, `not`,
/// `if`/`then`/`else`, `items`, `$ref`.
fn every_keyword_schema() -> Value {
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {
            "point": {
                "type": "object",
                "required": ["x", "y"],
                "properties": {"x": {"type": "integer", "minimum": -3}, "y": {"type": "number", "exclusiveMaximum": 100.5}}
            }
        },
        "type": "object",
        "properties": {
            "mixed": {"enum": ["a", 1, null, [1, 2], {"k": true}]},
            "word": {"type": "string", "enum": ["PROCEED", "RETRY", "ABORT", "a name longer than sixteen bytes"]},
            "one": {"const": 1},
            "text": {"type": "string", "minLength": 2, "maxLength": 5, "pattern": "^[a-zA-Z_][a-zA-Z0-9_]*$"},
            "loose": {"pattern": "(ab|cd)+", "maxLength": 3},
            "url": {"type": "string", "format": "uri"},
            "count": {"type": "integer", "maximum": 150, "exclusiveMinimum": -2},
            "list": {"type": "array", "minItems": 1, "maxItems": 3, "items": {"$ref": "#/definitions/point"}},
            "only": {"required": ["x"]},
            "open": {"properties": {"x": {"type": "string"}}},
            "pick": {"oneOf": [
                {"type": "object", "required": ["kind", "a"], "additionalProperties": false,
                 "properties": {"kind": {"const": "A"}, "a": {"type": "string"}}},
                {"type": "object", "required": ["kind"], "additionalProperties": false,
                 "properties": {"kind": {"const": "B"}, "b": {"type": "boolean"}}}
            ]},
            "numbered": {"anyOf": [
                {"required": ["n"], "properties": {"n": {"const": 1}, "v": {"type": "string"}}},
                {"required": ["n"], "properties": {"n": {"const": 2.0}, "v": {"type": "integer"}}}
            ]},
            "plain": {"oneOf": [{"type": "string"}, {"type": "integer"}, {"minimum": 1}]},
            "any": {"anyOf": [{"type": "string", "minLength": 3}, {"type": "boolean"}]},
            "all": {"allOf": [{"minimum": 1}, {"maximum": 5}, {"type": "integer"}]},
            "never": {"not": {"type": "string"}},
            "cond": {"if": {"type": "string"}, "then": {"minLength": 3}, "else": {"type": "integer"}}
        },
        "additionalProperties": false
    })
}

/// A value for one of [`every_keyword_schema`]'s properties.
fn keyword_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        leaf(),
        prop::sample::select(vec![
            json!("a"),
            json!(1),
            json!(1.0),
            json!(2.0),
            json!([1, 2]),
            json!([1.0, 2]),
            json!({"k": true}),
            json!("abc"),
            json!("ab_9"),
            json!("abcdef"),
            json!("a-b"),
            json!("abab"),
            json!("éé"),
            json!("a name longer than sixteen bytes"),
            json!("a name longer than sixteen bytez"),
            json!(150),
            json!(150.5),
            json!(-2),
            json!(-1.5),
            json!([{"x": 1, "y": 2}]),
            json!([{"x": -4, "y": 2}]),
            json!([{"x": 1}]),
            json!([{"x": 1, "y": 100.5}, {"x": 2.0, "y": 3}]),
            json!([]),
            json!({"x": "s"}),
            json!({"x": 1}),
            json!({"y": 1}),
            json!({"kind": "A", "a": "s"}),
            json!({"kind": "A"}),
            json!({"kind": "B", "b": true}),
            json!({"kind": "B", "b": true, "c": 1}),
            json!({"kind": "C"}),
            json!({"kind": 1}),
            json!({"n": 1, "v": "s"}),
            json!({"n": 1.0, "v": "s"}),
            json!({"n": 2, "v": 3}),
            json!({"n": 2, "v": "s"}),
            json!({"n": 3}),
            json!({"v": 1}),
            json!(3),
            json!(6),
        ]),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn every_keyword_gets_the_references_verdict_and_errors(
        entries in prop::collection::vec((
            prop::sample::select(vec![
                "mixed", "word", "one", "text", "loose", "url", "count", "list", "only", "open",
                "pick", "numbered", "plain", "any", "all", "never", "cond", "extra",
            ]),
            keyword_leaf(),
        ), 0..6),
        top_level_leaf in prop::option::weighted(0.05, leaf()),
    ) {
        static SCHEMA: LazyLock<Pair> =
            LazyLock::new(|| Pair::new("every keyword".to_owned(), every_keyword_schema()));
        let instance = match top_level_leaf {
            Some(leaf) => leaf,
            None => Value::Object(entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()),
        };
        SCHEMA.assert_agree(&instance);
    }
}

#[test]
fn the_seed_fixtures_agree_under_every_option_combination() {
    for kind in generated_kinds() {
        let pair = Pair::new(format!("{kind:?}"), kind.generate(DEFAULT_VERSION));
        for base in BASES.iter().take(6) {
            pair.assert_agree(base);
        }
    }
}

#[test]
fn unsupported_keywords_fall_back_to_the_reference() {
    let cases = [
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "string", "contentMediaType": "text/html"}),
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "patternProperties": {"^a": {"type": "string"}}}),
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "string", "pattern": "^\\d+$"}),
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "#/definitions/a~1b", "definitions": {"a/b": {"type": "string"}}}),
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"a": {"additionalProperties": {"type": "string"}}}}),
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string"}),
        json!({"type": "string"}),
    ];
    for schema in cases {
        let compiled = CompiledSchema::compile(Arc::new(schema.clone())).unwrap();
        assert!(
            compiled.fallback_reason().is_some(),
            "{schema} ran natively"
        );
    }
    // The fallback still validates: `\d` means ASCII digits to ajv, and to `jsonschema`.
    let digits = CompiledSchema::compile(Arc::new(json!({
        "$schema": "http://json-schema.org/draft-07/schema#", "type": "string", "pattern": "^\\d+$"
    })))
    .unwrap();
    assert!(digits.is_valid(&json!("123")));
    assert!(!digits.is_valid(&json!("12a")));
}

/// A leaf to put somewhere: values that hit enums, constants, patterns, formats and bounds.
fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-3i64..200).prop_map(Value::from),
        (-2.0f64..2.0).prop_map(Value::from),
        Just(json!(1.0)),
        Just(json!(100.5)),
        prop::sample::select(vec![
            "",
            "PROCEED",
            "RETRY",
            "ABORT",
            "CONTINUE",
            "OPEN_PAGE",
            "CLICK_ELEMENT",
            "INPUT_TEXT",
            "SAVE_VARIABLE",
            "GET_DOM",
            "https://example.com/a?b=1",
            "not a uri",
            "http://${host}/x",
            "${name}",
            "_var1",
            "1bad",
            "#id",
            "x",
            "ELEMENT_DETECTION",
            "CONTENT_SUMMARY",
            "low",
            "critical",
            "urgent",
            "ÿé",
            "GET\\u005fDOM",
            "a\"b\\c",
            "tab\there",
        ])
        .prop_map(Value::from),
        Just(json!({})),
        Just(json!([])),
        Just(json!(["a", 1])),
        Just(json!({"x": 1, "y": 2, "width": 3, "height": 4})),
    ]
}

/// One change to an answer: which node (by index among all nodes) and what to do there.
#[derive(Debug, Clone)]
enum Mutation {
    Replace(usize, Value),
    Remove(usize),
    Insert(usize, String, Value),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = 0usize..10_000;
    prop_oneof![
        (at.clone(), leaf()).prop_map(|(i, v)| Mutation::Replace(i, v)),
        at.clone().prop_map(Mutation::Remove),
        (
            at,
            prop::sample::select(vec!["extra", "action", "command", "selector", "url", "x"]),
            leaf()
        )
            .prop_map(|(i, k, v)| Mutation::Insert(i, k.to_owned(), v)),
    ]
}

fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                pointers(v, format!("{at}/{k}"), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                pointers(v, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

fn apply(value: &mut Value, mutation: &Mutation) {
    let mut all = Vec::new();
    pointers(value, String::new(), &mut all);
    let pick = |i: usize| all[i % all.len()].clone();
    match mutation {
        Mutation::Replace(i, leaf) => {
            if let Some(target) = value.pointer_mut(&pick(*i)) {
                *target = leaf.clone();
            }
        }
        Mutation::Remove(i) => {
            let pointer = pick(*i);
            if let Some((parent, key)) = pointer.rsplit_once('/')
                && let Some(parent) = value.pointer_mut(parent)
            {
                match parent {
                    Value::Object(map) => {
                        map.shift_remove(key);
                    }
                    Value::Array(items) => {
                        if let Ok(i) = key.parse::<usize>() {
                            items.remove(i);
                        }
                    }
                    _ => {}
                }
            }
        }
        Mutation::Insert(i, key, leaf) => {
            if let Some(Value::Object(map)) = value.pointer_mut(&pick(*i)) {
                map.insert(key.clone(), leaf.clone());
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1_500, ..ProptestConfig::default() })]

    #[test]
    fn broken_answers_get_the_references_verdict_and_errors(
        base in 0usize..1_000,
        mutations in prop::collection::vec(mutation(), 1..5),
    ) {
        let mut answer = BASES[base % BASES.len()].clone();
        for mutation in &mutations {
            apply(&mut answer, mutation);
        }
        VECTOR_SCHEMA.assert_agree(&answer);
        for pair in GENERATED.iter() {
            pair.assert_agree(&answer);
        }
    }
}

/// Objects whose declared values are costly (an object, a `oneOf`) have their names checked
/// first when some declared name is absent: every subset of declared and undeclared names,
/// each value valid or not, under `additionalProperties` true and false, with required
/// names declared and not, gets the reference's verdict and errors.
#[test]
fn objects_lacking_declared_names_get_the_references_verdict_and_errors() {
    let schema = |deny: bool, required: Value| {
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "required": required,
            "additionalProperties": !deny,
            "properties": {
                "a": {
                    "type": "object",
                    "required": ["x"],
                    "properties": { "x": { "type": "integer" } }
                },
                "b": { "type": "array", "items": { "type": "string" } },
                "c": { "type": "string" },
                "d": { "oneOf": [
                    { "type": "object", "required": ["k"], "properties": { "k": { "const": 1 } } },
                    { "type": "object", "required": ["k"], "properties": { "k": { "const": 2 } } }
                ] }
            }
        })
    };
    // Each name with a valid and an invalid value; `z` is undeclared.
    let values: [(&str, [Value; 2]); 5] = [
        ("a", [json!({"x": 1}), json!({"y": 1})]),
        ("b", [json!(["s"]), json!([1])]),
        ("c", [json!("s"), json!(2)]),
        ("d", [json!({"k": 2}), json!({"k": 3})]),
        ("z", [json!(null), json!(null)]),
    ];
    let mut pairs = Vec::new();
    for deny in [false, true] {
        for required in [
            json!(["a", "c"]),
            json!(["c"]),
            json!(["a", "b", "c", "d"]),
            json!(["c", "w"]),
            json!([]),
        ] {
            let name = format!("names first, deny {deny}, required {required}");
            pairs.push(Pair::new(name, schema(deny, required)));
        }
    }
    for subset in 0..1u32 << values.len() {
        for broken in 0..1u32 << values.len() {
            // Only the broken bits of present names make a difference.
            if broken & !subset != 0 {
                continue;
            }
            let mut object = serde_json::Map::new();
            // The names in schema order and reversed, so a guess from the order misses too.
            let order: Vec<usize> = if subset % 3 == 0 {
                (0..values.len()).rev().collect()
            } else {
                (0..values.len()).collect()
            };
            for i in order {
                if subset >> i & 1 == 1 {
                    let (name, options) = &values[i];
                    object.insert(
                        (*name).to_owned(),
                        options[(broken >> i & 1) as usize].clone(),
                    );
                }
            }
            let instance = Value::Object(object);
            for pair in &pairs {
                pair.assert_agree(&instance);
            }
        }
    }
}
