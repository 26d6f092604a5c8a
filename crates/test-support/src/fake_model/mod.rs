//! Scripted fake model servers speaking the real protocols on 127.0.0.1.
//!
//! [`FakeAnthropic`] (`POST /v1/messages`) and [`FakeOpenAi`] (`POST /v1/chat/completions`)
//! play a script of [`ScriptStep`]s, one per request: assistant turns (text, tool calls, a
//! stop reason, usage) or failures (429 with `retry-after`, 529, 5xx, 401, a slow answer, a
//! malformed body), with the real status codes, headers and body shapes. When the script runs
//! out they answer 500 with "script exhausted". Every request is recorded
//! ([`RecordedRequest`]: headers, JSON body, arrival time) for assertions.
//!
//! ```ignore
//! let fake = FakeAnthropic::start(vec![
//!     ScriptStep::rate_limited(1),
//!     ScriptStep::tool_use("computer", json!({"action": "screenshot"})),
//! ]).await;
//! let config = AnthropicConfig::new(ApiKey::new("test-key"), "claude-test").with_base_url(fake.base_url());
//! // ... run the client ...
//! assert_eq!(fake.requests().len(), 2);
//! ```

mod anthropic;
mod openai;
mod script;
mod server;

pub use anthropic::FakeAnthropic;
pub use openai::FakeOpenAi;
pub use script::ScriptStep;
pub use server::RecordedRequest;
