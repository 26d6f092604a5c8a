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
mod openai;

pub use eol::CivilDate;
pub use eol::end_of_life_notice;
pub use eol::today;
pub use forms::ComputerToolForm;
pub use forms::Coordinates;
pub use forms::ThinkingForm;
pub use forms::TokenLimitField;

use crate::Pricing;

/// The API family a model is reached through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelProvider {
    /// Anthropic's Messages API.
    Anthropic,
    /// OpenAI's own API (chat completions and Responses).
    Openai,
    /// An OpenAI-compatible server (vLLM, Ollama, llama.cpp, LM Studio) with an open model.
    OpenaiCompatible,
}

impl ModelProvider {
    /// The name `retrace models` prints.
    pub fn label(self) -> &'static str {
        match self {
            ModelProvider::Anthropic => "anthropic",
            ModelProvider::Openai => "openai",
            ModelProvider::OpenaiCompatible => "openai-compatible",
        }
    }
}

/// The largest image a provider takes, and the size it recommends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ImageLimits {
    /// The longest side the API accepts, in pixels.
    pub max_long_side: u32,
    /// The longest side the provider recommends (larger images are downscaled by the API,
    /// which costs latency and gains nothing).
    pub recommended_long_side: u32,
}

/// What the catalogue says about one model.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ModelInfo {
    /// The model id requests carry.
    pub id: &'static str,
    /// Other ids of the same model (dated snapshots).
    pub aliases: &'static [&'static str],
    /// How it is reached.
    pub provider: ModelProvider,
    /// The computer tool form it takes (`None`: no computer use).
    pub computer_tool: Option<ComputerToolForm>,
    /// The coordinate space of its answers.
    pub coordinates: Coordinates,
    /// Whether a request may set `temperature`.
    pub takes_temperature: bool,
    /// How thinking is asked for.
    pub thinking: ThinkingForm,
    /// The request field that limits its output.
    pub token_limit: TokenLimitField,
    /// Its image limits.
    pub images: ImageLimits,
    /// List prices in US dollars per million tokens, when published.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pricing: Option<Pricing>,
    /// When the provider retires it, when announced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_of_life: Option<CivilDate>,
    /// Where these facts come from.
    pub source: &'static str,
}

impl ModelInfo {
    /// Whether `id` names this model (its id or an alias).
    pub fn answers_to(&self, id: &str) -> bool {
        self.id == id || self.aliases.contains(&id)
    }
}

/// Every model the catalogue knows, Anthropic's first, newest first within a provider.
pub fn catalogue() -> impl Iterator<Item = &'static ModelInfo> {
    anthropic::MODELS.iter().chain(openai::MODELS.iter())
}

/// The catalogue's row for `id` (an id or an alias).
pub fn lookup(id: &str) -> Option<&'static ModelInfo> {
    catalogue().find(|model| model.answers_to(id))
}

/// The Anthropic model used when none is named: a current model that takes computer use
/// (its row says where it comes from).
pub const DEFAULT_ANTHROPIC_MODEL: &str = anthropic::DEFAULT_MODEL;

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
