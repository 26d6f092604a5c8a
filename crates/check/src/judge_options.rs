//! The model judge's options in a check spec: when it is asked ([`JudgeWhen`]), the context
//! passed through, the confidence floor, the pixels' hard ceiling above which it may not
//! overrule them, and where judgements are cached. The model itself is not named here: it is
//! given to [`run_check_with_judge`](crate::run_check_with_judge).

use std::path::PathBuf;
use std::str::FromStr;

use serde::Deserialize;
use serde::Serialize;

/// When the model judge is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JudgeWhen {
    /// Never: the deterministic layers decide alone.
    Off,
    /// Only when every difference found is a pixel box and the differing pixels are at or
    /// under the hard ceiling ([`JudgeOptions::ceiling_ratio`]): what may be noise.
    Noise,
    /// Whenever the screenshots differ at all (to explain); identical bytes never ask.
    Always,
}

impl FromStr for JudgeWhen {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "off" => Ok(JudgeWhen::Off),
            "noise" => Ok(JudgeWhen::Noise),
            "always" => Ok(JudgeWhen::Always),
            _ => Err(format!(
                "`{text}` is not a judge mode: use off, noise or always"
            )),
        }
    }
}

/// The model judge (the model itself is given to
/// [`run_check_with_judge`](crate::run_check_with_judge), not named here).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JudgeOptions {
    /// When it is asked.
    pub when: JudgeWhen,
    /// Passed to the judge as reference (the file and line a refactoring changed).
    pub context: Option<String>,
    /// A PASS under this confidence is an ERROR (0 to 100).
    pub min_confidence: u8,
    /// The hard ceiling: differing pixels, as a share of the page (0 to 1), above which a
    /// judge may not overrule the pixels (its PASS is then an ERROR); a changed page size is
    /// always above it.
    pub ceiling_ratio: f64,
    /// Where judgements are kept (default `<out_dir>/judgements`).
    pub cache_dir: Option<PathBuf>,
}

impl Default for JudgeOptions {
    fn default() -> Self {
        Self {
            when: JudgeWhen::Off,
            context: None,
            min_confidence: crate::judgement::DEFAULT_MIN_CONFIDENCE,
            ceiling_ratio: 0.01,
            cache_dir: None,
        }
    }
}
