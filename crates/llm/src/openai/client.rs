//! [`OpenAiClient`]: chat completions over HTTP(S).

use std::fmt;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::header::HeaderMap;
use reqwest::header::HeaderValue;

use std::sync::atomic::Ordering;

use super::coordinates::CoordinateMap;
use super::wire;
use crate::ApiKey;
use crate::MessageRequest;
use crate::MessageResponse;
use crate::Pricing;
use crate::VlmError;
use crate::VlmProvider;
use crate::catalog::ComputerToolForm;
use crate::catalog::Coordinates;
use crate::fragments::FragmentCache;
use crate::http;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;

/// How many times an unreadable UI-TARS answer is shown to the model with what is wrong
/// before it is an error.
pub const UI_TARS_CORRECTIONS: u32 = 1;

/// How long one request may take unless configured otherwise (local models are slow).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// How to reach an OpenAI-compatible server.
#[derive(Debug, Clone)]
pub struct OpenAiConfig {
    /// The API root including its version path, e.g. `http://127.0.0.1:8000/v1` or
    /// `https://openrouter.ai/api/v1`; `/chat/completions` is appended.
    pub base_url: String,
    /// The model id the server knows.
    pub model: String,
    /// Sent as `Authorization: Bearer <key>` when set (local servers often need none).
    pub api_key: Option<ApiKey>,
    /// Time allowed for one request, connection included.
    pub timeout: Duration,
    /// Prices for cost estimates, when known.
    pub pricing: Option<Pricing>,
    /// `response_format.json_schema.strict` for structured output (default true; set false
    /// for schemas that do not meet OpenAI's strict-mode rules).
    pub strict_response_schema: bool,
    /// The coordinate space the model answers in (default: the catalogue's for `model`,
    /// pixels for models it does not know).
    pub coordinates: Coordinates,
    /// How the computer tool is offered: a function (default), or UI-TARS's text actions
    /// ([`ComputerToolForm::UiTarsText`], the catalogue's for UI-TARS models).
    pub computer_tool: ComputerToolForm,
}

impl OpenAiConfig {
    /// A server at `base_url` serving `model`, with no key.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        let model = model.into();
        let profile = crate::catalog::profile(
            crate::catalog::ModelProvider::OpenaiCompatible,
            &model,
            crate::catalog::ProfileOverrides::default(),
        );
        Self {
            base_url: base_url.into(),
            model,
            coordinates: profile.coordinates,
            computer_tool: profile.computer_tool,
            api_key: None,
            timeout: DEFAULT_TIMEOUT,
            pricing: None,
            strict_response_schema: true,
        }
    }

    /// The same config for a model answering in `coordinates` (`--coordinates`).
    pub fn with_coordinates(mut self, coordinates: Coordinates) -> Self {
        self.coordinates = coordinates;
        self
    }

    /// The same config offering the computer tool as `form` (`--computer-tool`): UI-TARS's
    /// text actions for [`ComputerToolForm::UiTarsText`], else a function.
    pub fn with_computer_tool(mut self, form: ComputerToolForm) -> Self {
        self.computer_tool = form;
        self
    }

    /// The same config with a key.
    pub fn with_api_key(mut self, key: ApiKey) -> Self {
        self.api_key = Some(key);
        self
    }

    /// The same config with another request timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The same config with prices.
    pub fn with_pricing(mut self, pricing: Pricing) -> Self {
        self.pricing = Some(pricing);
        self
    }

    /// The same config with strict structured output on or off.
    pub fn with_strict_response_schema(mut self, strict: bool) -> Self {
        self.strict_response_schema = strict;
        self
    }
}

/// A [`VlmProvider`] speaking OpenAI-compatible chat completions. The computer tool is
/// offered as a function named `computer`. It does not retry; wrap it in
/// [`crate::RetryingProvider`].
///
/// The client keeps the JSON of the messages it last sent and reuses it for equal messages
/// in the next request, so each message of a growing history (and each screenshot in it) is
/// serialised once, not on every turn.
pub struct OpenAiClient {
    config: OpenAiConfig,
    url: String,
    headers: HeaderMap,
    http: reqwest::Client,
    fragments: FragmentCache,
    /// Numbers the `computer` calls read from UI-TARS's text answers.
    text_calls: std::sync::atomic::AtomicU64,
}

impl fmt::Debug for OpenAiClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiClient")
            .field("model", &self.config.model)
            .field("url", &self.url)
            .field("api_key", &self.config.api_key)
            .finish_non_exhaustive()
    }
}

impl OpenAiClient {
    /// A client for this config.
    pub fn new(config: OpenAiConfig) -> Result<Self, VlmError> {
        let url = format!("{}/chat/completions", config.base_url.trim_end_matches('/'));
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(VlmError::Config {
                detail: format!(
                    "base URL `{}` must start with http:// or https:// (for example http://127.0.0.1:8000/v1)",
                    config.base_url
                ),
            });
        }
        let headers = headers(&config)?;
        Ok(Self {
            http: http::build_client(config.timeout)?,
            config,
            url,
            headers,
            fragments: FragmentCache::default(),
            text_calls: std::sync::atomic::AtomicU64::new(1),
        })
    }

    /// How many history messages this client has serialised to JSON so far. A message sent
    /// again in a later request is not serialised again, so over a run this counts the
    /// distinct messages sent (for tests and diagnostics).
    pub fn messages_serialised(&self) -> u64 {
        self.fragments.serialised()
    }
}

impl OpenAiClient {
    /// Sends `request` (the history's points mapped by `map`) and reads the answer.
    async fn send(
        &self,
        request: &MessageRequest,
        map: Option<CoordinateMap>,
    ) -> Result<MessageResponse, VlmError> {
        let body = wire::request_bytes(
            &self.config.model,
            request,
            self.config.strict_response_schema,
            map,
            &self.fragments,
        )?;
        let response = http::post_json(
            &self.http,
            &self.url,
            self.headers.clone(),
            body,
            self.config.timeout,
            self.config.api_key.as_ref(),
        )
        .await?;
        tracing::debug!(status = response.status, model = %self.config.model, "openai response");
        if (200..300).contains(&response.status) {
            return wire::parse_response(&response.body);
        }
        let (api_type, message) = wire::parse_error(&response.body);
        if api_type.as_deref() == Some("insufficient_quota") {
            // A 429 that waiting does not fix.
            return Err(VlmError::BadRequest {
                status: response.status,
                retry: crate::error::RetryHint::default(),
                message,
            });
        }
        Err(http::status_error(
            response.status,
            &response.headers,
            api_type.as_deref(),
            message,
        ))
    }

    /// A turn of a UI-TARS model: the request in its text form, the answer read into
    /// `computer` calls. An answer that cannot be read is shown to the model with what is
    /// wrong, [`UI_TARS_CORRECTIONS`] times at most, before it is an error; the usage of
    /// every attempt is counted.
    async fn ui_tars_message(
        &self,
        request: &MessageRequest,
        map: Option<CoordinateMap>,
    ) -> Result<MessageResponse, VlmError> {
        // The history's points are mapped while it is written as text.
        let mut text_request = super::ui_tars::text_request(request, map);
        let mut usage = retrace_protocol::Usage::default();
        let mut corrections = 0;
        loop {
            let mut answer = self.send(&text_request, None).await?;
            usage.input_tokens += answer.usage.input_tokens;
            usage.output_tokens += answer.usage.output_tokens;
            usage.cache_read_input_tokens += answer.usage.cache_read_input_tokens;
            let text = answer.text();
            let n = self.text_calls.fetch_add(1, Ordering::Relaxed);
            match super::ui_tars::read_answer(&mut answer, map, &format!("uitars_{n}")) {
                Ok(()) => {
                    answer.usage = usage;
                    return Ok(answer);
                }
                Err(error) if corrections < UI_TARS_CORRECTIONS => {
                    corrections += 1;
                    tracing::debug!(%error, "UI-TARS answer unreadable; asking again");
                    text_request
                        .messages
                        .push(Message::assistant(vec![ContentBlock::text(text)]));
                    text_request.messages.push(Message::user_text(format!(
                        "Your answer could not be read: {error}"
                    )));
                }
                Err(error) => {
                    return Err(VlmError::bad_response(
                        format!("UI-TARS's answer cannot be read: {error}"),
                        &text,
                    ));
                }
            }
        }
    }
}

/// The headers every OpenAI request carries: `Authorization: Bearer <key>` when there is a
/// key (shared with the Responses client).
pub(crate) fn headers(config: &OpenAiConfig) -> Result<HeaderMap, VlmError> {
    let mut headers = HeaderMap::new();
    if let Some(key) = &config.api_key {
        let mut value =
            HeaderValue::from_str(&format!("Bearer {}", key.expose())).map_err(|_| {
                VlmError::Config {
                    detail: "the API key contains characters an HTTP header cannot carry \
                         (check it for stray quotes or newlines)"
                        .into(),
                }
            })?;
        value.set_sensitive(true);
        headers.insert(reqwest::header::AUTHORIZATION, value);
    }
    Ok(headers)
}

#[async_trait]
impl VlmProvider for OpenAiClient {
    async fn create_message(&self, request: &MessageRequest) -> Result<MessageResponse, VlmError> {
        let map = wire::coordinate_map(request, self.config.coordinates);
        if self.config.computer_tool == ComputerToolForm::UiTarsText {
            return self.ui_tars_message(request, map).await;
        }
        let mut answer = self.send(request, map).await?;
        if let Some(map) = map {
            for block in &mut answer.content {
                if let ContentBlock::ToolUse(call) = block
                    && call.name == retrace_protocol::tool_names::COMPUTER
                {
                    map.to_screen(&mut call.input);
                }
            }
        }
        Ok(answer)
    }

    fn model_id(&self) -> &str {
        &self.config.model
    }

    fn pricing(&self) -> Option<Pricing> {
        self.config.pricing
    }
}
