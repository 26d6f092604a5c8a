//! Checks on a cache file that parsed: things that would make a replay fail or mislead,
//! each reported with the JSON path it is about.

use std::collections::BTreeSet;
use std::collections::HashMap;

use serde::Serialize;

use crate::model::CacheFile;
use crate::model::CacheFormat;
use crate::model::HASH_METHODS;
use crate::params::Template;
use crate::params::parameters_in_trajectory;

/// One problem found by [`check`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The JSON path it is about (`trajectory[4].visual_representation`).
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

/// The metadata versions this crate understands: `0.0` (a legacy list as read), `0.1`, `0.2`
/// and `0.3` (askui 0.45 and later).
pub const KNOWN_VERSIONS: [&str; 4] = ["0.0", "0.1", "0.2", "0.3"];

/// Whether `text` is a hash as askui stores it: 16 hexadecimal digits (an 8x8 hash), or the
/// hex of a larger square hash (64 digits for `--hash-size 16`).
pub fn is_hash_text(text: &str) -> bool {
    let bits = text.len() * 4;
    let side = (bits as f64).sqrt() as usize;
    bits >= 64 && side * side == bits && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether a hash's bits after the first are all the same: what a featureless (blank) region
/// hashes to (pHash keeps only its DC bit), so its check matches any blank region.
pub fn is_flat_hash_text(text: &str) -> bool {
    let mut bits = text
        .chars()
        .filter_map(|digit| digit.to_digit(16))
        .flat_map(|nibble| (0..4).rev().map(move |shift| (nibble >> shift) & 1))
        .skip(1);
    match bits.next() {
        Some(first) => bits.all(|bit| bit == first),
        None => false,
    }
}

/// Every problem in `file`; empty when it can be replayed as it is.
pub fn check(file: &CacheFile) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut push = |field: String, message: String| problems.push(Problem { field, message });
    let meta = &file.metadata;
    let steps = prefix(file);

    if !KNOWN_VERSIONS.contains(&meta.version.as_str()) {
        push(
            "metadata.version".into(),
            format!(
                "unknown format version {:?} (known: {}); fields it adds are kept but not understood",
                meta.version,
                KNOWN_VERSIONS.join(", ")
            ),
        );
    }
    if !meta.is_valid {
        let reason = meta
            .invalidation_reason
            .as_deref()
            .unwrap_or("no reason given");
        push(
            "metadata.is_valid".into(),
            format!("the cache is invalidated: {reason}"),
        );
    }
    if let Some(vv) = &meta.visual_validation {
        if vv.enabled && !HASH_METHODS.contains(&vv.method.as_str()) {
            push(
                "metadata.visual_validation.method".into(),
                format!(
                    "unknown hash method {:?}; expected one of {}",
                    vv.method,
                    HASH_METHODS.join(", ")
                ),
            );
        }
        if vv.enabled && vv.region_size == 0 {
            push(
                "metadata.visual_validation.region_size".into(),
                "must be at least 1".into(),
            );
        }
    }
    if (meta.failures.len() as u64) > meta.execution_attempts {
        push(
            "metadata.failures".into(),
            format!(
                "{} failures recorded but only {} execution attempts",
                meta.failures.len(),
                meta.execution_attempts
            ),
        );
    }
    for (i, failure) in meta.failures.iter().enumerate() {
        if failure.step_index >= file.trajectory.len() as u64 {
            push(
                format!("metadata.failures[{i}].step_index"),
                format!(
                    "step {} does not exist (the trajectory has {} steps)",
                    failure.step_index,
                    file.trajectory.len()
                ),
            );
        }
    }

    let mut seen_ids: HashMap<&str, usize> = HashMap::new();
    for (i, step) in file.trajectory.iter().enumerate() {
        if step.name.is_empty() {
            push(
                format!("{steps}[{i}].name"),
                "the tool name is empty".into(),
            );
        }
        if let Some(first) = seen_ids.insert(step.id.as_str(), i) {
            push(
                format!("{steps}[{i}].id"),
                format!("id {:?} is also used by step {first}", step.id),
            );
        }
        if let Some(hash) = &step.visual_representation {
            if !is_hash_text(hash) {
                push(
                    format!("{steps}[{i}].visual_representation"),
                    format!("expected 16 hexadecimal digits, got {hash:?}"),
                );
            } else if is_flat_hash_text(hash) {
                push(
                    format!("{steps}[{i}].visual_representation"),
                    format!(
                        "step {}'s region is blank: its check can detect nothing (hash {hash})",
                        i + 1
                    ),
                );
            } else if retrace_protocol::tool_input::action_point(&step.input).is_none() {
                push(
                    format!("{steps}[{i}].visual_representation"),
                    "the step has a hash but its input names no point to check it at".into(),
                );
            }
        }
    }

    let used = parameters_in_trajectory(&file.trajectory);
    let declared: BTreeSet<String> = file.cache_parameters.keys().cloned().collect();
    for name in used.difference(&declared) {
        push(
            "cache_parameters".into(),
            format!("the trajectory uses {{{{{name}}}}} but cache_parameters does not declare it"),
        );
    }
    let in_goal: BTreeSet<String> = meta
        .goal
        .as_deref()
        .map(|g| Template::parse(g).parameters().map(str::to_owned).collect())
        .unwrap_or_default();
    for name in declared.difference(&used) {
        if !in_goal.contains(name) {
            push(
                format!("cache_parameters.{name}"),
                "declared but used by no step and not in the goal".into(),
            );
        }
    }
    problems.extend(crate::check_effects::blank_after_regions(file));
    problems
}

/// `trajectory` for the object layout; the legacy list's steps are at the top level.
fn prefix(file: &CacheFile) -> &'static str {
    match file.format {
        CacheFormat::Object => "trajectory",
        CacheFormat::LegacyList => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retrace_protocol::ToolUseBlock;
    use serde_json::json;

    fn file(steps: Vec<ToolUseBlock>) -> CacheFile {
        let at = crate::parse_timestamp("2026-01-01T00:00:00Z").unwrap();
        CacheFile::new(
            crate::CacheMetadata::new(at, Some("log in as {{user}}".into())),
            steps,
        )
    }

    #[test]
    fn reports_ids_hashes_failures_and_parameters() {
        let mut f = file(vec![
            ToolUseBlock::new(
                "a",
                "computer",
                json!({"action": "left_click", "coordinate": [1, 2]}),
            )
            .with_visual_representation("00ff00ff00ff00ff"),
            ToolUseBlock::new(
                "a",
                "computer",
                json!({"action": "type", "text": "{{user}}"}),
            )
            .with_visual_representation("00ff00ff00ff00ff"),
        ]);
        f.cache_parameters
            .insert("user".into(), "Parameter for user".into());
        f.cache_parameters
            .insert("unused".into(), "Parameter for unused".into());
        f.metadata.failures.push(crate::CacheFailure {
            timestamp: f.metadata.created_at,
            step_index: 9,
            error_message: "x".into(),
            failure_count_at_step: 1,
            extra: serde_json::Map::new(),
        });
        let got: Vec<String> = check(&f).iter().map(ToString::to_string).collect();
        assert_eq!(
            got,
            [
                "metadata.failures: 1 failures recorded but only 0 execution attempts",
                "metadata.failures[0].step_index: step 9 does not exist (the trajectory has 2 steps)",
                "trajectory[1].id: id \"a\" is also used by step 0",
                "trajectory[1].visual_representation: the step has a hash but its input names no point to check it at",
                "cache_parameters.unused: declared but used by no step and not in the goal",
            ]
        );
    }

    #[test]
    fn clean_file_has_no_problems_and_legacy_paths_have_no_prefix() {
        let mut f = file(vec![ToolUseBlock::new(
            "a",
            "computer",
            json!({"action": "type", "text": "{{v}}"}),
        )]);
        f.metadata.goal = None;
        f.metadata.version = "0.0".into();
        f.format = CacheFormat::LegacyList;
        let got: Vec<String> = check(&f).iter().map(ToString::to_string).collect();
        assert_eq!(
            got,
            [
                "cache_parameters: the trajectory uses {{v}} but cache_parameters does not declare it"
            ]
        );
        f.cache_parameters
            .insert("v".into(), "Parameter for v".into());
        assert!(check(&f).is_empty());
        f.metadata.version = "9.1".into();
        assert_eq!(check(&f)[0].field, "metadata.version");
    }

    #[test]
    fn a_blank_region_is_reported_with_its_one_based_step() {
        let click = |hash: &str| {
            ToolUseBlock::new(
                "b",
                "computer",
                json!({"action": "left_click", "coordinate": [1, 2]}),
            )
            .with_visual_representation(hash)
        };
        let mut f = file(vec![click("8000000000000000")]);
        f.metadata.goal = None;
        let got: Vec<String> = check(&f).iter().map(ToString::to_string).collect();
        assert_eq!(
            got,
            [
                "trajectory[0].visual_representation: step 1's region is blank: its check can detect nothing (hash 8000000000000000)"
            ]
        );
        for flat in ["0000000000000000", "ffffffffffffffff", "7fffffffffffffff"] {
            assert!(is_flat_hash_text(flat), "{flat}");
        }
        for textured in ["00ff00ff00ff00ff", "8000000000000001", "c000000000000000"] {
            assert!(!is_flat_hash_text(textured), "{textured}");
        }
        // A finer hash (--hash-size 16: 64 digits) is a hash too.
        assert!(is_hash_text(&"0f".repeat(32)));
        assert!(!is_hash_text(&"0f".repeat(9)));
    }
}
