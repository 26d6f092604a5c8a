//! The model catalogue: what retrace knows about each model, as data.
//!
//! One row per model ([`ModelInfo`]): its provider, the computer tool form it takes, the
//! coordinate space it answers in, whether it takes `temperature`, its thinking form, the
//! field that limits its output, its image limits, its prices and its end of life. Every row
//! names its source (an official SDK's type file, or a documentation page). The rows live in
//! [`anthropic`] and [`openai`]; everything else reads them through [`lookup`] and
//! [`profile`], so a model's facts are stated once.
//!
//! A model the catalogue does not know gets its provider's defaults ([`profile`]): an unknown
//! Anthropic model the newest computer tool form, an OpenAI-compatible one a function tool in
//! pixels. `--computer-tool` and `--coordinates` override either ([`ProfileOverrides`]).

mod anthropic;
mod eol;
mod forms;
mod model_info;
mod openai;
mod rows;

pub use eol::end_of_life_notice;
pub use eol::today;
pub use forms::ComputerToolForm;
pub use forms::Coordinates;
pub use forms::ThinkingForm;
pub use forms::TokenLimitField;
pub use model_info::CivilDate;
pub use model_info::ImageLimits;
pub use model_info::ModelInfo;
pub use model_info::ModelProvider;
pub use rows::DEFAULT_ANTHROPIC_MODEL;
pub use rows::catalogue;
pub use rows::lookup;

use crate::pricing::Pricing;

/// Overrides for a model the catalogue does not know (or knows wrongly).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProfileOverrides {
    /// `--computer-tool VERSION`.
    pub computer_tool: Option<ComputerToolForm>,
    /// `--coordinates pixels|resized:FACTOR|normalized:1000`.
    pub coordinates: Option<Coordinates>,
}

/// How requests to one model are shaped: the catalogue's row (or the provider's defaults)
/// with the user's overrides.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelProfile {
    /// The model id.
    pub id: String,
    /// Whether the catalogue knows the model.
    pub known: bool,
    /// The computer tool form to send.
    pub computer_tool: ComputerToolForm,
    /// The coordinate space of the model's answers.
    pub coordinates: Coordinates,
    /// Whether `temperature` may be sent.
    pub takes_temperature: bool,
    /// How thinking is asked for.
    pub thinking: ThinkingForm,
    /// The output limit's field.
    pub token_limit: TokenLimitField,
    /// Image limits.
    pub images: ImageLimits,
    /// Prices, when known.
    pub pricing: Option<Pricing>,
}

/// The profile of `id` on `provider`: the catalogue's facts when it knows the model, else
/// the provider's defaults, then `overrides`.
pub fn profile(provider: ModelProvider, id: &str, overrides: ProfileOverrides) -> ModelProfile {
    let base = match lookup(id) {
        Some(info) => ModelProfile {
            id: id.to_owned(),
            known: true,
            computer_tool: info.computer_tool.unwrap_or(default_form(info.provider)),
            coordinates: info.coordinates,
            takes_temperature: info.takes_temperature,
            thinking: info.thinking,
            token_limit: info.token_limit,
            images: info.images,
            pricing: info.pricing,
        },
        None => unknown_model(provider, id),
    };
    ModelProfile {
        computer_tool: overrides.computer_tool.unwrap_or(base.computer_tool),
        coordinates: overrides.coordinates.unwrap_or(base.coordinates),
        ..base
    }
}

/// The computer tool form a provider's unknown models get: Anthropic's newest form (an
/// unknown Claude model is newer than the catalogue), a function tool elsewhere.
fn default_form(provider: ModelProvider) -> ComputerToolForm {
    match provider {
        ModelProvider::Anthropic => ComputerToolForm::NEWEST_ANTHROPIC,
        ModelProvider::Openai | ModelProvider::OpenaiCompatible => ComputerToolForm::Function,
    }
}

fn unknown_model(provider: ModelProvider, id: &str) -> ModelProfile {
    let anthropic = provider == ModelProvider::Anthropic;
    ModelProfile {
        id: id.to_owned(),
        known: false,
        computer_tool: default_form(provider),
        coordinates: Coordinates::Pixels,
        // Anthropic's current SDK has no `temperature` field at all; other servers take it.
        takes_temperature: !anthropic,
        thinking: if anthropic {
            ThinkingForm::Adaptive
        } else {
            ThinkingForm::None
        },
        token_limit: TokenLimitField::MaxTokens,
        images: if anthropic {
            anthropic::IMAGES
        } else {
            openai::OPEN_MODEL_IMAGES
        },
        pricing: None,
    }
}

#[cfg(test)]
#[path = "catalog_tests.rs"]
mod tests;
