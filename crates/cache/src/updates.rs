//! Metadata updates, applied to the file's JSON value rather than to the typed model, so that
//! every field this crate does not touch (unknown ones included) is written back unchanged.
//!
//! The transitions are askui's (`CacheManager`): a completed replay counts an attempt and, if
//! it was verified, sets `last_executed_at`; a failure counts an attempt, appends to
//! `failures` with `failure_count_at_step`, then runs the validators, which may invalidate.

use jiff::Timestamp;
use serde_json::Map;
use serde_json::Value;

use crate::model::CacheMetadata;
use crate::timestamp::format_timestamp;
use crate::validators::Validators;

/// A change to a cache file's metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetadataUpdate {
    /// Mark the cache invalid with this reason (`is_valid` and `invalidation_reason` only).
    Invalidate {
        /// Why; shown by `cache list` and to the model.
        reason: String,
    },
    /// Mark the cache valid again and clear the reason (`is_valid` and
    /// `invalidation_reason` only).
    Revalidate,
    /// A replay ran to its end: one more attempt; when `success`, `last_executed_at` = now.
    RecordCompletion {
        /// Whether the replay was verified to have reached its goal.
        success: bool,
    },
    /// A replay failed at a step: one more attempt, one more failure, then the validators.
    RecordFailure {
        /// The trajectory index of the failed step.
        step_index: u64,
        /// What went wrong.
        error_message: String,
    },
    /// A replay already counted as an attempt (it ran to its end) was then judged not to
    /// have reached its goal: one more failure, no new attempt, then the validators.
    RecordRejection {
        /// The trajectory index the failure is filed under (the last step).
        step_index: u64,
        /// Why the replay was judged unsuccessful.
        error_message: String,
    },
}

/// What applying an update did.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateOutcome {
    /// The validators' reason, when a failure made them invalidate the cache.
    pub invalidated: Option<String>,
    /// The metadata after the update.
    pub metadata: CacheMetadata,
}

/// Applies `update` to a `metadata` JSON object at time `now`, touching only the fields the
/// update is about. `validators` are consulted after a failure. The object must already hold
/// valid metadata (the caller has parsed the file); an `Err` carries the message of a
/// metadata that no longer parses.
pub fn apply_update(
    metadata: &mut Map<String, Value>,
    update: &MetadataUpdate,
    validators: &Validators,
    now: Timestamp,
) -> Result<Option<String>, String> {
    match update {
        MetadataUpdate::Invalidate { reason } => {
            metadata.insert("is_valid".to_owned(), Value::Bool(false));
            metadata.insert(
                "invalidation_reason".to_owned(),
                Value::String(reason.clone()),
            );
            Ok(None)
        }
        MetadataUpdate::Revalidate => {
            metadata.insert("is_valid".to_owned(), Value::Bool(true));
            metadata.insert("invalidation_reason".to_owned(), Value::Null);
            Ok(None)
        }
        MetadataUpdate::RecordCompletion { success } => {
            count_attempt(metadata);
            if *success {
                metadata.insert(
                    "last_executed_at".to_owned(),
                    Value::String(format_timestamp(now)),
                );
            }
            Ok(None)
        }
        MetadataUpdate::RecordFailure {
            step_index,
            error_message,
        } => {
            count_attempt(metadata);
            record_failure(metadata, *step_index, error_message, validators, now)
        }
        MetadataUpdate::RecordRejection {
            step_index,
            error_message,
        } => record_failure(metadata, *step_index, error_message, validators, now),
    }
}

/// Appends a failure at `step_index` to `metadata.failures`, then runs the validators and
/// invalidates the file when they say so; returns their reason.
fn record_failure(
    metadata: &mut Map<String, Value>,
    step_index: u64,
    error_message: &str,
    validators: &Validators,
    now: Timestamp,
) -> Result<Option<String>, String> {
    let failures = metadata
        .entry("failures")
        .or_insert_with(|| Value::Array(Vec::new()));
    if !failures.is_array() {
        *failures = Value::Array(Vec::new());
    }
    let Value::Array(list) = failures else {
        return Err("metadata.failures: expected an array".to_owned());
    };
    let earlier = list
        .iter()
        .filter(|f| f.get("step_index").and_then(Value::as_u64) == Some(step_index))
        .count() as u64;
    let mut failure = Map::new();
    failure.insert("timestamp".to_owned(), Value::String(format_timestamp(now)));
    failure.insert("step_index".to_owned(), Value::from(step_index));
    failure.insert(
        "error_message".to_owned(),
        Value::String(error_message.to_owned()),
    );
    failure.insert("failure_count_at_step".to_owned(), Value::from(earlier + 1));
    list.push(Value::Object(failure));

    let typed = typed_metadata(metadata)?;
    let reason = validators.invalidation_reason(&typed, Some(step_index), now);
    if let Some(reason) = &reason {
        metadata.insert("is_valid".to_owned(), Value::Bool(false));
        metadata.insert(
            "invalidation_reason".to_owned(),
            Value::String(reason.clone()),
        );
    }
    Ok(reason)
}

/// `execution_attempts += 1` (a missing or unreadable count starts at 0).
fn count_attempt(metadata: &mut Map<String, Value>) {
    let attempts = metadata
        .get("execution_attempts")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    metadata.insert(
        "execution_attempts".to_owned(),
        Value::from(attempts.saturating_add(1)),
    );
}

/// The typed view of a metadata object.
pub(crate) fn typed_metadata(metadata: &Map<String, Value>) -> Result<CacheMetadata, String> {
    serde_path_to_error::deserialize(Value::Object(metadata.clone()))
        .map_err(|e| format!("metadata.{}: {}", e.path(), e.inner()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta() -> Map<String, Value> {
        let Value::Object(map) = json!({
            "version": "0.3",
            "created_at": "2026-11-21T23:24:20.485424Z",
            "execution_attempts": 0,
            "failures": [],
            "is_valid": true,
            "invalidation_reason": null,
            "future_field": {"kept": [1, 2]}
        }) else {
            unreachable!()
        };
        map
    }

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    #[test]
    fn invalidate_and_revalidate_touch_two_fields() {
        let original = meta();
        let mut m = original.clone();
        let none = Validators::none();
        let now = at("2026-11-22T00:00:00Z");
        apply_update(
            &mut m,
            &MetadataUpdate::Invalidate {
                reason: "UI redesigned".into(),
            },
            &none,
            now,
        )
        .unwrap();
        assert_eq!(m["is_valid"], json!(false));
        assert_eq!(m["invalidation_reason"], json!("UI redesigned"));
        apply_update(&mut m, &MetadataUpdate::Revalidate, &none, now).unwrap();
        assert_eq!(m, original);
    }

    #[test]
    fn failures_follow_askui_transitions() {
        let mut m = meta();
        let validators = Validators::default();
        let message = "Visual validation failed: UI has changed significantly. Hamming distance: 13 > threshold: 10.";
        let fail = MetadataUpdate::RecordFailure {
            step_index: 6,
            error_message: message.into(),
        };
        let now = at("2026-11-21T23:24:20.838865Z");
        assert_eq!(apply_update(&mut m, &fail, &validators, now).unwrap(), None);
        apply_update(
            &mut m,
            &MetadataUpdate::RecordCompletion { success: true },
            &validators,
            now,
        )
        .unwrap();
        assert_eq!(apply_update(&mut m, &fail, &validators, now).unwrap(), None);
        assert_eq!(m["execution_attempts"], json!(3));
        assert_eq!(m["last_executed_at"], json!("2026-11-21T23:24:20.838865Z"));
        assert_eq!(
            m["failures"][1],
            json!({"timestamp": "2026-11-21T23:24:20.838865Z", "step_index": 6, "error_message": message, "failure_count_at_step": 2})
        );
        assert_eq!(m["is_valid"], json!(true));
        let reason = apply_update(&mut m, &fail, &validators, now).unwrap();
        assert_eq!(
            reason.as_deref(),
            Some("StepFailureCount: Step 6 failed 3 times (max: 3)")
        );
        assert_eq!(m["is_valid"], json!(false));
        assert_eq!(
            m["invalidation_reason"],
            json!("StepFailureCount: Step 6 failed 3 times (max: 3)")
        );
        assert_eq!(m["future_field"], json!({"kept": [1, 2]}));
    }

    #[test]
    fn unsuccessful_completion_counts_without_timestamp() {
        let mut m = meta();
        apply_update(
            &mut m,
            &MetadataUpdate::RecordCompletion { success: false },
            &Validators::none(),
            at("2026-11-22T00:00:00Z"),
        )
        .unwrap();
        assert_eq!(m["execution_attempts"], json!(1));
        assert!(!m.contains_key("last_executed_at"));
    }

    #[test]
    fn a_rejection_adds_a_failure_but_no_attempt() {
        let mut m = meta();
        let now = at("2026-11-22T00:00:00Z");
        apply_update(
            &mut m,
            &MetadataUpdate::RecordCompletion { success: true },
            &Validators::none(),
            now,
        )
        .unwrap();
        apply_update(
            &mut m,
            &MetadataUpdate::RecordRejection {
                step_index: 4,
                error_message: "the report is not shown".into(),
            },
            &Validators::none(),
            now,
        )
        .unwrap();
        assert_eq!(m["execution_attempts"], json!(1));
        let failures = m["failures"].as_array().unwrap();
        assert_eq!(failures.len(), 1);
        assert_eq!(failures[0]["step_index"], json!(4));
        assert_eq!(
            failures[0]["error_message"],
            json!("the report is not shown")
        );
        assert_eq!(failures[0]["failure_count_at_step"], json!(1));
    }
}
