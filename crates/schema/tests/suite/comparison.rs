//! The comparison schema: the seed's example, difference detection, and its options.

use pretty_assertions::assert_eq;
use retrace_schema::ComparisonOptions;
use serde_json::Value;
use serde_json::json;

use super::support::assert_clean;
use super::support::comparison;
use super::support::err;
use super::support::fixture;

fn example() -> Value {
    fixture("seed_comparison")
}

#[test]
fn the_seeds_comparison_example_is_accepted() {
    assert_clean(&comparison(ComparisonOptions::default(), &example()));
}

#[test]
fn differences_are_classified_and_scored() {
    let mut answer = example();
    answer["differences"][0]["type"] = json!("changed");
    answer["differences"][1]
        .as_object_mut()
        .unwrap()
        .remove("confidence");
    answer["similarity"] = json!(1.5);
    assert_eq!(
        comparison(ComparisonOptions::default(), &answer).errors,
        vec![
            err(&["similarity"], "must be at most 1.0", json!(1.5), "number"),
            err(
                &["differences", "0", "type"],
                "must be one of added, removed, modified, moved",
                json!("changed"),
                "string"
            ),
            err(
                &["differences", "1", "confidence"],
                "is required",
                Value::Null,
                "number"
            ),
        ]
    );
}

#[test]
fn options_require_or_drop_fields() {
    let pixels = ComparisonOptions {
        include_pixel_differences: true,
        ..ComparisonOptions::default()
    };
    assert_eq!(
        comparison(pixels, &example()).errors,
        vec![err(
            &["pixelDifferences"],
            "is required",
            Value::Null,
            "object"
        )]
    );
    let mut with_pixels = example();
    with_pixels["pixelDifferences"] = json!({ "count": 5120, "percentage": 0.25 });
    assert_clean(&comparison(pixels, &with_pixels));

    let no_description = ComparisonOptions {
        require_change_description: false,
        ..ComparisonOptions::default()
    };
    let mut terse = example();
    terse.as_object_mut().unwrap().remove("summary");
    assert_clean(&comparison(no_description, &terse));
    assert_eq!(
        comparison(ComparisonOptions::default(), &terse).errors,
        vec![err(&["summary"], "is required", Value::Null, "string")]
    );

    let no_coordinates = ComparisonOptions {
        include_coordinates: false,
        ..ComparisonOptions::default()
    };
    let schema = retrace_schema::comparison_schema(no_coordinates, "1.0.0");
    assert!(schema["properties"].get("changeAreas").is_none());
    assert_eq!(
        schema["properties"]["differences"]["items"]["required"],
        json!(["type", "description", "confidence"])
    );
    let no_similarity = ComparisonOptions {
        include_similarity_score: false,
        ..ComparisonOptions::default()
    };
    let schema = retrace_schema::comparison_schema(no_similarity, "1.0.0");
    assert_eq!(
        schema["required"],
        json!(["differences", "summary", "significantChanges"])
    );
}
