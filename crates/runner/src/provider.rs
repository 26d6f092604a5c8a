//! The model provider a session talks to: which API ([`Provider`]), which model, where, with
//! which key, wrapped in the retry policy whose waits become [`Event::Retry`] events.

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering;
use std::time::Duration;

use retrace_llm::ApiKey;
use retrace_llm::RetryPolicy;
use retrace_llm::RetryingProvider;
use retrace_llm::VlmError;
use retrace_llm::VlmProvider;
use retrace_llm::anthropic::AnthropicClient;
use retrace_llm::anthropic::AnthropicConfig;
use retrace_llm::catalog::ComputerToolForm;
use retrace_llm::catalog::ModelProvider;
use retrace_llm::catalog::end_of_life_notice;
use retrace_llm::openai::OpenAiClient;
use retrace_llm::openai::OpenAiConfig;
use retrace_llm::openai::responses::ResponsesClient;
use retrace_llm::openai::responses::ResponsesConfig;
use retrace_protocol::events::Event;
use retrace_protocol::events::EventSink;
use retrace_protocol::events::Events;

use crate::error::RunnerError;
use crate::models::CivilDate;
use crate::models::ProfileOverrides;

/// The environment variable that overrides Anthropic's base URL (a proxy, a fake in tests).
pub const ANTHROPIC_BASE_URL_ENV: &str = "RETRACE_ANTHROPIC_BASE_URL";
/// Where the Anthropic key is read from unless another variable is named.
pub const ANTHROPIC_KEY_ENV: &str = "ANTHROPIC_API_KEY";
/// Where an OpenAI-compatible key is read from (optional) unless another variable is named.
pub const OPENAI_KEY_ENV: &str = "OPENAI_API_KEY";
/// The model used with Anthropic when none is named (the catalogue's default).
pub const DEFAULT_ANTHROPIC_MODEL: &str = retrace_llm::catalog::DEFAULT_ANTHROPIC_MODEL;
/// The OpenAI-compatible base URL used when none is named.
pub const DEFAULT_OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

/// Which model API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// Anthropic's Messages API.
    Anthropic,
    /// Any OpenAI-compatible chat completions server, or OpenAI's Responses API for the
    /// models that take OpenAI's computer tool.
    OpenAi,
}

impl std::str::FromStr for Provider {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "anthropic" => Ok(Provider::Anthropic),
            "openai" => Ok(Provider::OpenAi),
            _ => Err(format!(
                "unknown provider `{text}`: use anthropic or openai"
            )),
        }
    }
}

/// Everything needed to build a provider.
#[derive(Debug, Clone)]
pub struct ProviderConfig {
    /// Which API.
    pub provider: Provider,
    /// The model id; Anthropic has a default, OpenAI-compatible servers need one.
    pub model: Option<String>,
    /// The API's base URL.
    pub base_url: Option<String>,
    /// The environment variable holding the key, when not the provider's usual one.
    pub api_key_env: Option<String>,
    /// Whether answers follow the structured response schema (OpenAI's strict mode refuses
    /// its optional fields, so it is turned off; answers are validated on arrival anyway).
    pub structured: bool,
    /// Overrides of the catalogue's computer tool form and coordinate space.
    pub overrides: ProfileOverrides,
    /// The date end-of-life warnings are judged on; `None` is today on this machine's clock.
    pub today: Option<CivilDate>,
    /// Whether prompts are cached (Anthropic's cache breakpoints; old screenshots dropped in
    /// batches so the cached prefix lasts).
    pub prompt_cache: bool,
    /// Acknowledge OpenAI's pending safety checks (Responses API) instead of stopping on
    /// them (`--allow-safety-checks`).
    pub allow_safety_checks: bool,
}

impl ProviderConfig {
    /// The key: from the named variable or the provider's usual one. Anthropic needs one; an
    /// OpenAI-compatible server may not.
    pub fn api_key(&self) -> Result<Option<ApiKey>, RunnerError> {
        let anthropic = self.provider == Provider::Anthropic;
        let variable = self.api_key_env.clone().unwrap_or_else(|| {
            if anthropic {
                ANTHROPIC_KEY_ENV
            } else {
                OPENAI_KEY_ENV
            }
            .to_owned()
        });
        let value = std::env::var(&variable)
            .ok()
            .filter(|value| !value.trim().is_empty());
        match (value, anthropic, &self.api_key_env) {
            (Some(value), _, _) => Ok(Some(ApiKey::new(value.trim()))),
            (None, _, Some(_)) => Err(RunnerError::Input(format!(
                "no API key: the variable {variable} (named by --api-key-env) is not set or empty"
            ))),
            (None, true, None) => Err(RunnerError::Input(format!(
                "no API key: set {ANTHROPIC_KEY_ENV}, or name the variable that holds the key with --api-key-env VAR"
            ))),
            (None, false, None) => Ok(None),
        }
    }

    /// The provider, with retries reported on `events` under the turn `tracker` last saw.
    pub fn build(
        &self,
        events: &Events,
        tracker: Arc<TurnTracker>,
    ) -> Result<Arc<dyn VlmProvider>, RunnerError> {
        let model = self.model_id();
        let today = self.today.unwrap_or_else(retrace_llm::catalog::today);
        if let Some(message) = end_of_life_notice(&model, today) {
            events.emit(Event::ModelNotice {
                model: model.clone(),
                message,
            });
        }
        let notices = events.clone();
        let client = match self.client()? {
            Client::Anthropic(client) => {
                Client::Anthropic(client.with_notices(Arc::new(move |message: &str| {
                    notices.emit(Event::ModelNotice {
                        model: model.clone(),
                        message: message.to_owned(),
                    });
                })))
            }
            other => other,
        };
        let events = events.clone();
        let observer = Arc::new(move |attempt: u32, delay: Duration, error: &VlmError| {
            events.emit(Event::Retry {
                turn: tracker.current(),
                attempt,
                delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                error: error.to_string(),
            });
        });
        Ok(match client {
            Client::Anthropic(client) => Arc::new(
                RetryingProvider::new(client, RetryPolicy::default()).with_observer(observer),
            ),
            Client::OpenAi(client) => Arc::new(
                RetryingProvider::new(client, RetryPolicy::default()).with_observer(observer),
            ),
            Client::Responses(client) => Arc::new(
                RetryingProvider::new(client, RetryPolicy::default()).with_observer(observer),
            ),
        })
    }

    /// The provider with no retries of its own, for a caller whose retries are its own (the
    /// visual check's judge logs each attempt with its verdict).
    pub fn build_unretried(&self) -> Result<Arc<dyn VlmProvider>, RunnerError> {
        Ok(match self.client()? {
            Client::Anthropic(client) => Arc::new(client),
            Client::OpenAi(client) => Arc::new(client),
            Client::Responses(client) => Arc::new(client),
        })
    }

    /// The model id requests go out with (Anthropic's default when none is named).
    pub fn model_id(&self) -> String {
        match (&self.model, self.provider) {
            (Some(model), _) => model.clone(),
            (None, Provider::Anthropic) => DEFAULT_ANTHROPIC_MODEL.to_owned(),
            (None, Provider::OpenAi) => String::new(),
        }
    }

    /// The configured API client.
    fn client(&self) -> Result<Client, RunnerError> {
        let key = self.api_key()?;
        match self.provider {
            Provider::Anthropic => {
                let model = self
                    .model
                    .clone()
                    .unwrap_or_else(|| DEFAULT_ANTHROPIC_MODEL.to_owned());
                let base_url = self.base_url.clone().or_else(|| {
                    std::env::var(ANTHROPIC_BASE_URL_ENV)
                        .ok()
                        .filter(|url| !url.is_empty())
                });
                let mut config =
                    AnthropicConfig::new(key.unwrap_or_else(|| ApiKey::new("")), model);
                if let Some(base_url) = base_url {
                    config = config.with_base_url(base_url);
                }
                config = config.with_prompt_cache(self.prompt_cache);
                if let Some(form) = self.overrides.catalog().computer_tool {
                    if !form.is_anthropic() {
                        return Err(RunnerError::Input(format!(
                            "--computer-tool {form} is not one of Anthropic's forms: use \
                             computer_20250124, computer_20251124 or computer_toolset_20260801"
                        )));
                    }
                    config = config.with_computer_tool(form);
                }
                Ok(Client::Anthropic(AnthropicClient::new(config)?))
            }
            Provider::OpenAi => {
                let Some(model) = self.model.clone() else {
                    return Err(RunnerError::Input(
                        "--model is required with --provider openai (the model id the server serves)"
                            .into(),
                    ));
                };
                let base_url = self
                    .base_url
                    .clone()
                    .unwrap_or_else(|| DEFAULT_OPENAI_BASE_URL.to_owned());
                let form = self.overrides.catalog().computer_tool.unwrap_or_else(|| {
                    retrace_llm::catalog::profile(
                        ModelProvider::OpenaiCompatible,
                        &model,
                        self.overrides.catalog(),
                    )
                    .computer_tool
                });
                let mut config = OpenAiConfig::new(base_url, model);
                if let Some(coordinates) = self.overrides.catalog().coordinates {
                    config = config.with_coordinates(coordinates);
                }
                if let Some(key) = key {
                    config = config.with_api_key(key);
                }
                if self.structured {
                    config = config.with_strict_response_schema(false);
                }
                match form {
                    ComputerToolForm::Function | ComputerToolForm::UiTarsText => Ok(
                        Client::OpenAi(OpenAiClient::new(config.with_computer_tool(form))?),
                    ),
                    ComputerToolForm::ResponsesComputer => {
                        let config = ResponsesConfig::new(config)
                            .with_allow_safety_checks(self.allow_safety_checks);
                        Ok(Client::Responses(ResponsesClient::new(config)?))
                    }
                    anthropic => Err(RunnerError::Input(format!(
                        "--computer-tool {anthropic} is one of Anthropic's forms, which \
                         --provider openai does not speak: use function (chat completions), \
                         ui_tars_text (UI-TARS's text actions) or responses_computer (OpenAI's \
                         Responses API)"
                    ))),
                }
            }
        }
    }
}

/// One API's client, before any retry wrapper.
enum Client {
    Anthropic(AnthropicClient),
    OpenAi(OpenAiClient),
    Responses(ResponsesClient),
}

/// Remembers the turn in progress, so retry events can name it.
#[derive(Debug, Default)]
pub struct TurnTracker(AtomicUsize);

impl TurnTracker {
    /// The turn last started.
    pub fn current(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }
}

impl EventSink for TurnTracker {
    fn emit(&self, event: &Event) {
        if let Event::TurnStarted { turn, .. } = event {
            self.0.store(*turn, Ordering::Relaxed);
        }
    }
}
