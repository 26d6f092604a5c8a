//! retrace-llm: vision-language models behind one trait.
//!
//! - [`VlmProvider`]: send a [`MessageRequest`] (system prompt, messages with images, tools,
//!   tool choice, limits), get a [`MessageResponse`] (content blocks, stop reason, usage).
//!   Errors are a typed [`VlmError`], shaped by what the caller does next.
//! - [`catalog`]: what retrace knows of each model (tool form, coordinates, limits, prices,
//!   end of life), as data with sources; `retrace models` prints it.
//! - [`anthropic::AnthropicClient`]: the Anthropic Messages API with the computer tool in
//!   each form a model takes (`computer_20250124`, `computer_20251124`, the computer
//!   toolset), falling back once when a model refuses its form.
//! - [`openai::OpenAiClient`]: OpenAI-compatible chat completions (vLLM, Ollama, LM Studio,
//!   OpenRouter, OpenAI); the computer tool is offered as a function.
//! - [`RetryingProvider`] and [`RetryPolicy`]: backoff with jitter, `retry-after`, bounded
//!   attempts and total time, each wait reported to a [`RetryObserver`].
//! - [`images`]: screenshots fitted to a model's image limits (shrunk, or cut into tiles),
//!   with the transform that maps a box in a piece back to page pixels.
//! - [`qa`]: image question answering and element location on any provider, answers
//!   validated against a JSON Schema.
//! - [`ApiKey`]: keys are passed in as values and never printed.
//!
//! Each vendor's wire format is a pure module (`anthropic::wire`, `openai::wire`) tested
//! against JSON fixtures; the HTTP layer is thin. This crate does not stream, does not read
//! the environment (the caller reads `ANTHROPIC_API_KEY` and passes the key), does not run
//! tools and does not manage context size (that is the agent's job).
//!
//! ```no_run
//! # async fn demo() -> Result<(), retrace_llm::VlmError> {
//! use retrace_llm::{ApiKey, MessageRequest, RetryPolicy, RetryingProvider, ToolSpec, VlmProvider};
//! use retrace_llm::anthropic::{AnthropicClient, AnthropicConfig};
//! use retrace_protocol::Message;
//!
//! let config = AnthropicConfig::new(ApiKey::new("sk-ant-..."), "claude-sonnet-5");
//! let provider = RetryingProvider::new(AnthropicClient::new(config)?, RetryPolicy::default());
//! let request = MessageRequest::new(vec![Message::user_text("Open the login page")], 1024)
//!     .with_tools(vec![ToolSpec::computer(1280, 800)]);
//! let response = provider.create_message(&request).await?;
//! println!("{:?}: {}", response.stop_reason, response.text());
//! # Ok(()) }
//! ```
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![deny(missing_docs)]

pub mod anthropic;
pub mod catalog;
pub mod error;
mod fragments;
mod http;
pub mod images;
pub mod openai;
mod pricing;
mod provider;
pub mod qa;
mod request;
mod retry;
mod secret;

pub use error::VlmError;
pub use pricing::Pricing;
pub use provider::VlmProvider;
pub use request::ConversationCache;
pub use request::Effort;
pub use request::MessageRequest;
pub use request::MessageResponse;
pub use request::ToolChoice;
pub use retrace_protocol::tool_spec::ToolSpec;
pub use retry::RetryObserver;
pub use retry::RetryPolicy;
pub use retry::RetryingProvider;
pub use secret::ApiKey;
