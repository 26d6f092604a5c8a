//! OpenAI-compatible chat completions (vLLM, Ollama, LM Studio, OpenRouter, OpenAI):
//! [`wire`] (JSON in and out, no I/O), [`computer`] (the computer tool as a function) and
//! [`OpenAiClient`].

mod client;
pub mod computer;
pub mod wire;

pub use client::DEFAULT_TIMEOUT;
pub use client::OpenAiClient;
pub use client::OpenAiConfig;
