//! Anthropic's models, from the official Python SDK `anthropic` 2.14.0 (PyPI) and the
//! documentation pages each row cites.
//!
//! Sources, by column:
//! - ids: `anthropic/types/model_param.py` (the `ModelParam` literals).
//! - end of life: `anthropic/_data/deprecated_models.py` (`DEPRECATED_MODELS`).
//! - computer tool form: `types/beta/beta_tool_computer_use_20250124_param.py`,
//!   `types/beta/beta_tool_computer_use_20251124_param.py` (beta, `enable_zoom`) and
//!   `types/computer_toolset_20260801_param.py` (generally available); which model takes
//!   which is the computer-use documentation's compatibility table as issue 37 quotes it:
//!   `computer_20251124` for Opus 4.5 and later, Sonnet 4.6 and the 5 models (which answer
//!   `computer_20250124` with a 400); the toolset alone for the newest models: those the
//!   SDK's `ModelParam` lists above Sonnet 5 (the 5.1, 5.2 and 5.5 models) and Fable 5 and
//!   Mythos 5 (the SDK and the table say nothing more of them; the scripted server in
//!   test-support takes the same reading).
//! - temperature: the SDK's `MessageCreateParams` (GA and beta) have no `temperature`
//!   field, so no Anthropic model is sent one.
//! - thinking: `types/thinking_config_param.py` (`adaptive`, `enabled` with
//!   `budget_tokens`); Opus 4.7+ and the 5 models refuse manual budgets (issue 37).
//! - images: the vision documentation (platform.claude.com/docs/en/build-with-claude/vision):
//!   images over 8000 px on a side are refused; a long side of at most 1568 px is recommended.
//! - prices (USD per million tokens; cache writes 1.25x input and reads 0.1x, the prompt
//!   caching documentation's 5-minute ratios): docs.anthropic.com/en/docs/about-claude/pricing
//!   for the 4.5 models; Sonnet 4.6 apidog.com/blog/claude-sonnet-4-6-pricing; Opus 4.6/4.7
//!   aiunpacker.com (May 2026 table, from Anthropic's pricing page); Opus 4.8 and Sonnet 5
//!   (standard price from 2026-09-01) chatforest.com's Sonnet 5 launch notes. Models with no
//!   published price found carry none, and their cost is not estimated.

use super::forms::ComputerToolForm;
use super::forms::Coordinates;
use super::forms::ThinkingForm;
use super::forms::TokenLimitField;
use super::model_info::ImageLimits;
use super::model_info::ModelInfo;
use super::model_info::ModelProvider;
use crate::pricing::Pricing;

/// The default Anthropic model: Sonnet 5, current (no end of life announced in the SDK),
/// takes computer use (`computer_20251124`) and has a published price.
pub(super) const DEFAULT_MODEL: &str = "claude-sonnet-5";

/// Anthropic's image limits (vision documentation).
pub(super) const IMAGES: ImageLimits = ImageLimits {
    max_long_side: 8000,
    recommended_long_side: 1568,
};

const SOURCE: &str = "anthropic 2.14.0 (PyPI): types/model_param.py; tool forms: computer-use docs' \
compatibility table (issue 37); prices: see crates/llm/src/catalog/anthropic.rs";
const SOURCE_EOL: &str = "anthropic 2.14.0 (PyPI): types/model_param.py, \
_data/deprecated_models.py (end of life); tool forms: computer-use docs' compatibility table \
(issue 37); prices: docs.anthropic.com/en/docs/about-claude/pricing";

const fn price(input: f64, output: f64) -> Option<Pricing> {
    Some(Pricing {
        input_per_mtok: input,
        output_per_mtok: output,
        cache_write_per_mtok: input * 1.25,
        cache_read_per_mtok: input * 0.1,
    })
}

const fn row(
    id: &'static str,
    aliases: &'static [&'static str],
    form: ComputerToolForm,
    thinking: ThinkingForm,
    pricing: Option<Pricing>,
    end_of_life: Option<super::model_info::CivilDate>,
) -> ModelInfo {
    ModelInfo {
        id,
        aliases,
        provider: ModelProvider::Anthropic,
        computer_tool: Some(form),
        coordinates: Coordinates::Pixels,
        takes_temperature: false,
        thinking,
        token_limit: TokenLimitField::MaxTokens,
        images: IMAGES,
        pricing,
        end_of_life,
        source: if end_of_life.is_some() {
            SOURCE_EOL
        } else {
            SOURCE
        },
    }
}

use ComputerToolForm::Computer20250124 as V2501;
use ComputerToolForm::Computer20251124 as V2511;
use ComputerToolForm::Toolset20260801 as TOOLSET;
use ThinkingForm::Adaptive;
use ThinkingForm::Budget;

/// Every Anthropic model the catalogue knows, newest first.
pub(super) const MODELS: &[ModelInfo] = &[
    row("claude-fable-5-2", &[], TOOLSET, Adaptive, None, None),
    row("claude-mythos-5-2", &[], TOOLSET, Adaptive, None, None),
    row("claude-haiku-5-5", &[], TOOLSET, Adaptive, None, None),
    row("claude-sonnet-5-5", &[], TOOLSET, Adaptive, None, None),
    row("claude-opus-5-5", &[], TOOLSET, Adaptive, None, None),
    row("claude-fable-5-1", &[], TOOLSET, Adaptive, None, None),
    row("claude-mythos-5-1", &[], TOOLSET, Adaptive, None, None),
    row(
        "claude-sonnet-5",
        &[],
        V2511,
        Adaptive,
        price(3.0, 15.0),
        None,
    ),
    row("claude-fable-5", &[], TOOLSET, Adaptive, None, None),
    row("claude-mythos-5", &[], TOOLSET, Adaptive, None, None),
    row("claude-opus-5", &[], V2511, Adaptive, None, None),
    row(
        "claude-opus-4-8",
        &[],
        V2511,
        Adaptive,
        price(10.0, 50.0),
        None,
    ),
    row(
        "claude-opus-4-7",
        &[],
        V2511,
        Adaptive,
        price(5.0, 25.0),
        None,
    ),
    row(
        "claude-mythos-preview",
        &[],
        V2511,
        Adaptive,
        None,
        Some(jiff::civil::date(2026, 6, 30)),
    ),
    row(
        "claude-opus-4-6",
        &[],
        V2511,
        Adaptive,
        price(5.0, 25.0),
        None,
    ),
    row(
        "claude-sonnet-4-6",
        &[],
        V2511,
        Adaptive,
        price(3.0, 15.0),
        None,
    ),
    row(
        "claude-haiku-4-5",
        &["claude-haiku-4-5-20251001"],
        V2501,
        Budget,
        price(1.0, 5.0),
        None,
    ),
    row(
        "claude-opus-4-5",
        &["claude-opus-4-5-20251101"],
        V2511,
        Budget,
        price(5.0, 25.0),
        Some(jiff::civil::date(2027, 1, 22)),
    ),
    row(
        "claude-sonnet-4-5",
        &["claude-sonnet-4-5-20250929"],
        V2501,
        Budget,
        price(3.0, 15.0),
        Some(jiff::civil::date(2026, 11, 30)),
    ),
];
