//! The catalogue's rows: every model it knows, found by id or alias.

use super::anthropic;
use super::model_info::ModelInfo;
use super::openai;

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
