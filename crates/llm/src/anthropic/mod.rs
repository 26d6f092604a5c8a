//! The Anthropic Messages API: [`wire`] (JSON in and out, no I/O) and [`AnthropicClient`].

mod client;
pub mod toolset;
pub mod wire;

pub use client::API_VERSION;
pub use client::AnthropicClient;
pub use client::AnthropicConfig;
pub use client::DEFAULT_BASE_URL;
pub use client::DEFAULT_TIMEOUT;
pub use client::NoticeSink;
