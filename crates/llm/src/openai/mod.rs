//! OpenAI-compatible chat completions (vLLM, Ollama, LM Studio, OpenRouter, OpenAI):
//! [`wire`] (JSON in and out, no I/O), [`computer`] (the computer tool as a function),
//! [`coordinates`] (open models' coordinate spaces) and [`OpenAiClient`]; [`responses`]:
//! OpenAI's Responses API with OpenAI's computer tool; [`ui_tars`]: UI-TARS's text actions.

pub(crate) mod client;
pub mod computer;
pub mod coordinates;
pub mod responses;
pub mod ui_tars;
pub mod wire;

pub use client::DEFAULT_TIMEOUT;
pub use client::OpenAiClient;
pub use client::OpenAiConfig;
pub use client::UI_TARS_CORRECTIONS;
