//! Metadata updates, applied to the file's JSON value rather than to the typed model, so that
//! every field this crate does not touch (unknown ones included) is written back unchanged.
//!
//! The transitions are askui 0.48's (`CacheManager`): every attempt, passed or not, counts in
//! `execution_attempts` and sets `last_executed_at`; a failure also appends to `failures` with
//! `failure_count_at_step`, then runs the validators, which may invalidate; an unsuccessful
//! verdict invalidates with askui's reason and adds no failure. retrace adds one field: a
//! passed attempt also sets [`fields::LAST_PASSED`], which its staleness check reads.

use jiff::Timestamp;
use serde_json::Map;
use serde_json::Value;

use crate::fields;
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
    /// A replay ran to its end: one more attempt, `last_executed_at` = now; when `success`,
    /// also `last_passed_at` = now.
    RecordCompletion {
        /// Whether the replay was verified to have reached its goal.
        success: bool,
    },
    /// A replay failed at a step: one more attempt (`last_executed_at` = now), one more
    /// failure, then the validators.
    RecordFailure {
        /// The trajectory index of the failed step.
        step_index: u64,
        /// What went wrong.
        error_message: String,
    },
    /// A replay was judged not to have reached its goal (`verify_cache_execution` with
    /// `success: false`): askui's `mark_execution_unsuccessful`, `is_valid: false` with the
    /// reason [`unsuccessful_reason`], no failure added. `counted` says the attempt was
    /// already counted (the replay ran to its end and recorded a completion), so no second
    /// attempt is added; otherwise one is, as askui does.
    RecordUnsuccessful {
        /// The verdict's notes.
        notes: String,
        /// Whether this replay's attempt is already in `execution_attempts`.
        counted: bool,
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
            count_attempt(metadata, now);
            if *success {
                metadata.insert(
                    fields::LAST_PASSED.to_owned(),
                    Value::String(format_timestamp(now)),
                );
            }
            Ok(None)
        }
        MetadataUpdate::RecordFailure {
            step_index,
            error_message,
        } => {
            count_attempt(metadata, now);
            record_failure(metadata, *step_index, error_message, validators, now)
        }
        MetadataUpdate::RecordUnsuccessful { notes, counted } => {
            if !*counted {
                count_attempt(metadata, now);
            }
            let reason = unsuccessful_reason(notes);
            metadata.insert("is_valid".to_owned(), Value::Bool(false));
            metadata.insert(
                "invalidation_reason".to_owned(),
                Value::String(reason.clone()),
            );
            Ok(Some(reason))
        }
    }
}

/// askui's invalidation reason after an unsuccessful verdict.
pub fn unsuccessful_reason(notes: &str) -> String {
    format!("Agent reported unsuccessful cache execution: {notes}")
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

/// `execution_attempts += 1` (a missing or unreadable count starts at 0) and
/// `last_executed_at = now`, as askui's `record_execution_attempt`.
fn count_attempt(metadata: &mut Map<String, Value>, now: Timestamp) {
    metadata.insert(
        "last_executed_at".to_owned(),
        Value::String(format_timestamp(now)),
    );
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
    fn every_attempt_sets_last_executed_at_and_a_pass_last_passed_at() {
        let mut m = meta();
        let none = Validators::none();
        let first = at("2026-11-22T00:00:00Z");
        apply_update(
            &mut m,
            &MetadataUpdate::RecordCompletion { success: true },
            &none,
            first,
        )
        .unwrap();
        assert_eq!(m["last_passed_at"], json!("2026-11-22T00:00:00Z"));
        let later = at("2026-12-01T00:00:00Z");
        apply_update(
            &mut m,
            &MetadataUpdate::RecordCompletion { success: false },
            &none,
            later,
        )
        .unwrap();
        assert_eq!(m["execution_attempts"], json!(2));
        assert_eq!(m["last_executed_at"], json!("2026-12-01T00:00:00Z"));
        assert_eq!(m["last_passed_at"], json!("2026-11-22T00:00:00Z"));
        let fail = MetadataUpdate::RecordFailure {
            step_index: 1,
            error_message: "mismatch".into(),
        };
        let latest = at("2026-12-02T00:00:00Z");
        apply_update(&mut m, &fail, &none, latest).unwrap();
        assert_eq!(m["last_executed_at"], json!("2026-12-02T00:00:00Z"));
        assert_eq!(m["last_passed_at"], json!("2026-11-22T00:00:00Z"));
    }

    #[test]
    fn an_unsuccessful_verdict_invalidates_without_a_failure() {
        let now = at("2026-11-22T00:00:00Z");
        let mut m = meta();
        let reason = apply_update(
            &mut m,
            &MetadataUpdate::RecordUnsuccessful {
                notes: "the report is not shown".into(),
                counted: false,
            },
            &Validators::none(),
            now,
        )
        .unwrap();
        let text = "Agent reported unsuccessful cache execution: the report is not shown";
        assert_eq!(reason.as_deref(), Some(text));
        assert_eq!(m["is_valid"], json!(false));
        assert_eq!(m["invalidation_reason"], json!(text));
        assert_eq!(m["execution_attempts"], json!(1));
        assert_eq!(m["last_executed_at"], json!("2026-11-22T00:00:00Z"));
        assert_eq!(m["failures"], json!([]));
        // An attempt the replay already counted is not counted twice.
        apply_update(
            &mut m,
            &MetadataUpdate::RecordUnsuccessful {
                notes: "again".into(),
                counted: true,
            },
            &Validators::none(),
            now,
        )
        .unwrap();
        assert_eq!(m["execution_attempts"], json!(1));
    }
}
