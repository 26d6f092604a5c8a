//! The file check of after-action regions: a step whose recorded after-action region
//! ([`fields::AFTER_HASH`]) is blank, or nearly ([`ImageHash::is_near_flat`]), has an effect
//! check that detects nothing and fails when anything unrelated is drawn there later; replay
//! leaves it unchecked. Reported beside the blank before-region (see [`crate::check`]).

use retrace_vision::ImageHash;

use crate::fields;
use crate::model::CacheFile;
use crate::model::CacheFormat;
use crate::problem::Problem;

/// A problem for every step whose after-action region is blank.
pub(crate) fn blank_after_regions(file: &CacheFile) -> Vec<Problem> {
    let steps = match file.format {
        CacheFormat::Object => "trajectory",
        CacheFormat::LegacyList => "",
    };
    file.trajectory
        .iter()
        .enumerate()
        .filter_map(|(i, step)| {
            let text = step.extra.get(fields::AFTER_HASH)?.as_str()?;
            let blank = ImageHash::from_hex(text).is_ok_and(|hash| hash.is_near_flat());
            blank.then(|| {
                Problem::warning(
                    format!("{steps}[{i}].{}", fields::AFTER_HASH),
                    Some(i + 1),
                    format!(
                        "the after-action region is blank: its effect check can detect \
                         nothing, so replay does not check it (hash {text}); re-record the step"
                    ),
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use retrace_protocol::ToolUseBlock;
    use serde_json::json;

    use super::*;

    fn step(id: &str, after: &str) -> ToolUseBlock {
        let mut step = ToolUseBlock::new(
            id,
            "computer",
            json!({"action": "left_click", "coordinate": [1, 2]}),
        )
        .with_visual_representation("ce33b1cc4e3331cc");
        step.extra
            .insert(fields::AFTER_HASH.to_owned(), json!(after));
        step
    }

    #[test]
    fn a_blank_or_near_blank_after_region_is_a_problem_and_content_is_not() {
        let at = crate::parse_timestamp("2026-01-01T00:00:00Z").unwrap();
        let file = CacheFile::new(
            crate::CacheMetadata::new(at, None),
            vec![
                step("a", "8000ffff7f8000bf"),
                step("b", "8000000000000000"),
                step("c", "8000800080000000"),
            ],
        );
        let problems = crate::check(&file);
        let fields: Vec<&str> = problems
            .iter()
            .map(|problem| problem.field.as_str())
            .collect();
        assert_eq!(
            fields,
            [
                "trajectory[1].visual_representation_after",
                "trajectory[2].visual_representation_after"
            ],
            "{problems:?}"
        );
        assert_eq!(problems[0].step, Some(2));
        assert_eq!(problems[0].severity, crate::check::Severity::Warning);
        assert!(
            problems[0]
                .message
                .contains("the after-action region is blank")
        );
    }
}
