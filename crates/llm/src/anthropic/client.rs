//! [`AnthropicClient`]: the Messages API over HTTPS.

use std::fmt;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::header::HeaderMap;
use reqwest::header::HeaderValue;

use super::wire;
use super::wire::RequestShape;
use crate::ApiKey;
use crate::MessageRequest;
use crate::MessageResponse;
use crate::Pricing;
use crate::VlmError;
use crate::VlmProvider;
use crate::fragments::FragmentCache;
use crate::http;

/// The public API's address.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The `anthropic-version` header this client speaks: the one the official SDK sends
/// (`anthropic` 2.14.0, `_constants.py`: `ANTHROPIC_API_VERSION`).
pub const API_VERSION: &str = "2026-10-21";
/// How long one request may take unless configured otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// How to reach Anthropic. The key is a value: the caller reads `ANTHROPIC_API_KEY` or its
/// config and passes it in; the library never reads the environment.
#[derive(Debug, Clone)]
pub struct AnthropicConfig {
    /// The API key (`x-api-key`).
    pub api_key: ApiKey,
    /// The model id, e.g. `claude-sonnet-5`.
    pub model: String,
    /// Scheme, host and port; `/v1/messages` is appended. Default [`DEFAULT_BASE_URL`].
    pub base_url: String,
    /// Time allowed for one request, connection included.
    pub timeout: Duration,
    /// Prices for cost estimates; `None` uses the catalogue's list price.
    pub pricing: Option<Pricing>,
    /// The computer tool form and thinking form; by default the catalogue's for `model`.
    pub shape: RequestShape,
}

impl AnthropicConfig {
    /// The public API with the default timeout.
    pub fn new(api_key: ApiKey, model: impl Into<String>) -> Self {
        let model = model.into();
        Self {
            api_key,
            shape: RequestShape::for_model(&model),
            model,
            base_url: DEFAULT_BASE_URL.into(),
            timeout: DEFAULT_TIMEOUT,
            pricing: None,
        }
    }

    /// The same config with prompt caching on or off (`--no-prompt-cache`).
    pub fn with_prompt_cache(mut self, on: bool) -> Self {
        self.shape.caching = on;
        self
    }

    /// The same config sending this computer tool form (`--computer-tool`).
    pub fn with_computer_tool(mut self, form: crate::catalog::ComputerToolForm) -> Self {
        self.shape.computer_tool = form;
        self
    }

    /// The same config pointed at another server (a proxy, a fake in tests).
    pub fn with_base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = base_url.into();
        self
    }

    /// The same config with another request timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The same config with explicit prices.
    pub fn with_pricing(mut self, pricing: Pricing) -> Self {
        self.pricing = Some(pricing);
        self
    }
}

/// A [`VlmProvider`] speaking the Anthropic Messages API. It does not retry; wrap it in
/// [`crate::RetryingProvider`].
///
/// The client keeps the JSON of the messages it last sent and reuses it for equal messages
/// in the next request, so each message of a growing history (and each screenshot in it) is
/// serialised once, not on every turn.
pub struct AnthropicClient {
    config: AnthropicConfig,
    url: String,
    http: reqwest::Client,
    fragments: FragmentCache,
    /// The shape requests are sent in: the config's, until a model refuses its tool form.
    shape: Mutex<RequestShape>,
    notices: Option<NoticeSink>,
}

/// Where a client's notices go (a tool form a model refused and the one that worked).
pub type NoticeSink = Arc<dyn Fn(&str) + Send + Sync>;

/// What the API says when a model does not take a computer tool form
/// (`'claude-sonnet-4-6' does not support tool types: computer_20250124`).
const UNSUPPORTED_TOOL_TYPES: &str = "does not support tool types";

impl fmt::Debug for AnthropicClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AnthropicClient")
            .field("model", &self.config.model)
            .field("url", &self.url)
            .field("api_key", &self.config.api_key)
            .finish_non_exhaustive()
    }
}

impl AnthropicClient {
    /// A client for this config.
    pub fn new(config: AnthropicConfig) -> Result<Self, VlmError> {
        let url = format!("{}/v1/messages", config.base_url.trim_end_matches('/'));
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(VlmError::Config {
                detail: format!(
                    "base URL `{}` must start with http:// or https://",
                    config.base_url
                ),
            });
        }
        Ok(Self {
            http: http::build_client(config.timeout)?,
            shape: Mutex::new(config.shape),
            config,
            url,
            fragments: FragmentCache::default(),
            notices: None,
        })
    }

    /// The same client telling `notice` what a user should know (a tool form a model
    /// refused and the one that worked).
    pub fn with_notices(mut self, notice: NoticeSink) -> Self {
        self.notices = Some(notice);
        self
    }

    /// The shape requests are sent in now.
    pub fn shape(&self) -> RequestShape {
        *self
            .shape
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn set_shape(&self, shape: RequestShape) {
        *self
            .shape
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = shape;
        // Fragments are encodings of one shape; the next request encodes afresh.
        self.fragments.clear();
    }

    async fn send(
        &self,
        request: &MessageRequest,
        shape: RequestShape,
    ) -> Result<MessageResponse, VlmError> {
        let body = wire::request_bytes(&self.config.model, request, shape, &self.fragments)?;
        let response = http::post_json(
            &self.http,
            &self.url,
            self.headers(request, shape)?,
            body,
            self.config.timeout,
            Some(&self.config.api_key),
        )
        .await?;
        tracing::debug!(status = response.status, model = %self.config.model, "anthropic response");
        if (200..300).contains(&response.status) {
            return wire::parse_response(&response.body);
        }
        let (api_type, message) = wire::parse_error(&response.body);
        Err(http::status_error(
            response.status,
            &response.headers,
            api_type.as_deref(),
            message,
        ))
    }

    /// How many messages this client has serialised to JSON so far. A message sent again
    /// in a later request is not serialised again, so over a run this counts the distinct
    /// messages sent (for tests and diagnostics).
    pub fn messages_serialised(&self) -> u64 {
        self.fragments.serialised()
    }

    fn headers(
        &self,
        request: &MessageRequest,
        shape: RequestShape,
    ) -> Result<HeaderMap, VlmError> {
        let mut headers = HeaderMap::new();
        let mut key =
            HeaderValue::from_str(self.config.api_key.expose()).map_err(|_| VlmError::Config {
                detail: "the Anthropic API key contains characters an HTTP header cannot carry \
                         (check ANTHROPIC_API_KEY for stray quotes or newlines)"
                    .into(),
            })?;
        key.set_sensitive(true);
        headers.insert("x-api-key", key);
        headers.insert("anthropic-version", HeaderValue::from_static(API_VERSION));
        let betas = wire::beta_headers(request, shape);
        if !betas.is_empty() {
            let value = HeaderValue::from_str(&betas.join(",")).map_err(|e| VlmError::Config {
                detail: format!("beta header: {e}"),
            })?;
            headers.insert("anthropic-beta", value);
        }
        Ok(headers)
    }
}

#[async_trait]
impl VlmProvider for AnthropicClient {
    /// Sends the request in the current shape. When the model refuses the computer tool
    /// form as unsupported (a 400 naming the tool type), it is sent once more in the next
    /// form; if that one is taken, later requests use it and a notice says which form worked.
    async fn create_message(&self, request: &MessageRequest) -> Result<MessageResponse, VlmError> {
        let shape = self.shape();
        let refused = match self.send(request, shape).await {
            Err(VlmError::BadRequest { message, .. })
                if request.computer_tool().is_some()
                    && message.contains(UNSUPPORTED_TOOL_TYPES)
                    && message.contains(shape.computer_tool.name()) =>
            {
                message
            }
            other => return other,
        };
        let Some(next) = shape.computer_tool.anthropic_fallback() else {
            return Err(VlmError::BadRequest {
                status: 400,
                retry: crate::error::RetryHint::default(),
                message: refused,
            });
        };
        let retried = RequestShape {
            computer_tool: next,
            ..shape
        };
        self.set_shape(retried);
        match self.send(request, retried).await {
            Ok(response) => {
                let text = format!(
                    "model {} refused the computer tool form {} ({refused}); it took {next}, \
                     which later requests use (pass --computer-tool {next} to skip the refused form)",
                    self.config.model, shape.computer_tool
                );
                tracing::warn!("{text}");
                if let Some(notice) = &self.notices {
                    notice(&text);
                }
                Ok(response)
            }
            Err(error) => {
                self.set_shape(shape);
                Err(error)
            }
        }
    }

    fn model_id(&self) -> &str {
        &self.config.model
    }

    fn pricing(&self) -> Option<Pricing> {
        self.config
            .pricing
            .or_else(|| crate::catalog::lookup(&self.config.model).and_then(|model| model.pricing))
    }

    fn image_limits(&self) -> crate::catalog::ImageLimits {
        crate::catalog::profile(
            crate::catalog::ModelProvider::Anthropic,
            &self.config.model,
            crate::catalog::ProfileOverrides::default(),
        )
        .images
    }
}
