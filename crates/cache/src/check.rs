//! Checks on a cache file that parsed: things that would make a replay fail or mislead,
//! each reported with the JSON path and the step it is about. Those replay refuses a file
//! for are [`Severity::Error`] ([`refuse`]); the step-level checks (inputs by the tool
//! catalogue, points on the recorded screen, placeholders, hashes, ids) are in
//! `check_steps`.

use std::collections::BTreeSet;
use std::path::Path;

use crate::error::CacheError;
use crate::model::CacheFile;
use crate::model::CacheFormat;
use crate::model::HASH_METHODS;
use crate::params::Template;
use crate::params::parameters_in_trajectory;
pub use crate::problem::Problem;
pub use crate::problem::Severity;

/// The metadata versions this crate understands: `0.0` (a legacy list as read), `0.1`, `0.2`
/// and `0.3` (askui 0.45 and later).
pub const KNOWN_VERSIONS: [&str; 4] = ["0.0", "0.1", "0.2", "0.3"];

/// Every problem in `file`; empty when it can be replayed as it is. The problems of
/// [`Severity::Error`] are those replay refuses the file for ([`refuse`]).
pub fn check(file: &CacheFile) -> Vec<Problem> {
    let mut problems = Vec::new();
    let meta = &file.metadata;
    let mut warn =
        |field: &str, message: String| problems.push(Problem::warning(field.into(), None, message));

    if !KNOWN_VERSIONS.contains(&meta.version.as_str()) {
        warn(
            "metadata.version",
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
        warn(
            "metadata.is_valid",
            format!("the cache is invalidated: {reason}"),
        );
    }
    if (meta.failures.len() as u64) > meta.execution_attempts {
        warn(
            "metadata.failures",
            format!(
                "{} failures recorded but only {} execution attempts",
                meta.failures.len(),
                meta.execution_attempts
            ),
        );
    }
    for (i, failure) in meta.failures.iter().enumerate() {
        if failure.step_index >= file.trajectory.len() as u64 {
            warn(
                &format!("metadata.failures[{i}].step_index"),
                format!(
                    "step {} does not exist (the trajectory has {} steps)",
                    failure.step_index,
                    file.trajectory.len()
                ),
            );
        }
    }
    if let Some(vv) = meta.visual_validation.as_ref().filter(|vv| vv.enabled) {
        if !HASH_METHODS.contains(&vv.method.as_str()) {
            problems.push(Problem::error(
                "metadata.visual_validation.method".into(),
                None,
                format!(
                    "unknown hash method {:?}; expected one of {}",
                    vv.method,
                    HASH_METHODS.join(", ")
                ),
            ));
        }
        if vv.region_size == 0 {
            problems.push(Problem::error(
                "metadata.visual_validation.region_size".into(),
                None,
                "must be at least 1".into(),
            ));
        }
    }

    crate::check_steps::check_steps(file, prefix(file), &mut problems);

    let used = parameters_in_trajectory(&file.trajectory);
    let declared: BTreeSet<String> = file.cache_parameters.keys().cloned().collect();
    let in_goal: BTreeSet<String> = meta
        .goal
        .as_deref()
        .map(|g| Template::parse(g).parameters().map(str::to_owned).collect())
        .unwrap_or_default();
    for name in declared.difference(&used) {
        if !in_goal.contains(name) {
            problems.push(Problem::warning(
                format!("cache_parameters.{name}"),
                None,
                "declared but used by no step and not in the goal".into(),
            ));
        }
    }
    problems.extend(crate::check_effects::blank_after_regions(file));
    problems
}

/// The problems of `file` that replay refuses it for ([`Severity::Error`]), as one
/// [`CacheError::Refused`] naming `path`; `Ok` when there are none. `retrace replay`, a suite
/// and the cache tools call this before anything runs, so a file is refused with the words
/// `retrace cache check` prints.
pub fn refuse(path: &Path, file: &CacheFile) -> Result<(), CacheError> {
    let problems: Vec<Problem> = check(file)
        .into_iter()
        .filter(|problem| problem.severity == Severity::Error)
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(CacheError::Refused {
            path: path.to_owned(),
            problems,
        })
    }
}

/// `trajectory` for the object layout; the legacy list's steps are at the top level.
pub(crate) fn prefix(file: &CacheFile) -> &'static str {
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
                "step 2: trajectory[1].id: id \"a\" is also used by step 1",
                "step 2: trajectory[1].visual_representation: the step has a hash but its input names no point to check it at",
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
                "step 1: [0].input.text: uses the placeholder {{v}}, which cache_parameters does not declare"
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
                "step 1: trajectory[0].visual_representation: step 1's region is blank: its check can detect nothing (hash 8000000000000000)"
            ]
        );
    }
}
