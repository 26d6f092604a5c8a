//! The model catalogue as commands see it: the listing `retrace models` prints, and the
//! types of the flags that override it (`--computer-tool`, `--coordinates`).

use serde::Serialize;

pub use retrace_llm::catalog::CivilDate;
pub use retrace_llm::catalog::ComputerToolForm;
pub use retrace_llm::catalog::Coordinates;
pub use retrace_llm::catalog::ModelInfo;
pub use retrace_llm::catalog::ProfileOverrides;

/// The version of [`ModelListing`]'s JSON shape.
pub const LISTING_VERSION: u32 = 1;

/// Every model retrace knows, with the default and each model's end-of-life state on `today`.
#[derive(Debug, Clone, Serialize)]
pub struct ModelListing {
    /// [`LISTING_VERSION`].
    pub version: u32,
    /// The Anthropic model used when none is named.
    pub default_model: &'static str,
    /// The date the `retired` and `warning` fields were judged on.
    pub today: CivilDate,
    /// The models, Anthropic's first, newest first within a provider.
    pub models: Vec<ListedModel>,
}

/// One model of the listing.
#[derive(Debug, Clone, Serialize)]
pub struct ListedModel {
    /// The catalogue's row (its source included).
    #[serde(flatten)]
    pub info: &'static ModelInfo,
    /// Whether its end of life has passed.
    pub retired: bool,
    /// The end-of-life warning a run with it prints, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// The listing as of `today` (`None`: this machine's clock).
pub fn listing(today: Option<CivilDate>) -> ModelListing {
    let today = today.unwrap_or_else(retrace_llm::catalog::today);
    ModelListing {
        version: LISTING_VERSION,
        default_model: retrace_llm::catalog::DEFAULT_ANTHROPIC_MODEL,
        today,
        models: retrace_llm::catalog::catalogue()
            .map(|info| ListedModel {
                info,
                retired: info.end_of_life.is_some_and(|date| date <= today),
                warning: retrace_llm::catalog::end_of_life_notice(info.id, today),
            })
            .collect(),
    }
}
