//! The generated schemas are committed under `crates/schema/schemas/`; this regenerates
//! them with default options and fails with a diff and the refresh command when they drift.

use retrace_schema::AnalysisOptions;
use retrace_schema::AnalysisType;
use retrace_schema::ComparisonOptions;
use retrace_schema::DEFAULT_VERSION;
use retrace_schema::ResponseOptions;
use retrace_schema::SchemaKind;

const REFRESH: &str = "RETRACE_UPDATE_SCHEMAS=1 cargo test -p retrace-schema --test all snapshot";

fn committed() -> Vec<(String, SchemaKind)> {
    let mut files = vec![
        (
            "response.schema.json".to_owned(),
            SchemaKind::Response(ResponseOptions::default()),
        ),
        (
            "comparison.schema.json".to_owned(),
            SchemaKind::Comparison(ComparisonOptions::default()),
        ),
    ];
    for kind in AnalysisType::ALL {
        if kind != AnalysisType::Comparison {
            let name = format!(
                "analysis-{}.schema.json",
                kind.as_str().to_ascii_lowercase().replace('_', "-")
            );
            files.push((name, SchemaKind::Analysis(kind, AnalysisOptions::default())));
        }
    }
    files
}

#[test]
fn committed_schemas_match_the_generator() {
    let dir = retrace_test_support::package_dir().join("schemas");
    let update = std::env::var_os("RETRACE_UPDATE_SCHEMAS").is_some();
    for (name, kind) in committed() {
        let path = dir.join(&name);
        let generated =
            serde_json::to_string_pretty(&kind.generate(DEFAULT_VERSION)).unwrap() + "\n";
        if update {
            std::fs::write(&path, &generated).unwrap();
            continue;
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "cannot read {}: {e}; create it with `{REFRESH}`",
                path.display()
            )
        });
        if on_disk != generated {
            pretty_assertions::assert_eq!(
                on_disk,
                generated,
                "{} is out of date; review the diff, then refresh with `{REFRESH}`",
                path.display()
            );
        }
    }
}
