//! The model flags every command that talks to a model shares, declared once: `--provider`,
//! `--model`, `--base-url`, `--api-key-env` (the key itself is read from the environment,
//! never from a flag).

use retrace_runner::Provider;
use retrace_runner::ProviderConfig;
use retrace_runner::models::CivilDate;
use retrace_runner::models::ComputerToolForm;
use retrace_runner::models::Coordinates;
use retrace_runner::models::ProfileOverrides;

/// Which model, where, with which key.
#[derive(Debug, Clone, clap::Args)]
pub struct ProviderArgs {
    /// The model API: `anthropic` (Messages API) or `openai` (any OpenAI-compatible server).
    #[arg(long, default_value = "anthropic", value_parser = |s: &str| s.parse::<Provider>())]
    pub provider: Provider,
    /// The model id; default `claude-sonnet-5` for anthropic (required for openai).
    /// `retrace models` lists the models retrace knows.
    #[arg(long)]
    pub model: Option<String>,
    /// The computer tool form to send, for a model the catalogue does not know (or knows
    /// wrongly): computer_20250124, computer_20251124, computer_toolset_20260801, function,
    /// responses_computer (OpenAI's Responses API and computer tool) or ui_tars_text
    /// (UI-TARS's text actions).
    #[arg(long, value_name = "VERSION", value_parser = |s: &str| s.parse::<ComputerToolForm>())]
    pub computer_tool: Option<ComputerToolForm>,
    /// The coordinate space the model answers in: pixels, resized:FACTOR (Qwen2.5-VL:
    /// resized:28) or normalized:SCALE (Qwen3-VL: normalized:1000).
    #[arg(long, value_name = "SPACE", value_parser = |s: &str| s.parse::<Coordinates>())]
    pub coordinates: Option<Coordinates>,
    /// Send no prompt-cache breakpoints and drop old screenshots one per turn (by default
    /// the system prompt, the tools and the conversation are cached, and old screenshots are
    /// dropped three at a time so the cached prefix lasts).
    #[arg(long)]
    pub no_prompt_cache: bool,
    /// The date end-of-life warnings are judged on (YYYY-MM-DD; default today).
    #[arg(long, hide = true, env = "RETRACE_TODAY", value_parser = |s: &str| s.parse::<CivilDate>().map_err(|e| e.to_string()))]
    pub today: Option<CivilDate>,
    /// The API's base URL; for anthropic also `RETRACE_ANTHROPIC_BASE_URL`.
    #[arg(long)]
    pub base_url: Option<String>,
    /// The environment variable holding the API key (default `ANTHROPIC_API_KEY`, or
    /// `OPENAI_API_KEY` for openai where a key is optional).
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// Acknowledge the safety checks OpenAI's computer-use models raise (Responses API
    /// `pending_safety_checks`) and go on; without it the run stops on the first one,
    /// naming it.
    #[arg(long)]
    pub allow_safety_checks: bool,
}

impl ProviderArgs {
    /// The provider configuration; `structured` when answers follow a JSON Schema.
    pub fn config(&self, structured: bool) -> ProviderConfig {
        ProviderConfig {
            provider: self.provider,
            model: self.model.clone(),
            base_url: self.base_url.clone(),
            api_key_env: self.api_key_env.clone(),
            structured,
            overrides: ProfileOverrides {
                computer_tool: self.computer_tool,
                coordinates: self.coordinates,
            },
            today: self.today,
            prompt_cache: !self.no_prompt_cache,
            allow_safety_checks: self.allow_safety_checks,
        }
    }
}
