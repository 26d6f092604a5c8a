//! [`ResponsesClient`]: the Responses API over HTTP(S).

use std::fmt;

use async_trait::async_trait;
use bytes::Bytes;
use reqwest::header::HeaderMap;

use super::wire;
use crate::MessageRequest;
use crate::MessageResponse;
use crate::Pricing;
use crate::VlmError;
use crate::VlmProvider;
use crate::http;
use crate::openai::OpenAiConfig;

/// How to reach the Responses API: the chat client's config (base URL, model, key,
/// timeout, prices) and whether pending safety checks may be acknowledged.
#[derive(Debug, Clone)]
pub struct ResponsesConfig {
    /// Where and which model; `/responses` is appended to the base URL.
    pub api: OpenAiConfig,
    /// Acknowledge the model's pending safety checks (`--allow-safety-checks`) instead of
    /// stopping on them.
    pub allow_safety_checks: bool,
}

impl ResponsesConfig {
    /// The Responses API behind `api`, stopping on safety checks.
    pub fn new(api: OpenAiConfig) -> Self {
        Self {
            api,
            allow_safety_checks: false,
        }
    }

    /// The same config, acknowledging safety checks or not.
    pub fn with_allow_safety_checks(mut self, allow: bool) -> Self {
        self.allow_safety_checks = allow;
        self
    }
}

/// A [`VlmProvider`] speaking OpenAI's Responses API with OpenAI's computer tool. It does
/// not retry; wrap it in [`crate::RetryingProvider`].
pub struct ResponsesClient {
    config: ResponsesConfig,
    url: String,
    headers: HeaderMap,
    http: reqwest::Client,
}

impl fmt::Debug for ResponsesClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResponsesClient")
            .field("model", &self.config.api.model)
            .field("url", &self.url)
            .field("api_key", &self.config.api.api_key)
            .finish_non_exhaustive()
    }
}

impl ResponsesClient {
    /// A client for this config.
    pub fn new(config: ResponsesConfig) -> Result<Self, VlmError> {
        let api = &config.api;
        let url = format!("{}/responses", api.base_url.trim_end_matches('/'));
        let headers = crate::openai::client::headers(api)?;
        Ok(Self {
            http: http::build_client(api.timeout)?,
            url,
            headers,
            config,
        })
    }
}

#[async_trait]
impl VlmProvider for ResponsesClient {
    async fn create_message(&self, request: &MessageRequest) -> Result<MessageResponse, VlmError> {
        let api = &self.config.api;
        let shape = wire::Shape {
            tool: wire::ComputerTool::for_model(&api.model),
            acknowledge_safety_checks: self.config.allow_safety_checks,
            strict_schema: api.strict_response_schema,
        };
        let body = wire::request_body(&api.model, request, shape);
        let body = serde_json::to_vec(&body).map_err(|e| VlmError::Config {
            detail: format!("cannot serialise the Responses request: {e}"),
        })?;
        let response = http::post_json(
            &self.http,
            &self.url,
            self.headers.clone(),
            Bytes::from(body),
            api.timeout,
            api.api_key.as_ref(),
        )
        .await?;
        tracing::debug!(status = response.status, model = %api.model, "responses answer");
        if (200..300).contains(&response.status) {
            let answer = wire::parse_response(&response.body)?;
            if !self.config.allow_safety_checks
                && let Some(check) = wire::pending_safety_checks(&answer).into_iter().next()
            {
                return Err(VlmError::SafetyCheck {
                    id: check.id,
                    code: check.code,
                    message: check.message,
                });
            }
            return Ok(answer);
        }
        let (api_type, message) = crate::openai::wire::parse_error(&response.body);
        Err(http::status_error(
            response.status,
            &response.headers,
            api_type.as_deref(),
            message,
        ))
    }

    fn model_id(&self) -> &str {
        &self.config.api.model
    }

    fn pricing(&self) -> Option<Pricing> {
        self.config.api.pricing
    }
}
