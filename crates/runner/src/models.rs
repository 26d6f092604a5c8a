//! The model catalogue as commands see it: the listing `retrace models` prints, and the
//! types of the flags that override it (`--computer-tool`, `--coordinates`).

use retrace_llm::catalog;
use retrace_llm::catalog::ModelInfo;
use serde::Serialize;

/// A calendar date (`YYYY-MM-DD`), as end-of-life dates are written.
pub type CivilDate = jiff::civil::Date;

/// A computer tool form (`computer_20250124`, `function`, `responses_computer`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ComputerToolForm(catalog::ComputerToolForm);

impl std::str::FromStr for ComputerToolForm {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        text.parse().map(ComputerToolForm)
    }
}

/// The coordinate space a model answers in (`pixels`, `resized:28`, `normalized:1000`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Coordinates(catalog::Coordinates);

impl std::str::FromStr for Coordinates {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        text.parse().map(Coordinates)
    }
}

/// Overrides for a model the catalogue does not know (or knows wrongly).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProfileOverrides {
    /// `--computer-tool VERSION`.
    pub computer_tool: Option<ComputerToolForm>,
    /// `--coordinates pixels|resized:FACTOR|normalized:1000`.
    pub coordinates: Option<Coordinates>,
}

impl ProfileOverrides {
    /// The overrides in the catalogue's terms.
    pub(crate) fn catalog(self) -> catalog::ProfileOverrides {
        catalog::ProfileOverrides {
            computer_tool: self.computer_tool.map(|form| form.0),
            coordinates: self.coordinates.map(|coordinates| coordinates.0),
        }
    }
}

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
    info: &'static ModelInfo,
    /// Whether its end of life has passed.
    pub retired: bool,
    /// The end-of-life warning a run with it prints, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// One model as the table of `retrace models` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRow {
    /// The model id.
    pub id: &'static str,
    /// The provider's label.
    pub provider: &'static str,
    /// The computer tool form's name, when it has one.
    pub computer_tool: Option<&'static str>,
    /// The coordinate space.
    pub coordinates: String,
    /// Dollars per million input and output tokens (`3/15`), when known.
    pub price: Option<String>,
    /// The end of its life, when announced.
    pub end_of_life: Option<CivilDate>,
}

impl ListedModel {
    /// The model's row in the table.
    pub fn row(&self) -> ModelRow {
        let info = self.info;
        ModelRow {
            id: info.id,
            provider: info.provider.label(),
            computer_tool: info.computer_tool.map(catalog::ComputerToolForm::name),
            coordinates: info.coordinates.to_string(),
            price: info
                .pricing
                .map(|p| format!("{}/{}", p.input_per_mtok, p.output_per_mtok)),
            end_of_life: info.end_of_life,
        }
    }
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
