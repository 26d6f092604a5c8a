//! What the catalogue says about one model, and the types its rows are made of.

use super::forms::ComputerToolForm;
use super::forms::Coordinates;
use super::forms::ThinkingForm;
use super::forms::TokenLimitField;
use crate::pricing::Pricing;

/// A calendar date (no time zone): model retirement dates are announced as days.
pub type CivilDate = jiff::civil::Date;

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
