//! The model flags every command that talks to a model shares, declared once: `--provider`,
//! `--model`, `--base-url`, `--api-key-env` (the key itself is read from the environment,
//! never from a flag).

use retrace_runner::Provider;
use retrace_runner::ProviderConfig;

/// Which model, where, with which key.
#[derive(Debug, Clone, clap::Args)]
pub struct ProviderArgs {
    /// The model API: `anthropic` (Messages API) or `openai` (any OpenAI-compatible server).
    #[arg(long, default_value = "anthropic", value_parser = |s: &str| s.parse::<Provider>())]
    pub provider: Provider,
    /// The model id; default `claude-sonnet-4-5` for anthropic (required for openai).
    #[arg(long)]
    pub model: Option<String>,
    /// The API's base URL; for anthropic also `RETRACE_ANTHROPIC_BASE_URL`.
    #[arg(long)]
    pub base_url: Option<String>,
    /// The environment variable holding the API key (default `ANTHROPIC_API_KEY`, or
    /// `OPENAI_API_KEY` for openai where a key is optional).
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
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
        }
    }
}
